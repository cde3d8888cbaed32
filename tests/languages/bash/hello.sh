echo "hello, world"
