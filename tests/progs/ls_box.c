/* ls_box: lists the entries of the cwd (/box) as "./NAME" and of /tmp as
 * "/tmp/NAME", one per line, sorted, dot files included ("." and ".." not),
 * not recursive. Exit 0; exit 1 if a directory cannot be read (it prints
 * "ERROR DIR errno=ENAME").
 * Attacks: nothing by itself; run after mkfiles / write_big in the same box
 * to check that nothing of the previous run survived.
 * Sandbox must report: OK, stdout "./ls_box\n" plus the files the spec put
 * in /box, and no /tmp line at all. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int byname(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int skip_dots(const struct dirent *e)
{
    return strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
}

static int list(const char *dir, const char *prefix)
{
    struct dirent **v;
    int n = scandir(dir, &v, skip_dots, byname);
    if (n < 0) {
        const char *e = strerrorname_np(errno);
        printf("ERROR %s errno=%s\n", dir, e ? e : "?");
        return 1;
    }
    for (int i = 0; i < n; i++) {
        printf("%s%s\n", prefix, v[i]->d_name);
        free(v[i]);
    }
    free(v);
    return 0;
}

int main(void)
{
    int bad = list(".", "./");
    bad |= list("/tmp", "/tmp/");
    return bad;
}
