# 1 GiB in 1 MiB blocks, one alive at a time.
my $alive;
$alive = chr($_ % 256) x (1 << 20) for 0 .. 1023;
print "done ", length($alive), "\n";
