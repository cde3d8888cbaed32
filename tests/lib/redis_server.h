/* redis_server.h -- a private redis-server for one test.
 *
 * rs_start creates a fresh directory under $TMPDIR (default /tmp) and runs
 * redis-server in it with no TCP port, a unix socket dir/redis.sock, no RDB
 * snapshots and, unless asked, no AOF. It returns once the server answers
 * PING (found by polling the socket, never by a fixed sleep). rs_stop ends
 * the server but keeps the directory, so rs_restart brings it back on the
 * same socket (with its data when AOF is on). rs_destroy stops it and
 * removes the directory.
 *
 * The server dies with the test process (PR_SET_PDEATHSIG). Functions that
 * fail return -1 with one line in `err`.
 */
#ifndef GRADEQ_TESTS_REDIS_SERVER_H
#define GRADEQ_TESTS_REDIS_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct rs_opts {
    bool aof;                /* appendonly yes, appendfsync always */
    const char *requirepass; /* NULL: no password */
} rs_opts;

typedef struct rs_server {
    char dir[256];           /* private directory */
    char sock[300];          /* dir/redis.sock */
    char url[320];           /* "unix://" + sock */
    pid_t pid;               /* 0 while stopped */
    bool aof;
    char pass[128];
} rs_server;

/* `o` may be NULL for the defaults. */
int rs_start(rs_server *s, const rs_opts *o, char *err, size_t errlen);
int rs_stop(rs_server *s, char *err, size_t errlen);
int rs_restart(rs_server *s, char *err, size_t errlen);
/* Stops the server if needed and removes its directory. */
void rs_destroy(rs_server *s);

#endif
