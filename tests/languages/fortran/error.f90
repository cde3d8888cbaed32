program error
  error stop 'uncaught'
end program error
