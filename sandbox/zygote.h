/* zygote.h -- internal to the zygote's two files: zygote.c (building the
 * box, once) and zygote_run.c (each run in it). */
#ifndef GRADEQ_SANDBOX_ZYGOTE_H
#define GRADEQ_SANDBOX_ZYGOTE_H

#include <sched.h>

#include "sandbox/internal.h"

#define FD_SOCK 3   /* the socket to the caller, at a fixed number */
#define FD_PROCS 4  /* 4 to 7: the slot's cgroup.procs (set-up only) */

/* The zygote's configuration, set once by zy_main. */
extern const zy_config *zy_cfg;

/* Set up by zygote.c in namespaces, else -1: a detached mount of the IPC
 * namespace's POSIX queues, the network namespace's sockstat, and the PID
 * namespace's last pid (-1 also where the kernel has none). */
extern int zy_mq_fd, zy_sockstat_fd, zy_last_pid_fd;

/* v1: each run's child, not the zygote, joins the runs' memory cgroup
 * (through the tasks file that comes with each request), so that the
 * run's OOM killer never sees the zygote. */
static inline bool zy_join_memcg(void)
{
    return zy_cfg->host->cg.version == CG_V1;
}

/* v2: each run is born in its cgroup by the zygote's clone3 (clone_into.c),
 * so the run, not the zygote, loads zy_no_clone3. Elsewhere the zygote
 * never calls clone3 and loads that filter into itself once: the runs
 * inherit it, and none pays for a filter of its own (the kernel checks and
 * compiles each one loaded, and frees it after the run's exit). */
static inline bool zy_clone3_used(void)
{
    return zy_cfg->host->cg.version == CG_V2;
}

/* The CPUs a run may use: the zygote's own when it started (its caller's
 * affinity), kept by zygote.c before box.c moves the zygote to its
 * caller's CPU. */
extern cpu_set_t zy_run_cpus;

/* Serves the caller's requests until its socket closes. Never returns. */
void zy_serve(void);

/* ---- clone_into.c ---- */

/* A CLONE_VM|CLONE_VFORK child running fn on [stack, stack+size), born in
 * the cgroup of directory fd cgroup_fd. -1 with errno (ENOSYS where the
 * kernel or this architecture has no clone3). */
pid_t zy_clone_into(int (*fn)(void), char *stack, size_t size, int cgroup_fd);
/* Each run's second seccomp filter: clone3 fails with ENOSYS. */
extern const struct sock_fprog zy_no_clone3;

#endif
