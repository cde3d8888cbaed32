/* result.c -- the vocabulary of results: status and protection names,
 * default limits, freeing, and the error-buffer helpers every file uses. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/internal.h"

static const char *const status_names[] = {
    [SBX_OK] = "OK",
    [SBX_RUNTIME_ERROR] = "RUNTIME_ERROR",
    [SBX_SIGNALED] = "SIGNALED",
    [SBX_TIME_LIMIT] = "TIME_LIMIT",
    [SBX_WALL_TIME_LIMIT] = "WALL_TIME_LIMIT",
    [SBX_MEMORY_LIMIT] = "MEMORY_LIMIT",
    [SBX_OUTPUT_LIMIT] = "OUTPUT_LIMIT",
    [SBX_EXEC_ERROR] = "EXEC_ERROR",
    [SBX_SANDBOX_ERROR] = "SANDBOX_ERROR",
};

#define NSTATUS (sizeof status_names / sizeof status_names[0])

const char *sbx_status_name(sbx_status s)
{
    return (unsigned)s < NSTATUS ? status_names[s] : NULL;
}

int sbx_status_parse(const char *name)
{
    for (size_t i = 0; i < NSTATUS; i++)
        if (strcmp(status_names[i], name) == 0)
            return (int)i;
    return -1;
}

/* Bit i of SBX_ISO_* is named iso_names[i]. */
static const char *const iso_names[] = {
    "pid_ns", "mount_ns", "net_ns", "ipc_ns", "uts_ns", "uid", "no_new_privs",
    "seccomp", "cgroup_memory", "cgroup_pids", "cgroup_cpu", "cgroup_kill",
    "rlimits", "fds", "clean_env", "cgroup_cpu_share",
};

size_t sbx_isolation_names(unsigned bits, const char **names, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < sizeof iso_names / sizeof iso_names[0] && n < max; i++)
        if (bits & (1u << i))
            names[n++] = iso_names[i];
    return n;
}

void sbx_limits_default(sbx_limits *l)
{
    *l = (sbx_limits){
        .cpu_ms = 1000,
        .wall_ms = 0,
        .memory_bytes = 256ull << 20,
        .stdout_bytes = 1ull << 20,
        .stderr_bytes = 64ull << 10,
        .processes = 64,
        .file_bytes = 64ull << 20,
        .open_files = 64,
    };
}

void sbx_result_free(sbx_result *r)
{
    cap_unmap(r->stdout_buf, r->stdout_map_);
    cap_unmap(r->stderr_buf, r->stderr_map_);
    r->stdout_buf = r->stderr_buf = NULL;
    r->stdout_len = r->stderr_len = 0;
}

__attribute__((format(printf, 4, 0)))
static void vfail(char *err, size_t errlen, int errnum, const char *fmt, va_list ap)
{
    if (!err || errlen == 0)
        return;
    int n = vsnprintf(err, errlen, fmt, ap);
    if (errnum && n >= 0 && (size_t)n < errlen)
        snprintf(err + n, errlen - (size_t)n, ": %s", strerror(errnum));
}

int sbx_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(err, errlen, 0, fmt, ap);
    va_end(ap);
    return -1;
}

int sbx_fail_errno(char *err, size_t errlen, const char *fmt, ...)
{
    int e = errno;
    va_list ap;
    va_start(ap, fmt);
    vfail(err, errlen, e, fmt, ap);
    va_end(ap);
    errno = e;
    return -1;
}

void sbx_quote(char *out, size_t outlen, const char *name)
{
    size_t i = 0;
    for (; i + 1 < outlen && name[i]; i++)
        out[i] = name[i] >= 0x20 && name[i] < 0x7f && name[i] != '"' && name[i] != '\\' ? name[i] : '?';
    if (outlen)
        out[i] = 0;
}
