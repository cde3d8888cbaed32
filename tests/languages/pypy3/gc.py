# 1 GiB in 1 MiB blocks, one alive at a time.
alive = None
for i in range(1024):
    alive = bytearray([i % 256]) * (1 << 20)
print("done", len(alive))
