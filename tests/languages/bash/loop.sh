x=0
while :; do x=$(( (x * 31 + 7) % 1000003 )); done
