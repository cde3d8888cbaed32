(display "missing paren"
