/* read_shadow: opens /etc/shadow for reading. Prints "opened" and exits 0 on
 * success; otherwise prints "errno=ENAME" and exits 1.
 * Attacks: the uid (root or a uid in the shadow group could read it) and the
 * private root (the host's /etc visible inside).
 * Sandbox must report: RUNTIME_ERROR, exit_code 1, stdout "errno=EACCES"
 * (file there, uid refused) or "errno=ENOENT" (private root without it). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    int fd = open("/etc/shadow", O_RDONLY);
    if (fd < 0) {
        const char *n = strerrorname_np(errno);
        printf("errno=%s\n", n ? n : "?");
        return 1;
    }
    puts("opened");
    return 0;
}
