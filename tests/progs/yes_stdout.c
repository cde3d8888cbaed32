/* yes_stdout: writes "y\n" forever to stdout in 64 KiB chunks.
 * Attacks: the stdout cap and the memory of whoever collects the output.
 * Sandbox must report: OUTPUT_LIMIT, stdout_truncated, stdout_len equal to
 * the cap (never more), every byte "y\n". */
#include <unistd.h>

int main(void)
{
    static char buf[64 * 1024];
    for (size_t i = 0; i < sizeof buf; i += 2) {
        buf[i] = 'y';
        buf[i + 1] = '\n';
    }
    for (;;)
        write(1, buf, sizeof buf);
}
