/* kattis.c -- a Kattis/ICPC problem package read into a problem (placeholder until the reader lands). */
#include <stdio.h>

#include "worker/problem/problem.h"

int wk_kattis_read(wk_problem *p, char *err, size_t errlen)
{
    return snprintf(err, errlen, "%s: Kattis packages are not read yet", wk_mat_name(p->m)), -1;
}
