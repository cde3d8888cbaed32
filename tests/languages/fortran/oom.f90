! Keeps every 1 MiB block: past any limit.
program oom
  type node
    character(len=1048576) :: data
    type(node), pointer :: next => null()
  end type node
  type(node), pointer :: head, n
  head => null()
  do
    allocate (n)
    n%data = repeat('x', 1048576)
    n%next => head
    head => n
  end do
end program oom
