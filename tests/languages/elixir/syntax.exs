IO.puts("missing paren"
