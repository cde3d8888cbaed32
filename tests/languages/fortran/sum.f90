program sum
  integer(kind=8) :: a, b
  read (*, *) a, b
  print '(i0)', a + b
end program sum
