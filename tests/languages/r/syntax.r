cat("missing paren"
