/* clone_into.c -- the zygote's clone3(CLONE_VM | CLONE_VFORK |
 * CLONE_INTO_CGROUP): a run born in its own cgroup (cgroup v2, Linux 5.7+).
 *
 * DESIGN. Joining a cgroup after birth (writing "0" to cgroup.procs) takes
 * the kernel's threadgroup lock for writing, which waits for an RCU grace
 * period; a child born into the cgroup takes nothing of the kind. glibc has
 * no clone3 wrapper, and a CLONE_VM child must not return into the
 * parent's frames, so a few lines of assembly start it on its own stack.
 * Elsewhere than x86-64 zy_clone_into fails with ENOSYS and the run joins
 * its cgroup the slow way.
 *
 * The zygote's seccomp filter lets clone3 through (the zygote is the one
 * caller); every run then adds zy_no_clone3, which fails the program's
 * clone3 with ENOSYS (its flags live in memory BPF cannot read: glibc falls
 * back to clone, whose flags the main filter checks). Where runs are not
 * born this way (cgroup v1, no cgroup) the zygote loads zy_no_clone3 into
 * itself once instead (zy_clone3_used).
 */
#include <errno.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>

#include "sandbox/zygote.h"

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

static const struct sock_filter no_clone3[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};

const struct sock_fprog zy_no_clone3 = { sizeof no_clone3 / sizeof no_clone3[0], (struct sock_filter *)no_clone3 };

#if defined(__x86_64__)
/* long zy_clone3_raw(struct clone_args *args, size_t size, int (*fn)(void)):
 * the child calls fn on the stack the kernel gave it, then exits with its
 * value; the parent returns the child's pid or -errno. */
long zy_clone3_raw(struct clone_args *args, size_t size, int (*fn)(void)) __attribute__((visibility("hidden")));
__asm__(".text\n"
        ".globl zy_clone3_raw\n"
        ".hidden zy_clone3_raw\n"
        ".type zy_clone3_raw,@function\n"
        "zy_clone3_raw:\n"
        "    mov %rdx, %r9\n"
        "    mov $" "435" ", %eax\n" /* __NR_clone3 */
        "    syscall\n"
        "    test %rax, %rax\n"
        "    jnz 1f\n"
        "    xor %ebp, %ebp\n"
        "    call *%r9\n"
        "    mov %eax, %edi\n"
        "    mov $60, %eax\n" /* __NR_exit */
        "    syscall\n"
        "    hlt\n"
        "1:  ret\n"
        ".size zy_clone3_raw, .-zy_clone3_raw\n");

pid_t zy_clone_into(int (*fn)(void), char *stack, size_t size, int cgroup_fd)
{
    _Static_assert(__NR_clone3 == 435, "clone3's number in the assembly");
    struct clone_args a = {
        .flags = CLONE_VM | CLONE_VFORK | CLONE_INTO_CGROUP,
        .exit_signal = SIGCHLD,
        .stack = (uint64_t)(uintptr_t)stack,
        .stack_size = size,
        .cgroup = (uint64_t)cgroup_fd,
    };
    long rc = zy_clone3_raw(&a, sizeof a, fn);
    if (rc < 0) {
        errno = (int)-rc;
        return -1;
    }
    return (pid_t)rc;
}
#else
pid_t zy_clone_into(int (*fn)(void), char *stack, size_t size, int cgroup_fd)
{
    (void)fn, (void)stack, (void)size, (void)cgroup_fd;
    errno = ENOSYS;
    return -1;
}
#endif
