# Keeps every 1 MiB block: past any limit.
kept = []
loop { kept << ("x" * (1 << 20)) }
