/* pingpong: one-line round trips through a pipe pair.
 * "ask N": write "ping i", read the answer, N times; exit 0 when every
 * answer was "pong i". "answer": read lines, answer "pong i" to "ping i",
 * until end of file; exit 0 (exit 1 on a malformed line).
 * Used by the interactive tests (100,000 round trips) and the benchmark. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Unbuffered line reads and writes: each message is one syscall each way,
 * as in a real interactive problem that flushes after every line. */
static int read_line(char *buf, size_t size)
{
    size_t n = 0;
    while (n + 1 < size) {
        ssize_t r = read(0, buf + n, 1);
        if (r <= 0)
            return -1;
        if (buf[n++] == '\n')
            break;
    }
    buf[n] = 0;
    return (int)n;
}

int main(int argc, char **argv)
{
    char line[64], want[64];
    if (argc > 2 && strcmp(argv[1], "ask") == 0) {
        long n = atol(argv[2]);
        for (long i = 0; i < n; i++) {
            int len = snprintf(line, sizeof line, "ping %ld\n", i);
            if (write(1, line, (size_t)len) != len || read_line(line, sizeof line) < 0)
                return 1;
            snprintf(want, sizeof want, "pong %ld\n", i);
            if (strcmp(line, want) != 0)
                return 1;
        }
        return 0;
    }
    while (read_line(line, sizeof line) > 0) {
        long i;
        if (sscanf(line, "ping %ld", &i) != 1)
            return 1;
        int len = snprintf(want, sizeof want, "pong %ld\n", i);
        if (write(1, want, (size_t)len) != len)
            return 1;
    }
    return 0;
}
