# Four threads, each sums its quarter.
parts = (0..3).map { |id| Thread.new { (id...400_000).step(4).sum } }
puts parts.map(&:value).sum
