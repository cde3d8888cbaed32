use strict;
die "uncaught\n";
