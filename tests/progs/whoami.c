/* whoami: prints who and where it runs, one "key=value" per line:
 *   uid gid euid egid groups (count of supplementary groups) pid ppid
 *   CapEff CapPrm CapBnd NoNewPrivs Seccomp (copied from /proc/self/status;
 *   "?" when unreadable) hostname proc1_cmdline (readable / unreadable
 *   errno=ENAME) and, when readable, proc1_cmdline_text (NULs as spaces);
 *   then user, home, group (the uid's and gid's names, "?" when unknown)
 *   and passwd_lines (lines in /etc/passwd, -1 when unreadable).
 * Attacks: nothing; it shows what the isolation bits claim.
 * Sandbox must report: OK with uid/gid/euid the slot's (uid_base + slot, not
 * 0), groups=0, CapEff/CapPrm/CapBnd all 0000000000000000, NoNewPrivs=1,
 * Seccomp=2, a hostname other than the host's; in namespaces user=box,
 * home=/box, group=box and passwd_lines=3 (no host account listed). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void status_field(const char *key)
{
    char line[512];
    size_t k = strlen(key);
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, key, k) == 0 && line[k] == ':') {
            char *v = line + k + 1;
            v += strspn(v, " \t");
            v[strcspn(v, "\n")] = 0;
            printf("%s=%s\n", key, v);
            fclose(f);
            return;
        }
    }
    if (f)
        fclose(f);
    printf("%s=?\n", key);
}

static void names(void)
{
    struct passwd *pw = getpwuid(getuid());
    printf("user=%s\nhome=%s\n", pw ? pw->pw_name : "?", pw ? pw->pw_dir : "?");
    struct group *gr = getgrgid(getgid());
    printf("group=%s\n", gr ? gr->gr_name : "?");
    FILE *f = fopen("/etc/passwd", "r");
    int lines = f ? 0 : -1, c;
    while (f && (c = getc(f)) != EOF)
        lines += c == '\n';
    if (f)
        fclose(f);
    printf("passwd_lines=%d\n", lines);
}

int main(void)
{
    printf("uid=%d\ngid=%d\neuid=%d\negid=%d\n", (int)getuid(), (int)getgid(),
           (int)geteuid(), (int)getegid());
    printf("groups=%d\npid=%d\nppid=%d\n", getgroups(0, NULL), (int)getpid(),
           (int)getppid());
    status_field("CapEff");
    status_field("CapPrm");
    status_field("CapBnd");
    status_field("NoNewPrivs");
    status_field("Seccomp");
    char host[256] = "?";
    gethostname(host, sizeof host - 1);
    printf("hostname=%s\n", host);
    names();
    int fd = open("/proc/1/cmdline", O_RDONLY);
    char buf[256];
    ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
    if (n < 0) {
        const char *e = strerrorname_np(errno);
        printf("proc1_cmdline=unreadable errno=%s\n", e ? e : "?");
        return 0;
    }
    for (ssize_t i = 0; i < n; i++)
        if (buf[i] == 0 || buf[i] == '\n')
            buf[i] = ' ';
    buf[n] = 0;
    printf("proc1_cmdline=readable\nproc1_cmdline_text=%s\n", buf);
    return 0;
}
