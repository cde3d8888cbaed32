# Four processes, each sums its quarter.
0..3
|> Enum.map(fn id -> Task.async(fn -> Enum.sum(Enum.take_every(id..399_999, 4)) end) end)
|> Enum.map(&Task.await/1)
|> Enum.sum()
|> IO.puts()
