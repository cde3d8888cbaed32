# 1 GiB in 1 MiB blocks, one alive at a time.
for (i in 0:1023) alive <- rep(as.raw(i %% 256), 1048576)
cat("done ", length(alive), "\n", sep = "")
