/* yes_stderr: writes "y\n" forever to stderr in 64 KiB chunks.
 * Attacks: the stderr cap (smaller than stdout's by default).
 * Sandbox must report: OUTPUT_LIMIT, stderr_truncated, stderr_len equal to
 * the stderr cap, stdout empty. */
#include <unistd.h>

int main(void)
{
    static char buf[64 * 1024];
    for (size_t i = 0; i < sizeof buf; i += 2) {
        buf[i] = 'y';
        buf[i + 1] = '\n';
    }
    for (;;)
        write(2, buf, sizeof buf);
}
