(write-line "hello, world")
