(write-line "missing paren"
