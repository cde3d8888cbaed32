program hello
  print '(a)', 'hello, world'
end program hello
