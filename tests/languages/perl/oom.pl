# Keeps every 1 MiB block: past any limit.
my @kept;
push @kept, "x" x (1 << 20) while 1;
