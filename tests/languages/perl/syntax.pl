print "missing semicolon"
print "here";
