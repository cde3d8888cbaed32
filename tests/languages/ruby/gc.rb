# 1 GiB in 1 MiB blocks, one alive at a time.
alive = nil
1024.times { |i| alive = (i % 256).chr * (1 << 20) }
puts "done #{alive.size}"
