# 1 GiB in 1 MiB blocks, one alive at a time.
var alive: seq[byte]
for i in 0 ..< 1024:
  alive = newSeq[byte](1 shl 20)
  alive[0] = byte(i mod 256)
echo "done ", alive.len
