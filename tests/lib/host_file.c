/* host_file.c -- see host_file.h. Pages are counted with cachestat (Linux
 * 6.5); on older kernels cached pages by mincore and dirty ones by the
 * page flags of a mapping of the file (/proc/self/pagemap, then
 * /proc/kpageflags: root). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tests/lib/host_file.h"

#define DIR "/usr/local/share"
#define PAGE 4096
#define NR_CACHESTAT 451 /* x86-64 and most others */
#define KPF_DIRTY 4

struct cs_range {
    uint64_t off, len;
};
struct cs {
    uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
};

static int fill(const char *path, size_t bytes, int sync, unsigned char seed)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    static unsigned char chunk[1 << 16];
    memset(chunk, seed, sizeof chunk);
    for (size_t off = 0; off < bytes;) {
        size_t n = bytes - off < sizeof chunk ? bytes - off : sizeof chunk;
        ssize_t w = pwrite(fd, chunk, n, (off_t)off);
        if (w <= 0) {
            close(fd);
            return -1;
        }
        off += (size_t)w;
    }
    int rc = sync ? fsync(fd) : 0;
    close(fd);
    return rc;
}

/* Files made and not yet removed: a failed test leaves the function that
 * would remove its file, so whatever is left goes at exit. */
#define MADE_MAX 16
static char made[MADE_MAX][128];

static void remove_left(void)
{
    for (int i = 0; i < MADE_MAX; i++)
        if (made[i][0])
            unlink(made[i]);
}

int tl_host_file_make(tl_host_file *f, size_t bytes)
{
    static unsigned n;
    static int registered;
    if (!registered && atexit(remove_left) == 0)
        registered = 1;
    snprintf(f->path, sizeof f->path, DIR "/gradeq-test-%ld-%u", (long)getpid(), n++);
    f->bytes = bytes;
    for (int i = 0; i < MADE_MAX; i++)
        if (!made[i][0]) {
            snprintf(made[i], sizeof made[i], "%s", f->path);
            break;
        }
    if (fill(f->path, bytes, 1, 'a') < 0) {
        int e = errno;
        tl_host_file_remove(f);
        errno = e;
        return -1;
    }
    return 0;
}

int tl_host_file_dirty(const tl_host_file *f)
{
    static unsigned char seed = 'b';
    return fill(f->path, f->bytes, 0, seed++);
}

int tl_host_file_sync(const tl_host_file *f)
{
    int fd = open(f->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

int tl_host_file_evict(const tl_host_file *f)
{
    int fd = open(f->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fdatasync(fd) == 0 && posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0 ? 0 : -1;
    close(fd);
    return rc;
}

/* Without cachestat: a mapping of the file, mincore for residency, the
 * page flags of each resident page for dirtiness. */
static long count_mapped(int fd, size_t bytes, int dirty)
{
    size_t pages = (bytes + PAGE - 1) / PAGE;
    unsigned char *m = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
    unsigned char *vec = calloc(pages, 1);
    long count = -1;
    if (m == MAP_FAILED || !vec || mincore(m, bytes, vec) < 0)
        goto out;
    int pm = -1, kf = -1;
    if (dirty && ((pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)) < 0 ||
                  (kf = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC)) < 0))
        goto close_out;
    count = 0;
    for (size_t i = 0; i < pages; i++) {
        if (!(vec[i] & 1))
            continue;
        if (!dirty) {
            count++;
            continue;
        }
        volatile unsigned char touch = m[i * PAGE]; /* resident: no I/O, maps it */
        (void)touch;
        uint64_t ent = 0, flags = 0;
        uintptr_t va = (uintptr_t)(m + i * PAGE);
        if (pread(pm, &ent, 8, (off_t)(va / PAGE * 8)) != 8 || !(ent >> 63) ||
            pread(kf, &flags, 8, (off_t)((ent & ((1ull << 55) - 1)) * 8)) != 8) {
            count = -1;
            break;
        }
        count += (flags >> KPF_DIRTY) & 1;
    }
close_out:
    if (pm >= 0)
        close(pm);
    if (kf >= 0)
        close(kf);
out:
    if (m != MAP_FAILED)
        munmap(m, bytes);
    free(vec);
    return count;
}

long tl_host_file_pages(const tl_host_file *f, int dirty)
{
    int fd = open(f->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct cs_range r = { 0, 0 };
    struct cs s;
    long n;
    if (syscall(NR_CACHESTAT, fd, &r, &s, 0) == 0)
        n = (long)(dirty ? s.nr_dirty : s.nr_cache);
    else
        n = errno == ENOSYS ? count_mapped(fd, f->bytes, dirty) : -1;
    close(fd);
    return n;
}

void tl_host_file_remove(tl_host_file *f)
{
    if (!f->path[0])
        return;
    unlink(f->path);
    for (int i = 0; i < MADE_MAX; i++)
        if (strcmp(made[i], f->path) == 0)
            made[i][0] = 0;
    f->path[0] = 0;
}
