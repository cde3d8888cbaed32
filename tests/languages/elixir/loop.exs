defmodule Loop do
  def run(x), do: run(rem(x * 31 + 7, 1_000_003))
end

Loop.run(0)
