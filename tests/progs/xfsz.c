/* xfsz: the file size limit's signal, sent by the kernel or by the program.
 *   xfsz write   writes ./big in 1 MiB chunks with SIGXFSZ at its default
 *                action: the kernel kills it at file_bytes
 *   xfsz raise   raise(SIGXFSZ) with nothing written
 * Exit 2 = usage or ./big cannot be created.
 * Sandbox must report: write: OUTPUT_LIMIT (a file reached file_bytes);
 * raise: SIGNALED signal 25 (nothing measured at the limit: a crash of its
 * own, as sigxcpu_self). */
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    if (strcmp(argv[1], "raise") == 0) {
        raise(SIGXFSZ);
        return 1;
    }
    if (strcmp(argv[1], "write") != 0)
        return 2;
    int fd = open("big", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return 2;
    static char chunk[1 << 20];
    memset(chunk, 'x', sizeof chunk);
    for (;;)
        if (write(fd, chunk, sizeof chunk) < 0)
            return 3;
}
