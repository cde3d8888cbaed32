# Keeps every 1 MiB block: past any limit.
kept = []
while True:
    kept.append(bytearray(b"x" * (1 << 20)))
