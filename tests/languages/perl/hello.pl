print "hello, world\n";
