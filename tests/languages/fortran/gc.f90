! 1 GiB in 1 MiB blocks, one alive at a time (freed as the next comes).
program gc
  character(len=:), allocatable :: alive
  integer :: i
  do i = 0, 1023
    if (allocated(alive)) deallocate (alive)
    allocate (character(len=1048576) :: alive)
    alive = repeat(achar(mod(i, 256)), 1048576)
  end do
  print '(a,i0)', 'done ', len(alive)
end program gc
