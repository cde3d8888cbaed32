# The classic fork bomb.
f() { f | f & }
f
