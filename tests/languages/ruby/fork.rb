# Each process forks for ever.
loop { fork rescue nil }
