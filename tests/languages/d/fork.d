import core.sys.posix.unistd : fork;

// Each process forks for ever.
void main()
{
    for (;;)
        fork();
}
