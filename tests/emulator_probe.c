/* emulator_probe.c -- run by tests/vm.sh in the guest before the suite:
 * does the CPU store a SETcc result right when the store is a page's first
 * write (a page fault in the middle of the instruction)?
 *
 * Hardware always does. QEMU's x86 emulator (TCG, at least in 7.2) can
 * restart the faulting SETcc with stale lazy flags and store the wrong
 * byte: a `flag = rc > 0` in any program then reads back as false at
 * random. A guest with that defect cannot prove or disprove a single run,
 * so vm.sh reports the count beside the results. Exits 1 when any store
 * was wrong.
 */
#include <stdio.h>

#define PAGES 8192

static unsigned char pages[PAGES][4096] __attribute__((aligned(4096)));

/* Kept out of line so the flags come from a test of a returned value, as
 * in ordinary code. */
__attribute__((noinline)) static int identity(int x)
{
    __asm__ volatile("" : "+r"(x));
    return x;
}

int main(int argc, char **argv)
{
    (void)argv;
    int wrong = 0;
    for (int i = 0; i < PAGES; i++) {
        int v = identity(argc); /* 1 */
        __asm__ volatile("test %1, %1\n\tsetg %0" : "=m"(pages[i][48]) : "r"(v) : "cc");
        wrong += pages[i][48] != 1;
    }
    printf("setg into %d freshly faulted pages: %d stored wrong\n", PAGES, wrong);
    return wrong != 0;
}
