/* compile_cache.c -- an LRU of compile steps' artifacts (compile_cache.h).
 *
 * The key is a flat serialisation of what the compile step sees (lengths
 * before bytes, every list ended by an empty record, so two different
 * inputs never serialise alike). Its size is
 * computed before it is built, and a key larger than the whole cache is
 * never built. Lookups scan the entries comparing the 64-bit hash first and
 * the key bytes second; the cache holds at most WK_CC_ENTRIES_MAX entries
 * (small ones could otherwise number millions within the byte bound), so a
 * scan stays cheap next to one compile.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "worker/engine/compile_cache.h"

typedef struct entry {
    struct entry *prev, *next; /* most recently used first */
    uint64_t hash;
    char *key;
    size_t keylen;
    sbx_file *files;
    size_t nfiles;
    q_graded rec;
    uint64_t bytes;            /* all it holds: key, files, names, outputs */
} entry;

struct wk_compile_cache {
    pthread_mutex_t mu;
    entry *head, *tail;
    uint64_t bytes, max_bytes, hits, misses;
    size_t n;
};

wk_compile_cache *wk_cc_new(uint64_t max_bytes)
{
    wk_compile_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    pthread_mutex_init(&c->mu, NULL);
    c->max_bytes = max_bytes;
    return c;
}

static void entry_free(entry *e)
{
    for (size_t i = 0; i < e->nfiles; i++) {
        free((char *)e->files[i].name);
        free((void *)e->files[i].data);
    }
    free(e->files);
    free(e->key);
    free((void *)e->rec.stdout_buf);
    free((void *)e->rec.stderr_buf);
    free(e);
}

void wk_cc_free(wk_compile_cache *c)
{
    if (!c)
        return;
    for (entry *e = c->head, *n; e; e = n) {
        n = e->next;
        entry_free(e);
    }
    pthread_mutex_destroy(&c->mu);
    free(c);
}

/* Appends a length and its bytes to the key being built (or only counts). */
static void put(char *k, size_t *at, const void *p, size_t n)
{
    if (k) {
        memcpy(k + *at, &n, sizeof n);
        if (n)
            memcpy(k + *at + sizeof n, p, n);
    }
    *at += sizeof n + n;
}

static size_t serialise(const sbx_spec *s, char *k)
{
    size_t at = 0;
    for (size_t i = 0; s->argv[i]; i++)
        put(k, &at, s->argv[i], strlen(s->argv[i]) + 1);
    put(k, &at, "", 0);
    /* No env (the sandbox's default) differs from an empty one. */
    put(k, &at, s->env ? "E" : "D", 1);
    for (size_t i = 0; s->env && s->env[i]; i++)
        put(k, &at, s->env[i], strlen(s->env[i]) + 1);
    put(k, &at, "", 0);
    put(k, &at, &s->limits, sizeof s->limits);
    for (size_t i = 0; i < s->nfiles; i++) {
        char x = s->files[i].executable;
        put(k, &at, s->files[i].name, strlen(s->files[i].name) + 1);
        put(k, &at, &x, 1);
        put(k, &at, s->files[i].data, s->files[i].len);
    }
    return at;
}

static uint64_t fnv1a(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
    return h;
}

/* The key of s, or NULL when it could never fit (or out of memory). */
static char *make_key(const wk_compile_cache *c, const sbx_spec *s, size_t *len, uint64_t *hash)
{
    *len = serialise(s, NULL);
    if (*len > c->max_bytes)
        return NULL;
    char *k = malloc(*len);
    if (!k)
        return NULL;
    serialise(s, k);
    *hash = fnv1a(k, *len);
    return k;
}

static void unlink_entry(wk_compile_cache *c, entry *e)
{
    if (e->prev)
        e->prev->next = e->next;
    else
        c->head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        c->tail = e->prev;
    e->prev = e->next = NULL;
}

static void push_front(wk_compile_cache *c, entry *e)
{
    e->next = c->head;
    if (c->head)
        c->head->prev = e;
    c->head = e;
    if (!c->tail)
        c->tail = e;
}

static void *dup_mem(const void *p, size_t n)
{
    void *d = malloc(n + 1);
    if (d && n)
        memcpy(d, p, n);
    return d;
}

