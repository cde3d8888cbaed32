/* dmoj.c -- a DMOJ problem read into a problem (placeholder until the reader lands). */
#include <stdio.h>

#include "worker/problem/problem.h"

int wk_dmoj_read(wk_problem *p, char *err, size_t errlen)
{
    return snprintf(err, errlen, "%s: DMOJ problems are not read yet", wk_mat_name(p->m)), -1;
}
