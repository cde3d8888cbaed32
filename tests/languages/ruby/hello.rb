puts "hello, world"
