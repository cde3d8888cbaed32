print("missing paren"
