/* groups.h -- the subtasks of a package, as written (names, dependencies
 * by name, in any order), checked and put in the order a grading job
 * takes them (groups.c): every dependency before the group that has it.
 *
 * Refused, naming the group: an empty or duplicate name, a dependency on
 * an unknown group or on itself, a cycle (one group of it named), and
 * given twice. Linear in the groups and dependencies: names are found
 * through a hash table, the order is Kahn's (a queue, each edge once).
 */
#ifndef GRADEQ_WORKER_GROUPS_H
#define GRADEQ_WORKER_GROUPS_H

#include <stddef.h>

#include "queue/grade.h"

typedef struct wk_gdef {
    char *name;            /* owned */
    char **deps;           /* owned names */
    size_t ndeps, capdeps;
    size_t *tests;         /* owned test indices */
    size_t ntests, captests;
    bool has_points;
    q_points points;
    q_scoring scoring;
    bool stop_on_failure;
} wk_gdef;

/* Appends a dependency name or a test to d. -1: out of memory. */
int wk_gdef_dep(wk_gdef *d, const char *name);
int wk_gdef_test(wk_gdef *d, size_t test);
void wk_gdefs_free(wk_gdef *d, size_t n);

/* Orders defs[0..n) into *out (n groups; names, tests and depends_on moved
 * out of defs, which keeps only what it owned besides). what names the
 * material in messages. Returns 0, or -1 with err. */
int wk_groups_order(wk_gdef *defs, size_t n, const char *what, q_group **out, char *err, size_t errlen);
/* Frees groups made by wk_groups_order. */
void wk_groups_free(q_group *g, size_t n);

#endif
