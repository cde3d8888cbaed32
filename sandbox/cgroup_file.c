/* cgroup_file.c -- reading and writing the small text files of a cgroup
 * (one number, "key value" lines, "max"), shared by cgroup.c and
 * cgroup_probe.c. Positional reads and writes, so a kept fd needs no seek
 * and two threads may use it at once. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/cgroup_file.h"

int cgf_write_str(int fd, const char *s)
{
    size_t n = strlen(s);
    ssize_t w = pwrite(fd, s, n, 0);
    return w == (ssize_t)n ? 0 : -1;
}

int cgf_write_u64(int fd, uint64_t v)
{
    char b[24];
    snprintf(b, sizeof b, "%" PRIu64, v);
    return cgf_write_str(fd, b);
}

int cgf_read_text(int fd, char *buf, size_t size)
{
    ssize_t n = pread(fd, buf, size - 1, 0);
    if (n < 0)
        return -1;
    buf[n] = 0;
    return 0;
}

int cgf_read_u64(int fd, uint64_t *v)
{
    char b[64];
    if (cgf_read_text(fd, b, sizeof b) < 0)
        return -1;
    if (strncmp(b, "max", 3) == 0) {
        *v = UINT64_MAX;
        return 0;
    }
    char *end;
    errno = 0;
    unsigned long long x = strtoull(b, &end, 10);
    if (errno || end == b)
        return -1;
    *v = x;
    return 0;
}

int cgf_text_key(const char *text, const char *key, uint64_t *v)
{
    size_t kl = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, key, kl) == 0 && p[kl] == ' ') {
            *v = strtoull(p + kl + 1, NULL, 10);
            return 0;
        }
    }
    errno = ENOENT;
    return -1;
}

/* "key value" lines (memory.events, cpu.stat, memory.oom_control). */
int cgf_read_key(int fd, const char *key, uint64_t *v)
{
    char b[1024];
    if (cgf_read_text(fd, b, sizeof b) < 0)
        return -1;
    return cgf_text_key(b, key, v);
}

bool cgf_has_token(const char *list, const char *tok, char sep)
{
    size_t tl = strlen(tok);
    for (const char *p = list; p; p = strchr(p, sep), p = p ? p + 1 : NULL)
        if (strncmp(p, tok, tl) == 0 && (p[tl] == sep || p[tl] == 0 || p[tl] == ' ' || p[tl] == '\n'))
            return true;
    return false;
}

int cgf_mkdir_ok(const char *path)
{
    return mkdir(path, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

int cgf_write_file(const char *path, const char *s)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = cgf_write_str(fd, s);
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}
