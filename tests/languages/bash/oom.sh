# Keeps doubling one string: past any limit.
s=x
while :; do s="$s$s"; done
