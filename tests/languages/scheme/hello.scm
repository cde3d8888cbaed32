(display "hello, world")
(newline)