/* Deep copies of files[0..n) and rec; false when out of memory (nothing
 * left allocated). */
static bool copy_out(const sbx_file *from, size_t n, const q_graded *rec, sbx_file **files, q_graded *out)
{
    sbx_file *f = calloc(n + 1, sizeof *f);
    bool ok = f != NULL;
    size_t i = 0;
    while (ok && i < n) {
        f[i] = (sbx_file){ strdup(from[i].name), dup_mem(from[i].data, from[i].len), from[i].len,
                           from[i].executable, from[i].content_id }; /* same bytes: same number */
        ok = f[i].name && f[i].data;
        i++; /* f[0..i) to free on failure, the partial one included */
    }
    *out = *rec;
    out->stdout_buf = ok ? dup_mem(rec->stdout_buf, rec->stdout_len) : NULL;
    out->stderr_buf = ok ? dup_mem(rec->stderr_buf, rec->stderr_len) : NULL;
    ok = ok && out->stdout_buf && out->stderr_buf;
    if (!ok) {
        for (size_t k = 0; f && k < i; k++) {
            free((char *)f[k].name);
            free((void *)f[k].data);
        }
        free(f);
        free((void *)out->stdout_buf);
        free((void *)out->stderr_buf);
        return false;
    }
    *files = f;
    return true;
}

bool wk_cc_get(wk_compile_cache *c, const sbx_spec *compile, sbx_collect *files, q_graded *rec)
{
    if (!c || !c->max_bytes)
        return false;
    size_t len;
    uint64_t hash = 0;
    char *key = make_key(c, compile, &len, &hash);
    if (!key)
        return false;
    bool hit = false;
    pthread_mutex_lock(&c->mu);
    for (entry *e = c->head; e; e = e->next) {
        if (e->hash != hash || e->keylen != len || memcmp(e->key, key, len) != 0)
            continue;
        unlink_entry(c, e);
        push_front(c, e);
        sbx_file *f;
        hit = copy_out(e->files, e->nfiles, &e->rec, &f, rec);
        if (hit) {
            files->files = f;
            files->nfiles = e->nfiles;
            files->bytes = 0;
            for (size_t i = 0; i < e->nfiles; i++)
                files->bytes += f[i].len;
            files->refused[0] = 0;
        }
        break;
    }
    c->hits += hit;
    c->misses += !hit;
    pthread_mutex_unlock(&c->mu);
    free(key);
    return hit;
}

void wk_cc_put(wk_compile_cache *c, const sbx_spec *compile, const sbx_collect *files, const q_graded *rec)
{
    if (!c || !c->max_bytes)
        return;
    entry *e = calloc(1, sizeof *e);
    if (!e)
        return;
    e->key = make_key(c, compile, &e->keylen, &e->hash);
    /* What the entry holds, names and per-file records included: 4096
     * empty files of long names are megabytes, not zero. */
    e->bytes = sizeof *e + e->keylen + rec->stdout_len + rec->stderr_len + 2;
    for (size_t i = 0; i < files->nfiles; i++)
        e->bytes += sizeof *files->files + strlen(files->files[i].name) + 1 + files->files[i].len + 1;
    if (!e->key || e->bytes > c->max_bytes || !copy_out(files->files, files->nfiles, rec, &e->files, &e->rec)) {
        free(e->key);
        free(e);
        return;
    }
    e->nfiles = files->nfiles;
    pthread_mutex_lock(&c->mu);
    while (c->tail && (c->bytes + e->bytes > c->max_bytes || c->n >= WK_CC_ENTRIES_MAX)) {
        entry *old = c->tail;
        unlink_entry(c, old);
        c->bytes -= old->bytes;
        c->n--;
        entry_free(old);
    }
    push_front(c, e);
    c->bytes += e->bytes;
    c->n++;
    pthread_mutex_unlock(&c->mu);
}

void wk_cc_stats(wk_compile_cache *c, uint64_t *hits, uint64_t *misses)
{
    pthread_mutex_lock(&c->mu);
    *hits = c->hits;
    *misses = c->misses;
    pthread_mutex_unlock(&c->mu);
}
