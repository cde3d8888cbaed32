stop("uncaught")
