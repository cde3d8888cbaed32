program loop
  integer(kind=8) :: x
  x = 0
  do
    x = mod(x * 31 + 7, 1000003_8)
  end do
end program loop
