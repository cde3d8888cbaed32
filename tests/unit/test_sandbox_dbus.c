/* test_sandbox_dbus.c -- the D-Bus messages of the scope request
 * (sandbox/dbus_msg.c): the call is read back field by field by a decoder
 * of its own here (the real systemd reads it in the guest's tests), it
 * names the sender (PIDs [0]) and never a pid of ours, and the reply reader
 * takes what systemd sends (returns, errors in either byte order, signals
 * between) and refuses every cut or lying message without reading past it
 * (ASan in the sanitized build). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/internal.h"

/* ---- an independent reader of the call ------------------------------ */

typedef struct rd {
    const uint8_t *b;
    size_t len, pos;
} rd;

static void align(rd *r, size_t a)
{
    r->pos = (r->pos + a - 1) / a * a;
    assert_true(r->pos <= r->len);
}

static uint32_t u32(rd *r)
{
    align(r, 4);
    assert_true(r->pos + 4 <= r->len);
    const uint8_t *p = r->b + r->pos;
    r->pos += 4;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static const char *str(rd *r)
{
    uint32_t n = u32(r);
    assert_true(r->pos + n + 1 <= r->len);
    const char *s = (const char *)r->b + r->pos;
    assert_int_equal(s[n], 0);
    assert_int_equal(strlen(s), n);
    r->pos += n + 1;
    return s;
}

static const char *sig(rd *r)
{
    assert_true(r->pos < r->len);
    uint8_t n = r->b[r->pos++];
    assert_true(r->pos + n + 1 <= r->len);
    const char *s = (const char *)r->b + r->pos;
    assert_int_equal(s[n], 0);
    r->pos += n + 1;
    return s;
}

static void start_scope_reads_back(void **state)
{
    (void)state;
    uint8_t m[1024];
    long n = dbm_start_scope(m, sizeof m, 7, "gradeq-pidns4026532456-1.scope", "gradeq sandbox");
    assert_true(n > 0);
    rd r = { m, (size_t)n, 0 };
    assert_int_equal(m[0], 'l');
    assert_int_equal(m[1], DBM_METHOD_CALL);
    assert_int_equal(m[3], 1);
    r.pos = 4;
    uint32_t body_len = u32(&r);
    assert_int_equal(u32(&r), 7);
    uint32_t fields_len = u32(&r);
    align(&r, 8);
    size_t fields_end = r.pos + fields_len;
    const char *path = NULL, *iface = NULL, *member = NULL, *dest = NULL, *body_sig = NULL;
    while (r.pos < fields_end) {
        align(&r, 8);
        uint8_t code = r.b[r.pos++];
        const char *t = sig(&r);
        const char *v = t[0] == 'g' ? sig(&r) : str(&r);
        switch (code) {
        case 1: assert_string_equal(t, "o"); path = v; break;
        case 2: assert_string_equal(t, "s"); iface = v; break;
        case 3: assert_string_equal(t, "s"); member = v; break;
        case 6: assert_string_equal(t, "s"); dest = v; break;
        case 8: assert_string_equal(t, "g"); body_sig = v; break;
        default: fail_msg("unexpected header field %u", code);
        }
    }
    assert_int_equal(r.pos, fields_end);
    assert_string_equal(path, "/org/freedesktop/systemd1");
    assert_string_equal(iface, "org.freedesktop.systemd1.Manager");
    assert_string_equal(member, "StartTransientUnit");
    assert_string_equal(dest, "org.freedesktop.systemd1");
    assert_string_equal(body_sig, "ssa(sv)a(sa(sv))");
    align(&r, 8);
    assert_int_equal((size_t)n - r.pos, body_len);
    assert_string_equal(str(&r), "gradeq-pidns4026532456-1.scope");
    assert_string_equal(str(&r), "fail");
    uint32_t props_len = u32(&r);
    align(&r, 8);
    size_t props_end = r.pos + props_len;
    int seen = 0;
    while (r.pos < props_end) {
        align(&r, 8);
        const char *name = str(&r), *t = sig(&r);
        if (strcmp(name, "PIDs") == 0) {
            /* The sender, never a number of ours. */
            assert_string_equal(t, "au");
            assert_int_equal(u32(&r), 4);
            assert_int_equal(u32(&r), 0);
            seen |= 1;
        } else if (strcmp(name, "Delegate") == 0) {
            assert_string_equal(t, "b");
            assert_int_equal(u32(&r), 1);
            seen |= 2;
        } else if (strcmp(name, "CollectMode") == 0) {
            assert_string_equal(t, "s");
            assert_string_equal(str(&r), "inactive-or-failed");
            seen |= 4;
        } else if (strcmp(name, "Description") == 0) {
            assert_string_equal(t, "s");
            assert_string_equal(str(&r), "gradeq sandbox");
            seen |= 8;
        } else {
            fail_msg("unexpected property %s", name);
        }
    }
    assert_int_equal(r.pos, props_end);
    assert_int_equal(seen, 15);
    assert_int_equal(u32(&r), 0); /* no auxiliary units */
    align(&r, 8);
    assert_int_equal(r.pos, (size_t)n);
    /* Our own reader takes it too, and it fits the size its header gives. */
    assert_int_equal(dbm_message_size(m), n);
    dbm_reply rep;
    assert_int_equal(dbm_parse(m, (size_t)n, &rep), 0);
    assert_int_equal(rep.type, DBM_METHOD_CALL);
    assert_int_equal(rep.reply_serial, 0);
}

static void call_too_big_refused(void **state)
{
    (void)state;
    uint8_t m[1024];
    char unit[2000];
    memset(unit, 'a', sizeof unit - 1);
    unit[sizeof unit - 1] = 0;
    assert_int_equal(dbm_start_scope(m, sizeof m, 1, unit, "x"), -1);
    for (size_t size = 0; size < 300; size++)
        assert_int_equal(dbm_start_scope(m, size, 1, "gradeq-1.scope", "gradeq sandbox"), -1);
}

/* ---- replies, built here as systemd sends them ---------------------- */

typedef struct wr {
    uint8_t b[512];
    size_t len;
    bool be;
} wr;

static void w_pad(wr *w, size_t a)
{
    while (w->len % a)
        w->b[w->len++] = 0;
}

static void w_u32(wr *w, uint32_t v)
{
    w_pad(w, 4);
    for (int i = 0; i < 4; i++)
        w->b[w->len++] = (uint8_t)(w->be ? v >> (24 - 8 * i) : v >> (8 * i));
}

static void w_str(wr *w, const char *s)
{
    w_u32(w, (uint32_t)strlen(s));
    memcpy(w->b + w->len, s, strlen(s) + 1);
    w->len += strlen(s) + 1;
}

static void w_sig(wr *w, const char *s)
{
    w->b[w->len++] = (uint8_t)strlen(s);
    memcpy(w->b + w->len, s, strlen(s) + 1);
    w->len += strlen(s) + 1;
}

static void w_at(wr *w, size_t at, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        w->b[at + (size_t)i] = (uint8_t)(w->be ? v >> (24 - 8 * i) : v >> (8 * i));
}

/* type, reply serial (0: none), error name, signature and one string
 * argument (body_str NULL: no body). */
static size_t reply(wr *w, bool be, int type, uint32_t serial, const char *error, const char *body_str)
{
    memset(w, 0, sizeof *w);
    w->be = be;
    w->b[0] = be ? 'B' : 'l';
    w->b[1] = (uint8_t)type;
    w->b[3] = 1;
    w->len = 4;
    w_u32(w, 0);
    w_u32(w, 99);
    w_u32(w, 0);
    size_t start = w->len;
    w_pad(w, 8);
    w->b[w->len++] = 7; /* SENDER: a header field we do not use */
    w_sig(w, "s");
    w_str(w, ":1.0");
    if (serial) {
        w_pad(w, 8);
        w->b[w->len++] = 5;
        w_sig(w, "u");
        w_u32(w, serial);
    }
    if (error) {
        w_pad(w, 8);
        w->b[w->len++] = 4;
        w_sig(w, "s");
        w_str(w, error);
    }
    if (body_str) {
        w_pad(w, 8);
        w->b[w->len++] = 8;
        w_sig(w, "g");
        w_sig(w, type == DBM_METHOD_RETURN ? "o" : "s");
    }
    w_at(w, 12, (uint32_t)(w->len - start));
    w_pad(w, 8);
    size_t body = w->len;
    if (body_str)
        w_str(w, body_str);
    w_at(w, 4, (uint32_t)(w->len - body));
    return w->len;
}

static void replies_read(void **state)
{
    (void)state;
    for (int be = 0; be < 2; be++) {
        wr w;
        dbm_reply r;
        size_t n = reply(&w, be, DBM_ERROR, 1, "org.freedesktop.systemd1.UnitExists",
                         "Unit gradeq-1.scope already exists.");
        assert_int_equal(dbm_message_size(w.b), (long)n);
        assert_int_equal(dbm_parse(w.b, n, &r), 0);
        assert_int_equal(r.type, DBM_ERROR);
        assert_int_equal(r.reply_serial, 1);
        assert_string_equal(r.error, "org.freedesktop.systemd1.UnitExists");
        assert_string_equal(r.message, "Unit gradeq-1.scope already exists.");

        n = reply(&w, be, DBM_METHOD_RETURN, 1, NULL, "/org/freedesktop/systemd1/job/42");
        assert_int_equal(dbm_parse(w.b, n, &r), 0);
        assert_int_equal(r.type, DBM_METHOD_RETURN);
        assert_int_equal(r.reply_serial, 1);
        assert_string_equal(r.error, "");

        n = reply(&w, be, 4, 0, NULL, NULL); /* a signal: no reply serial */
        assert_int_equal(dbm_parse(w.b, n, &r), 0);
        assert_int_equal(r.type, 4);
        assert_int_equal(r.reply_serial, 0);
    }
}

/* Every cut of a good reply, and lies in its lengths, are refused; none
 * reads outside the bytes given (a fresh allocation of exactly that size,
 * so ASan sees any overread). */
static void broken_replies_refused(void **state)
{
    (void)state;
    wr w;
    dbm_reply r;
    size_t n = reply(&w, false, DBM_ERROR, 1, "org.example.Error", "why");
    for (size_t cut = 0; cut < n; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1);
        assert_non_null(copy);
        memcpy(copy, w.b, cut);
        assert_int_equal(dbm_parse(copy, cut, &r), -1);
        free(copy);
    }
    /* Each byte of the header-field and body lengths set high. */
    for (size_t at = 4; at < 16; at++) {
        if (at >= 8 && at < 12)
            continue; /* the serial: any value is good */
        reply(&w, false, DBM_ERROR, 1, "org.example.Error", "why");
        w.b[at] = 0xff;
        uint8_t *copy = malloc(n);
        assert_non_null(copy);
        memcpy(copy, w.b, n);
        assert_int_equal(dbm_parse(copy, n, &r), -1);
        free(copy);
    }
    /* Not a D-Bus header, or a size past the specification's bound. */
    reply(&w, false, DBM_ERROR, 1, "e.E", "x");
    w.b[0] = 'x';
    assert_int_equal(dbm_message_size(w.b), -1);
    reply(&w, false, DBM_ERROR, 1, "e.E", "x");
    w.b[3] = 2;
    assert_int_equal(dbm_message_size(w.b), -1);
    reply(&w, false, DBM_ERROR, 1, "e.E", "x");
    w_at(&w, 4, 0xffffffffu);
    assert_int_equal(dbm_message_size(w.b), -1);
    /* A header field of a type no header field has. */
    n = reply(&w, false, DBM_ERROR, 1, NULL, NULL);
    assert_int_equal(w.b[16], 7);
    assert_int_equal(w.b[18], 's');
    w.b[18] = 'x';
    assert_int_equal(dbm_parse(w.b, n, &r), -1);
    /* A string with a NUL inside. */
    n = reply(&w, false, DBM_ERROR, 1, "org.example.Error", "why");
    w.b[n - 2] = 0;
    assert_int_equal(dbm_parse(w.b, n, &r), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(start_scope_reads_back),
        cmocka_unit_test(call_too_big_refused),
        cmocka_unit_test(replies_read),
        cmocka_unit_test(broken_replies_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
