/* probe.c -- whether a preset's programs are there as the box sees them:
 * the program that really runs, looked for where the box looks.
 *
 * The box sees /usr, /bin, /sbin, /lib*, /etc and the presets' read-only
 * paths, and its PATH is the preset's (else the sandbox's default). So a
 * command is followed through `env [-i] [-u NAME] [NAME=VALUE]... PROG`
 * to PROG, PROG is searched in that PATH, the file found must resolve
 * (links followed) inside what the box sees and be executable by anyone
 * (the box runs as its slot's uid), and a script's interpreter (its #!
 * line, through env too) must pass the same test. A program only the host
 * sees (a toolchain under /root) is unavailable, and says so. What cannot
 * be told from outside is the self-test's to find.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "worker/common/words.h"
#include "worker/lang/languages.h"

#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

static const char *const system_trees[] = { "/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32", "/etc" };

static bool under(const char *path, const char *root)
{
    size_t n = strlen(root);
    return strncmp(path, root, n) == 0 && (path[n] == 0 || path[n] == '/');
}

/* Whether the box sees the file at path (a host path, links resolved) and
 * may execute it. */
static bool box_runs(const wk_lang *l, const char *path)
{
    char real[PATH_MAX];
    struct stat st;
    if (!realpath(path, real) || stat(real, &st) < 0 || !S_ISREG(st.st_mode) || !(st.st_mode & S_IXOTH))
        return false;
    for (size_t i = 0; i < sizeof system_trees / sizeof system_trees[0]; i++)
        if (under(real, system_trees[i]))
            return true;
    for (size_t i = 0; i < l->npaths; i++)
        if (under(real, l->paths[i]))
            return true;
    return false;
}

/* Searches prog in the colon-separated dirs; the first hit goes to out. */
static bool search(const char *dirs, const char *prog, char *out, size_t size, bool (*ok)(const wk_lang *, const char *),
                   const wk_lang *l)
{
    for (const char *d = dirs; d && *d;) {
        const char *colon = strchr(d, ':');
        size_t n = colon ? (size_t)(colon - d) : strlen(d);
        if (n && d[0] == '/' && snprintf(out, size, "%.*s/%s", (int)n, d, prog) < (int)size &&
            (ok ? ok(l, out) : access(out, X_OK) == 0))
            return true;
        d = colon ? colon + 1 : NULL;
    }
    return false;
}

/* Past `env`, its options and its NAME=VALUE words: the program. *path is
 * set when a PATH=... among them changes where it is looked for. NULL
 * with why when env is used in a way this cannot follow. */
static const char *past_env(char *const *argv, const char **path, char *why, size_t whylen)
{
    size_t i = 0;
    while (argv[i]) {
        const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
        if (strcmp(base, "env") != 0)
            return argv[i];
        for (i++; argv[i]; i++) {
            if (strcmp(argv[i], "-i") == 0 || strcmp(argv[i], "-") == 0 || strcmp(argv[i], "--ignore-environment") == 0)
                continue;
            if (strcmp(argv[i], "-u") == 0 && argv[i + 1]) {
                i++;
                continue;
            }
            if (strncmp(argv[i], "--unset=", 8) == 0)
                continue;
            if (strcmp(argv[i], "--") == 0) {
                i++;
                break;
            }
            if (argv[i][0] == '-') {
                snprintf(why, whylen, "env %.40s: an option this check cannot follow (use the preset's env key)",
                         argv[i]);
                return NULL;
            }
            const char *eq = strchr(argv[i], '=');
            if (!eq)
                break;
            if (strncmp(argv[i], "PATH=", 5) == 0)
                *path = argv[i] + 5;
        }
    }
    snprintf(why, whylen, "env runs no program");
    return NULL;
}

/* The interpreter a script names on its #! line, through env: 0 when the
 * file is not a script or its interpreter is there, -1 with why. */
static int interpreter(const wk_lang *l, const char *file, const char *shown, char *why, size_t whylen)
{
    char head[256];
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, head, sizeof head - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n < 2 || head[0] != '#' || head[1] != '!')
        return 0;
    head[n] = 0;
    head[strcspn(head, "\n")] = 0;
    char buf[256], *argv[8], e[64];
    if (wk_split_words(head + 2, buf, sizeof buf, argv, 8, e, sizeof e) < 0)
        return snprintf(why, whylen, "%s: its #! line: %s", shown, e), -1;
    const char *path = DEFAULT_PATH, *prog = past_env(argv, &path, why, whylen);
    char found[PATH_MAX];
    if (!prog)
        return -1;
    if (prog[0] == '/' ? box_runs(l, prog) : search(path, prog, found, sizeof found, box_runs, l))
        return 0;
    return snprintf(why, whylen, "%s runs %.60s, which the box does not have", shown, prog), -1;
}

/* The preset's PATH (its last PATH=), else the sandbox's default. */
static const char *preset_path(const wk_lang *l, bool compile)
{
    const char *p = DEFAULT_PATH;
    for (size_t i = 0; i < l->nenv; i++)
        if (strncmp(l->env[i], "PATH=", 5) == 0)
            p = l->env[i] + 5;
    for (size_t i = 0; compile && i < l->ncompile_env; i++)
        if (strncmp(l->compile_env[i], "PATH=", 5) == 0)
            p = l->compile_env[i] + 5;
    return p;
}

static int check_command(const wk_lang *l, char *const *argv, bool compile, char *why, size_t whylen)
{
    const char *path = preset_path(l, compile), *prog = past_env(argv, &path, why, whylen);
    char found[PATH_MAX], host[PATH_MAX];
    if (!prog)
        return -1;
    if (strchr(prog, '/') && prog[0] != '/')
        return 0; /* a file of /box: the job's, or what the compile step built */
    if (prog[0] == '/') {
        if (!box_runs(l, prog))
            return snprintf(why, whylen, "%.80s is not installed where the box sees it", prog), -1;
        return interpreter(l, prog, prog, why, whylen);
    }
    if (search(path, prog, found, sizeof found, box_runs, l))
        return interpreter(l, found, prog, why, whylen);
    if (search(getenv("PATH"), prog, host, sizeof host, NULL, l))
        return snprintf(why, whylen, "%.40s is not installed where the box sees it (this machine has %.80s)", prog,
                        host), -1;
    return snprintf(why, whylen, "%.80s is not installed", prog), -1;
}

void wk_lang_probe(wk_lang *l)
{
    l->available = (!l->has_compile || check_command(l, l->compile_argv, true, l->why, sizeof l->why) == 0) &&
                   check_command(l, l->run_argv, false, l->why, sizeof l->why) == 0;
    if (l->available)
        l->why[0] = 0;
}
