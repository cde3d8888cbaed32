/* zygote.h -- internal to the zygote's two files: zygote.c (building the
 * box, once) and zygote_run.c (each run in it). */
#ifndef GRADEQ_SANDBOX_ZYGOTE_H
#define GRADEQ_SANDBOX_ZYGOTE_H

#include "sandbox/internal.h"

#define FD_SOCK 3   /* the socket to the caller, at a fixed number */
#define FD_PROCS 4  /* 4, 5, 6: the slot's cgroup.procs (set-up only) */

/* The zygote's configuration, set once by zy_main. */
extern const zy_config *zy_cfg;

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
