raise newException(ValueError, "uncaught")
