# Each process forks for ever.
repeat try(parallel::mcparallel(0), silent = TRUE)
