# Four threads, each sums its quarter.
use threads;
my @t = map { my $id = $_; threads->create(sub { my $s = 0; for (my $i = $id; $i < 400000; $i += 4) { $s += $i } $s }) } 0 .. 3;
my $total = 0;
$total += $_->join for @t;
print "$total\n";
