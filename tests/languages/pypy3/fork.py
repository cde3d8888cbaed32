# Each process forks for ever.
import os

while True:
    try:
        os.fork()
    except OSError:
        pass
