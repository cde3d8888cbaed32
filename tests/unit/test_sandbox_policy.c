/* test_sandbox_policy.c -- the seccomp program as the kernel runs it: a
 * small interpreter of classic BPF answers system calls the way the
 * kernel would, for the calls the policy decides on an argument and for
 * those it denies outright, and counts the instructions each answer took.
 * Kernels since 5.11 skip the program for a call it allows whatever the
 * arguments; every other call (fcntl, socket, clone, personality,
 * fadvise64, the denied ones, and every call on older kernels) runs it,
 * so the program is a binary search over call numbers, not a list. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "sandbox/internal.h"

static struct sock_fprog prog;

typedef struct answer {
    uint32_t ret;   /* SECCOMP_RET_* with its data */
    unsigned steps; /* instructions run */
} answer;

/* Runs prog on one call as the kernel would (the opcodes libseccomp
 * emits; any other fails the test). */
static answer run(uint32_t arch, int nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3)
{
    struct seccomp_data d = { .nr = nr, .arch = arch, .args = { a0, a1, a2, a3 } };
    uint32_t words[sizeof d / 4];
    memcpy(words, &d, sizeof d);
    uint32_t A = 0, X = 0, mem[BPF_MEMWORDS] = { 0 };
    answer out = { 0, 0 };
    for (unsigned pc = 0; pc < prog.len; pc++) {
        const struct sock_filter *f = &prog.filter[pc];
        out.steps++;
        switch (f->code) {
        case BPF_LD | BPF_W | BPF_ABS:
            assert_true(f->k % 4 == 0 && f->k / 4 < sizeof words / 4);
            A = words[f->k / 4];
            break;
        case BPF_LD | BPF_MEM:
            A = mem[f->k % BPF_MEMWORDS];
            break;
        case BPF_LDX | BPF_MEM:
            X = mem[f->k % BPF_MEMWORDS];
            break;
        case BPF_ST:
            mem[f->k % BPF_MEMWORDS] = A;
            break;
        case BPF_STX:
            mem[f->k % BPF_MEMWORDS] = X;
            break;
        case BPF_ALU | BPF_AND | BPF_K:
            A &= f->k;
            break;
        case BPF_JMP | BPF_JA:
            pc += f->k;
            break;
        case BPF_JMP | BPF_JEQ | BPF_K:
            pc += A == f->k ? f->jt : f->jf;
            break;
        case BPF_JMP | BPF_JGT | BPF_K:
            pc += A > f->k ? f->jt : f->jf;
            break;
        case BPF_JMP | BPF_JGE | BPF_K:
            pc += A >= f->k ? f->jt : f->jf;
            break;
        case BPF_JMP | BPF_JSET | BPF_K:
            pc += (A & f->k) ? f->jt : f->jf;
            break;
        case BPF_RET | BPF_K:
            out.ret = f->k;
            return out;
        default:
            fail_msg("opcode 0x%x at %u", f->code, pc);
        }
    }
    fail_msg("the program ran off its end");
    return out;
}

static answer call(int nr, uint64_t a0, uint64_t a1)
{
    return run(AUDIT_ARCH_X86_64, nr, a0, a1, 0, 0);
}

#define ALLOW SECCOMP_RET_ALLOW
#define DENY(e) (SECCOMP_RET_ERRNO | (e))

static int setup(void **state)
{
    (void)state;
    char err[SBX_ERR_LEN];
    if (pol_build(&prog, err, sizeof err) < 0) {
        print_error("%s\n", err);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(prog.filter);
    return 0;
}

/* What the kernel is told for calls decided on an argument, for denied
 * calls, and for a foreign ABI. */
static void answers(void **state)
{
    (void)state;
    assert_int_equal(call(SYS_getpid, 0, 0).ret, ALLOW);
    assert_int_equal(call(SYS_ptrace, 0, 0).ret, DENY(EPERM));
    assert_int_equal(call(SYS_bpf, 0, 0).ret, DENY(EPERM));
    assert_int_equal(call(SYS_sync, 0, 0).ret, DENY(0));
    assert_int_equal(call(SYS_inotify_init1, 0, 0).ret, DENY(ENOSYS));
    assert_int_equal(call(SYS_fcntl, 0, F_GETFD).ret, ALLOW);
    assert_int_equal(call(SYS_fcntl, 0, F_SETLEASE).ret, DENY(EPERM));
    assert_int_equal(call(SYS_fcntl, 0, F_SETLK).ret, DENY(0));
    assert_int_equal(call(SYS_fcntl, 0, 0xffffffff00000000ull | F_SETLK).ret, DENY(0));
    assert_int_equal(call(SYS_socket, AF_INET6, 0).ret, ALLOW);
    assert_int_equal(call(SYS_socket, AF_NETLINK, 0).ret, ALLOW);
    assert_int_equal(call(SYS_socket, 40 /* AF_VSOCK */, 0).ret, DENY(EAFNOSUPPORT));
    assert_int_equal(call(SYS_socket, 1ull << 40 | AF_INET, 0).ret, DENY(EAFNOSUPPORT));
    assert_int_equal(call(SYS_socketpair, AF_UNIX, 0).ret, ALLOW);
    assert_int_equal(call(SYS_socketpair, AF_INET, 0).ret, DENY(EAFNOSUPPORT));
    assert_int_equal(call(SYS_clone, 17, 0).ret, ALLOW);
    assert_int_equal(call(SYS_clone, CLONE_NEWUSER | 17, 0).ret, DENY(EPERM));
    assert_int_equal(call(SYS_personality, 0, 0).ret, ALLOW);
    assert_int_equal(call(SYS_personality, 0xffffffff, 0).ret, ALLOW);
    assert_int_equal(call(SYS_personality, 0x0040000, 0).ret, DENY(EPERM));
    assert_int_equal(run(AUDIT_ARCH_I386, 20, 0, 0, 0, 0).ret, SECCOMP_RET_KILL_PROCESS);
    assert_int_equal(call(SYS_fadvise64, 0, 0).ret, ALLOW);
    assert_int_equal(run(AUDIT_ARCH_X86_64, SYS_fadvise64, 0, 0, 0, 4 /* DONTNEED */).ret, DENY(0));
}

/* The calls a program makes often and the kernel cannot skip the program
 * for (it decides them on an argument) are answered in a few dozen
 * instructions: as a list of the policy's calls they took 80 to 100
 * (fcntl, far down the list, on every lock and fd flag change). The
 * denied calls are as quick; personality's 32 rules on its one argument
 * stay a chain (a call a program makes once, if at all). */
static void answers_are_short(void **state)
{
    (void)state;
    static const int often[] = { SYS_fcntl, SYS_socket, SYS_socketpair, SYS_clone, SYS_fadvise64,
                                 SYS_ptrace, SYS_flock, SYS_io_uring_setup, SYS_mbind, SYS_sync };
    for (size_t i = 0; i < sizeof often / sizeof often[0]; i++)
        for (uint64_t a = 0; a < 20; a++) {
            answer an = call(often[i], a, a);
            if (an.steps > 40)
                fail_msg("call %d (%llu) took %u instructions of the filter", often[i], (unsigned long long)a,
                         an.steps);
        }
    assert_true(call(SYS_personality, 8, 0).steps <= 120);
}

int main(void)
{
#if defined(__x86_64__)
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(answers),
        cmocka_unit_test(answers_are_short),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
#else
    return 0;
#endif
}
