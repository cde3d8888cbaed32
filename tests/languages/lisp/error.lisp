(error "uncaught")
