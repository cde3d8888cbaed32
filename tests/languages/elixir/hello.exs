IO.puts("hello, world")
