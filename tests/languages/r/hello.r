cat("hello, world\n")
