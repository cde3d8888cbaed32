echo("missing paren"
