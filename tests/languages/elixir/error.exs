raise "uncaught"
