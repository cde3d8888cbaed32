/* bench_material.c -- reading problem material, beside a baseline
 * measured in the same run: each parser (XML, YAML, a zip of a tests
 * folder, inflated) on inputs of 1, 2, 4 and 8 MiB, its time per MiB
 * beside the UTF-8 check every parser starts with (the least any reader
 * of text does with the bytes). Time linear in the input shows as a flat
 * ns/MiB column; the ratio to the baseline is what the parse costs.
 * Rounds alternate parser and baseline; medians are shown. Usage:
 * bench_material [ROUNDS] (default 5).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/lib/zip_writer.h"
#include "worker/common/text.h"
#include "worker/problem/xml.h"
#include "worker/problem/yaml.h"
#include "worker/problem/zip.h"

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int count_xml(void *ctx, const wk_xml_ev *ev, char *err, size_t errlen)
{
    (void)ev, (void)err, (void)errlen;
    ++*(size_t *)ctx;
    return 0;
}

static int count_yaml(void *ctx, const wk_yaml_ev *ev, char *err, size_t errlen)
{
    (void)ev, (void)err, (void)errlen;
    ++*(size_t *)ctx;
    return 0;
}

/* A problem.xml of n bytes: <test/> elements with attributes. */
static char *make_xml(size_t n, size_t *len)
{
    char *b = malloc(n + 256);
    size_t o = (size_t)sprintf(b, "<problem><tests>");
    for (size_t i = 0; o + 80 < n; i++)
        o += (size_t)sprintf(b + o, "<test method=\"manual\" points=\"%zu.5\" group=\"g%zu\"/>\n", i % 97, i % 13);
    o += (size_t)sprintf(b + o, "</tests></problem>");
    *len = o;
    return b;
}

/* An init.yml of n bytes: flow-mapping cases. */
static char *make_yaml(size_t n, size_t *len)
{
    char *b = malloc(n + 256);
    size_t o = (size_t)sprintf(b, "test_cases:\n");
    for (size_t i = 0; o + 80 < n; i++)
        o += (size_t)sprintf(b + o, "- {in: case%zu.in, out: case%zu.out, points: %zu}\n", i, i, i % 50);
    *len = o;
    return b;
}

/* A zip of text test files totalling about n bytes, deflated. */
static unsigned char *make_zip(size_t n, size_t *len, char **keep)
{
    size_t files = 64, each = n / files;
    tl_zip_member *m = calloc(files, sizeof *m);
    char (*names)[16] = calloc(files, 16);
    *keep = malloc(each);
    for (size_t i = 0; i < each; i++)
        (*keep)[i] = (char)('0' + (i * 7919 % 13 == 0 ? ' ' - '0' : (int)(i * 31 % 10)));
    for (size_t i = 0; i < files; i++) {
        snprintf(names[i], 16, "tests/%02zu", i);
        m[i] = (tl_zip_member){ names[i], *keep, each, true };
    }
    unsigned char *z = tl_zip_build(m, files, len);
    free(m);
    free(names);
    return z;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    if (rounds < 1 || rounds > 100)
        rounds = 5;
    char err[512];
    printf("%-6s %8s %14s %14s %8s\n", "reader", "MiB", "ns/MiB parse", "ns/MiB utf8", "ratio");
    for (int kind = 0; kind < 3; kind++) {
        for (size_t mib = 1; mib <= (kind == 1 ? 4u : 8u); mib *= 2) {
            size_t len;
            char *keep = NULL;
            void *doc = kind == 0 ? (void *)make_xml(mib << 20, &len) : kind == 1 ? (void *)make_yaml(mib << 20, &len)
                                                                                 : (void *)make_zip(mib << 20, &len, &keep);
            double tp[100], tb[100];
            size_t in_bytes = len;
            for (int r = 0; r < rounds; r++) {
                double t0 = now_us();
                size_t events = 0;
                int rc;
                if (kind == 0)
                    rc = wk_xml_parse(doc, len, count_xml, &events, err, sizeof err);
                else if (kind == 1)
                    rc = wk_yaml_parse(doc, len, count_yaml, &events, err, sizeof err);
                else {
                    wk_zip z;
                    rc = wk_zip_read(doc, len, "bench.zip", 1ull << 30, &z, err, sizeof err);
                    if (rc == 0) {
                        in_bytes = 0;
                        for (size_t i = 0; i < z.n; i++)
                            in_bytes += z.files[i].len;
                        wk_zip_free(&z);
                    }
                }
                double t1 = now_us();
                if (rc != 0) {
                    fprintf(stderr, "bench_material: %s\n", err);
                    return 1;
                }
                size_t bad = wk_utf8_bad(doc, kind == 2 ? 0 : len); /* the zip: its members below */
                if (kind == 2) {
                    wk_zip z;
                    wk_zip_read(doc, len, "bench.zip", 1ull << 30, &z, err, sizeof err);
                    double t2 = now_us();
                    for (size_t i = 0; i < z.n; i++)
                        bad += wk_utf8_bad(z.files[i].data, z.files[i].len);
                    tb[r] = now_us() - t2;
                    wk_zip_free(&z);
                } else {
                    double t2 = now_us();
                    bad += wk_utf8_bad(doc, len);
                    tb[r] = now_us() - t2;
                }
                if (bad == (size_t)-1)
                    return 1;
                tp[r] = t1 - t0;
            }
            double mb = (double)in_bytes / (1 << 20), p = median(tp, rounds), b = median(tb, rounds);
            printf("%-6s %8.2f %14.0f %14.0f %7.1fx\n", kind == 0 ? "xml" : kind == 1 ? "yaml" : "zip", mb,
                   p * 1e3 / mb, b * 1e3 / mb, p / b);
            free(doc);
            free(keep);
        }
    }
    printf("(zip: per MiB inflated; its baseline is the UTF-8 check of the members once inflated)\n");
    return 0;
}
