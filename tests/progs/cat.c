/* cat: copies stdin to stdout byte for byte (binary-safe), then exits 0.
 * Attacks: stdin feeding and output collection running at the same time
 * (a sandbox that feeds all stdin before reading stdout deadlocks once
 * both pipes are full), NUL bytes, large inputs.
 * Sandbox must report: OK and stdout identical to stdin (up to the cap;
 * OUTPUT_LIMIT beyond it). Exit 1: a read or write failed. */
#include <errno.h>
#include <unistd.h>

int main(void)
{
    static char buf[65536];
    for (;;) {
        ssize_t r = read(0, buf, sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return 1;
        if (r == 0)
            return 0;
        for (ssize_t done = 0; done < r;) {
            ssize_t w = write(1, buf + done, (size_t)(r - done));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                return 1;
            done += w;
        }
    }
}
