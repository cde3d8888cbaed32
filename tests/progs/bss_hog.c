/* bss_hog: a 2 GiB static (bss) array, one byte written in every page.
 * Attacks: memory limits that watch malloc/brk only; with RLIMIT_AS below
 * 2 GiB the kernel refuses it at exec (the process is killed in execve).
 * Sandbox must report: MEMORY_LIMIT (or EXEC_ERROR if the address-space
 * limit keeps the binary from being loaded); never OK, never SANDBOX_ERROR.
 * Never run it outside a sandbox. */
#include <unistd.h>

static char big[2UL << 30];

int main(void)
{
    unsigned long page = (unsigned long)sysconf(_SC_PAGESIZE);
    for (unsigned long i = 0; i < sizeof big; i += page)
        ((volatile char *)big)[i] = 1;
    return 0;
}
