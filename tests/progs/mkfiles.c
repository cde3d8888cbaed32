/* mkfiles [N]: litters both the cwd (/box) and /tmp with, in each:
 *   f00000 .. f<N-1>  N small files (default N = 100)
 *   .hidden           a dot file
 *   deep/...          200 nested directories, 31-character names, so the
 *                     full path (~6,200 bytes) exceeds PATH_MAX; a file
 *                     "bottom" at the end
 *   locked/           a directory holding a file, then chmod 000
 *   root_link         a symlink to "/" (a wiper that follows it wipes root)
 *   fifo              a named pipe (a wiper that opens it blocks)
 * Everything is created with O_EXCL / mkdir, so leftovers of a previous run
 * are reported ("exists"). One summary line per place on stdout:
 *   "./: files=N hidden=1 deep=200 locked=1 root_link=1 fifo=1"
 *   "/tmp: ..." ; failures on stderr; exit 0 if everything was created, else 1.
 * Attacks: the wipe of /box and /tmp between runs.
 * Sandbox must report: OK; then ls_box in the next run of the same box must
 * list nothing of this (ls_box's own file only). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEPTH 200
#define COMPONENT "directory_nested_two_hundred_de" /* 31 characters */

static int failures;

static int fail(const char *where, const char *what)
{
    const char *n = strerrorname_np(errno);
    fprintf(stderr, "%s: %s: errno=%s%s\n", where, what, n ? n : "?",
            errno == EEXIST ? " (left over from a previous run?)" : "");
    failures++;
    return 0;
}

static int make_file(int dir, const char *name, const char *where)
{
    int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0)
        return fail(where, name);
    write(fd, "gradeq\n", 7);
    close(fd);
    return 1;
}

static void litter(const char *where, long n)
{
    int dir = open(where, O_RDONLY | O_DIRECTORY);
    if (dir < 0) {
        fail(where, "open");
        return;
    }
    long files = 0;
    for (long i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "f%05ld", i);
        files += make_file(dir, name, where);
    }
    int hidden = make_file(dir, ".hidden", where);

    int deep = 0, cur = dup(dir);
    const char *name = "deep";
    while (deep < DEPTH) {
        if (mkdirat(cur, name, 0755) < 0) {
            fail(where, "mkdir deep");
            break;
        }
        int next = openat(cur, name, O_RDONLY | O_DIRECTORY);
        close(cur);
        cur = next;
        if (cur < 0) {
            fail(where, "open deep");
            break;
        }
        deep++;
        name = COMPONENT;
    }
    if (cur >= 0) {
        if (deep == DEPTH)
            make_file(cur, "bottom", where);
        close(cur);
    }

    int locked = 0;
    if (mkdirat(dir, "locked", 0755) < 0) {
        fail(where, "mkdir locked");
    } else {
        int l = openat(dir, "locked", O_RDONLY | O_DIRECTORY);
        if (l >= 0) {
            make_file(l, "inside", where);
            close(l);
        }
        if (fchmodat(dir, "locked", 0, 0) < 0)
            fail(where, "chmod 000 locked");
        else
            locked = 1;
    }
    int link = symlinkat("/", dir, "root_link") == 0 ? 1 : fail(where, "symlink root_link");
    int fifo = mkfifoat(dir, "fifo", 0644) == 0 ? 1 : fail(where, "mkfifo fifo");
    close(dir);
    printf("%s: files=%ld hidden=%d deep=%d locked=%d root_link=%d fifo=%d\n",
           strcmp(where, ".") == 0 ? "./" : where, files, hidden, deep, locked, link, fifo);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100;
    litter(".", n);
    litter("/tmp", n);
    return failures ? 1 : 0;
}
