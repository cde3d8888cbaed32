# 1 GiB in 1 MiB strings, one alive at a time.
block=x
for ((i = 0; i < 20; i++)); do block=$block$block; done
for ((i = 0; i < 1024; i++)); do alive=$block$i; done
echo "done ${#block}"
