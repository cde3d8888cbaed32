! 1 GiB in 1 MiB blocks, one alive at a time (freed as the next comes);
! each block written whole and one of its bytes read back.
program gc
  character(len=1), allocatable :: alive(:)
  integer :: i, j, sum
  sum = 0
  do i = 0, 1023
    if (allocated(alive)) deallocate (alive)
    allocate (alive(1048576))
    do j = 1, size(alive)
      alive(j) = achar(mod(i + j, 256))
    end do
    sum = sum + iachar(alive(1 + mod(i * 7919, size(alive))))
  end do
  print '(a,i0)', 'done ', size(alive) + min(sum, 0)
end program gc
