/* material.h -- problem material (a tests folder, a package, a job's
 * problem files, an archive's members), read only through here
 * (material.c).
 *
 * Material is untrusted: whoever wrote it is not the operator. On disk,
 * every file is opened beneath the material's root with no link followed
 * anywhere in its path (beneath.h), must be a regular file (a fifo, a
 * device, a socket is refused before it is opened for reading), and a
 * file with other hard links is refused unless the operator allows it (a
 * hard link is how an upload reaches a file it could not name). In memory
 * (a job's files, an archive's members) there are no links by
 * construction. The root itself is the operator's: its path may pass
 * through links.
 *
 * Paths named by the material itself (a pattern, a checker's source, an
 * `in:` line) go through wk_mat_path_check first: relative, printable
 * ASCII, no "." or ".." or empty component, at most Q_PATH_MAX bytes.
 *
 * Bounds: the bytes read from one material together (max_bytes, checked
 * on each file's size before it is allocated), the entries of a listed
 * directory (WK_MAT_DIR_MAX). Every buffer handed out belongs to the
 * material until wk_mat_close. Refusals are one line naming the path,
 * escaped (any byte but printable ASCII as \xNN), and the rule.
 * A wk_mat is used by one thread at a time.
 */
#ifndef GRADEQ_WORKER_MATERIAL_H
#define GRADEQ_WORKER_MATERIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "queue/job.h"

#define WK_MAT_BYTES_DEFAULT (1ull << 30) /* every file read from one material */
#define WK_MAT_DIR_MAX 65536              /* entries of one listed directory */
#define WK_MAT_QUOTE_MAX (4 * Q_PATH_MAX + 1)

typedef struct wk_mat wk_mat;

typedef struct wk_mat_opts {
    bool allow_hardlinks; /* read files with other hard links too */
    uint64_t max_bytes;   /* 0: WK_MAT_BYTES_DEFAULT */
} wk_mat_opts;

/* A folder on disk (opts may be NULL). */
int wk_mat_open_dir(const char *dir, const wk_mat_opts *opts, wk_mat **out, char *err, size_t errlen);
/* The folder `name` of the operator's folder dir (a held problem): name
 * is one component, and itself no link. */
int wk_mat_open_held(const char *dir, const char *name, const wk_mat_opts *opts, wk_mat **out, char *err,
                     size_t errlen);
/* Files in memory under checked names (a job's, an archive's), borrowed:
 * they outlive the material. `what` names it in messages ("problem",
 * "x.zip"). Names are checked with wk_mat_path_check; two files of one
 * name, or one that another uses as a directory, are refused. */
int wk_mat_open_mem(const q_file *files, size_t n, const char *what, const wk_mat_opts *opts, wk_mat **out,
                    char *err, size_t errlen);
void wk_mat_close(wk_mat *m);
/* The material's name for messages, escaped ("DIR" or `what`). */
const char *wk_mat_name(const wk_mat *m);

/* 0 when p is a path material may name; else -1 with why (the rule). */
int wk_mat_path_check(const char *p, char *why, size_t whylen);
/* p with any byte but printable ASCII (and '\\') as \xNN, cut to fit out
 * (which holds WK_MAT_QUOTE_MAX for any path). Returns out. */
const char *wk_mat_quote(char *out, size_t size, const char *p);

typedef enum { WK_MAT_NONE, WK_MAT_FILE, WK_MAT_DIR, WK_MAT_LINK, WK_MAT_OTHER } wk_mat_kind;
/* What rel is, opening nothing for reading and following no link. */
wk_mat_kind wk_mat_kind_of(wk_mat *m, const char *rel);

/* Reads file rel whole. Returns 0 (*data owned by m), 1 when there is no
 * such file, -1 refused (err: "NAME/rel: rule"). A file read twice is
 * read once. */
int wk_mat_read(wk_mat *m, const char *rel, const void **data, size_t *len, char *err, size_t errlen);

/* The entry names of directory rel ("" is the root) in byte order, owned
 * by m: raw bytes, the caller checks them. Returns 0, 1 when there is no
 * such directory, -1 refused (a link, too many entries). */
int wk_mat_list(wk_mat *m, const char *rel, const char *const **names, size_t *n, char *err, size_t errlen);

/* Every file read so far, in the order first read (names and data owned by
 * m): what a client ships of a problem is exactly what it read. */
const q_file *wk_mat_files_read(const wk_mat *m, size_t *n);

#endif
