my ($a, $b) = split ' ', join('', <STDIN>);
print $a + $b, "\n";
