# Keeps every 1 MiB block: past any limit.
Stream.iterate([], fn kept -> [:binary.copy(<<1>>, 1_048_576) | kept] end) |> Stream.run()
