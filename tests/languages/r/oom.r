# Keeps every 1 MiB block: past any limit.
kept <- list()
i <- 0
repeat {
  i <- i + 1
  kept[[i]] <- raw(1048576) | as.raw(1)
}
