/* ipc_leave: IPC objects surviving the run. `ipc_leave make [MiB]` creates
 * a System V shared memory segment (key 0x67726471, MiB MiB (default 1),
 * every page written, "secret" at its start), a semaphore set (key
 * 0x67726472, value 7), a message queue (key 0x67726473, one message
 * "secret") and a POSIX queue /gradeq-left (one message "secret"), reads
 * each back, and prints `made shm sem msg mq`; exit 1 with the step on
 * stderr if one fails. `ipc_leave find` (a later job) prints one line per
 * kind: `shm=ENOENT` when it is gone, `shm=found` when it survived (same
 * for sem, msg, mq). Sandbox must report: OK; the later job sees ENOENT
 * four times, and the segment's memory is not charged to it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>

#define KEY_SHM 0x67726471
#define KEY_SEM 0x67726472
#define KEY_MSG 0x67726473
#define MQ_NAME "/gradeq-left"

struct msg {
    long type;
    char text[16];
};

static int fail(const char *what)
{
    fprintf(stderr, "%s: %s\n", what, strerrorname_np(errno));
    exit(1);
}

static void make(size_t mib)
{
    int shm = shmget(KEY_SHM, mib << 20, IPC_CREAT | IPC_EXCL | 0600);
    char *p = shm < 0 ? NULL : shmat(shm, NULL, 0);
    if (!p || p == (void *)-1)
        fail("shm");
    for (size_t i = 0; i < mib << 20; i += 4096)
        p[i] = 1;
    strcpy(p, "secret");
    shmdt(p);
    int sem = semget(KEY_SEM, 1, IPC_CREAT | IPC_EXCL | 0600);
    if (sem < 0 || semctl(sem, 0, SETVAL, 7) < 0 || semctl(sem, 0, GETVAL) != 7)
        fail("sem");
    int q = msgget(KEY_MSG, IPC_CREAT | IPC_EXCL | 0600);
    struct msg m = { 1, "secret" };
    if (q < 0 || msgsnd(q, &m, sizeof m.text, 0) < 0)
        fail("msg");
    struct mq_attr a = { .mq_maxmsg = 4, .mq_msgsize = 16 };
    mqd_t mq = mq_open(MQ_NAME, O_CREAT | O_EXCL | O_RDWR, 0600, &a);
    if (mq == (mqd_t)-1 || mq_send(mq, "secret", 7, 0) < 0 || mq_getattr(mq, &a) < 0 || a.mq_curmsgs != 1)
        fail("mq");
    puts("made shm sem msg mq");
}

static void show(const char *kind, int rc)
{
    if (rc >= 0)
        printf("%s=found\n", kind);
    else
        printf("%s=%s\n", kind, strerrorname_np(errno));
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "make") == 0) {
        make(argc > 2 ? (size_t)atol(argv[2]) : 1);
        return 0;
    }
    show("shm", shmget(KEY_SHM, 0, 0));
    show("sem", semget(KEY_SEM, 0, 0));
    show("msg", msgget(KEY_MSG, 0));
    show("mq", (int)mq_open(MQ_NAME, O_RDONLY));
    return 0;
}
