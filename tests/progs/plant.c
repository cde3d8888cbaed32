/* plant: attacks the wipe between runs and the placing of the next job's
 * files. `plant` (as the first job) creates, in both . and /tmp, the names
 * an older wipe used for itself (.gradeq-wipe-0..7, each a directory with a
 * file inside), a 40-deep directory chain, a FIFO and a directory named
 * like the next job's files (`prog`, `data`, `input.txt`), and a hardlink
 * of its own file under the name `secret.txt` a later job may be given.
 * Prints `planted wipe=8 deep=40 fifo=1 dir=1 link=1` and exits 0 only if
 * all of it was made; exit 1 and the errno on stderr otherwise.
 * `plant --shallow` makes all but the chain (`deep=0`): what a wipe can
 * clear in place.
 * `plant --find WORD` (as a later job) prints `found PATH` for each
 * regular file under . and /tmp (not recursive into chains) containing
 * WORD, then `done`.
 * Sandbox must report: OK both times; the later job finds nothing but its
 * own files, and a job in between is not SANDBOX_ERROR and its files are
 * its own. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(const char *what)
{
    fprintf(stderr, "%s: %s\n", what, strerrorname_np(errno));
    exit(1);
}

static void plant_in(const char *top, int depth)
{
    if (chdir(top) < 0)
        fail("chdir");
    for (int i = 0; i < 8; i++) {
        char d[64];
        snprintf(d, sizeof d, ".gradeq-wipe-%d", i);
        if (mkdir(d, 0755) < 0 || chdir(d) < 0)
            fail("mkdir wipe name");
        int fd = open("x", O_WRONLY | O_CREAT, 0644);
        if (fd < 0 || chdir("..") < 0)
            fail("file in wipe name");
        close(fd);
    }
    for (int i = 0; i < depth; i++)
        if (mkdir(i ? "d" : "deep", 0755) < 0 || chdir(i ? "d" : "deep") < 0)
            fail("deep chain");
    if (chdir(top) < 0)
        fail("chdir back");
    unlink("prog"); /* our own binary: the next job's will be placed here */
    if (mkfifo("prog", 0666) < 0 || mkfifo("input.txt", 0666) < 0)
        fail("mkfifo");
    if (mkdir("data", 0777) < 0)
        fail("mkdir data");
    int fd = open("mine", O_WRONLY | O_CREAT, 0666);
    if (fd < 0 || link("mine", "secret.txt") < 0)
        fail("hardlink");
    close(fd);
}

static void find_in(const char *top, const char *word)
{
    DIR *d = opendir(top);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char path[512], buf[4096];
        snprintf(path, sizeof path, "%s/%s", top, e->d_name);
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
            if (fd >= 0)
                close(fd);
            continue;
        }
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n > 0 && memmem(buf, (size_t)n, word, strlen(word)))
            printf("found %s\n", path);
    }
    if (d)
        closedir(d);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--find") == 0) {
        find_in(".", argv[2]);
        find_in("/tmp", argv[2]);
        puts("done");
        return 0;
    }
    char box[4096];
    if (!getcwd(box, sizeof box))
        fail("getcwd");
    int depth = argc == 2 && strcmp(argv[1], "--shallow") == 0 ? 0 : 40;
    plant_in(box, depth);
    plant_in("/tmp", depth);
    printf("planted wipe=8 deep=%d fifo=1 dir=1 link=1\n", depth);
    return 0;
}
