/* test_material_parsers.c -- the readers of package text written by us:
 * XML (xml.c), YAML (yaml.c), numbers (numbers.c), test-path patterns
 * (pattern.c).
 *
 * Each is shown reading what real packages hold and refusing, with the
 * line and column, what an attacker writes instead: entity bombs and
 * external entities (no DTD is read), tags that construct objects,
 * aliases, nesting past the bound, NUL and broken UTF-8, numbers that
 * overflow or are not numbers, patterns that would reach printf. The
 * memory a parse holds is measured at each event (mallinfo2) against the
 * documented bound.
 */
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "worker/problem/numbers.h"
#include "worker/problem/pattern.h"
#include "worker/problem/xml.h"
#include "worker/problem/yaml.h"

/* --- XML ------------------------------------------------------------------ */

typedef struct trace {
    char out[8192];
    size_t o;
    size_t base, peak; /* heap in use before the parse, and its most during it */
} trace;

static void note(trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(trace *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->out + t->o, sizeof t->out - t->o, fmt, ap);
    va_end(ap);
    if (k > 0 && t->o + (size_t)k < sizeof t->out)
        t->o += (size_t)k;
}

static void heap(trace *t)
{
    struct mallinfo2 mi = mallinfo2();
    size_t used = mi.uordblks + mi.hblkhd; /* large blocks are mapped apart */
    if (used > t->peak)
        t->peak = used;
}

static int on_xml(void *ctx, const wk_xml_ev *ev, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    trace *t = ctx;
    heap(t);
    if (ev->type == WK_XML_START) {
        note(t, "<%s", ev->name);
        for (size_t i = 0; i < ev->nattrs; i++)
            note(t, " %s=[%s]", ev->attrs[i].name, ev->attrs[i].value);
        note(t, ">");
    } else {
        note(t, "%s</%s@%zu>", ev->text, ev->name, ev->line);
    }
    return 0;
}

static int xml(const char *doc, trace *t, char *err)
{
    memset(t, 0, sizeof *t);
    heap(t);
    t->base = t->peak;
    return wk_xml_parse(doc, strlen(doc), on_xml, t, err, 256);
}

static void xml_reads_packages(void **state)
{
    (void)state;
    trace t;
    char err[256];
    const char *doc = "\xef\xbb\xbf<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"no\"?>\n"
                      "<!-- a comment -->\n<problem revision=\"3\" short-name='a&amp;b'>\n"
                      "  <judging><testset name=\"tests\"><time-limit>2000</time-limit>\n"
                      "  <x a=\"1&lt;2 &#65;&#x42;\"/><t><![CDATA[<raw>&amp;]]></t></testset></judging>\n"
                      "</problem>\n";
    assert_int_equal(xml(doc, &t, err), 0);
    assert_string_equal(t.out, "<problem revision=[3] short-name=[a&b]><judging><testset name=[tests]>"
                               "<time-limit>2000</time-limit@4><x a=[1<2 AB]></x@5><t><raw>&amp;</t@5>"
                               "</testset@5></judging@5></problem@6>");
}

static void xml_refuses(const char *doc, const char *want)
{
    trace t;
    char err[256];
    assert_int_equal(xml(doc, &t, err), -1);
    if (!strstr(err, want))
        fail_msg("%s: got \"%s\", want \"%s\"", doc, err, want);
}

static void xml_refuses_attacks(void **state)
{
    (void)state;
    /* The billion laughs and external entities: no DTD at all. */
    xml_refuses("<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [<!ENTITY lol \"lol\">"
                "<!ENTITY lol2 \"&lol;&lol;&lol;\">]>\n<lolz>&lol2;</lolz>",
                "line 2, column 1: a declaration (<!DOCTYPE, <!ENTITY ...): no DTD is read");
    xml_refuses("<!DOCTYPE p SYSTEM \"file:///etc/shadow\"><p/>", "no DTD is read");
    xml_refuses("<p>&xxe;</p>", "line 1, column 4: the entity &xxe; is none of XML's five");
    xml_refuses("<p a=\"&ent;\"/>", "the entity &ent; is none");
    xml_refuses("<p>&#0;</p>", "not a character (or a NUL)");
    xml_refuses("<p>&#xd800;</p>", "not a character");
    xml_refuses("<p>&#99999999999;</p>", "not a character");
    xml_refuses("<p>\xff</p>", "line 1, column 4: a byte (0xff) not of well-formed UTF-8");
    xml_refuses("<p>\xc0\xaf</p>", "not of well-formed UTF-8"); /* an overlong '/' */
    xml_refuses("<?xml version=\"1.0\" encoding=\"UTF-16\"?><p/>", "only UTF-8 is read");
    /* Found by fuzzing: what the document says is shown escaped. */
    xml_refuses("<?xml version=\"1.0\" encoding=\"utf\r8\"?><p/>", "encoding \"utf\\x0d8\": only UTF-8");
    xml_refuses("<p\xc2\x9b></p\xc2\x9b>x", "text outside the root element");
    xml_refuses("<a\xc2\x9b>", "<a\\xc2\\x9b> not closed at the end");
    xml_refuses("<p a=\"1\" a=\"2\"/>", "attribute a given twice");
    xml_refuses("<p><q></p></q>", "</p> closes <q>");
    xml_refuses("<p>", "<p> not closed at the end");
    xml_refuses("<p/><q/>", "a second root element");
    xml_refuses("text<p/>", "text outside the root element");
    xml_refuses("", "no root element");
    xml_refuses("<p a=\"<\"/>", "a '<' in an attribute value");
    xml_refuses("<p><!-- open", "a comment not closed");
}

static void xml_nul_with_length(void **state)
{
    (void)state;
    trace t = { 0 };
    char err[256];
    static const char doc[] = "<p>\n a\0b</p>";
    assert_int_equal(wk_xml_parse(doc, sizeof doc - 1, on_xml, &t, err, sizeof err), -1);
    assert_string_equal(err, "line 2, column 3: a NUL byte");
}

static void xml_bounds(void **state)
{
    (void)state;
    char err[256];
    trace t;
    /* WK_XML_DEPTH elements deep is read; one more is not. */
    size_t n = WK_XML_DEPTH + 1;
    char *doc = malloc(8 * n + 1), *p = doc;
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "<a>");
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "</a>");
    assert_int_equal(xml(doc, &t, err), -1);
    assert_non_null(strstr(err, "nested deeper than 64"));
    assert_int_equal(xml(doc + 3, &t, err), -1); /* 64 opened, 65 closed */
    doc[strlen(doc) - 4] = 0;
    assert_int_equal(xml(doc + 3, &t, err), 0);
    free(doc);
    /* Attributes of one element. */
    doc = malloc(16 * (WK_XML_ATTRS + 2) + 8);
    p = doc + sprintf(doc, "<p");
    for (int i = 0; i <= WK_XML_ATTRS; i++)
        p += sprintf(p, " a%d='x'", i);
    sprintf(p, "/>");
    assert_int_equal(xml(doc, &t, err), -1);
    assert_non_null(strstr(err, "more than 64 attributes"));
    free(doc);
    /* The document's size, before anything is read. */
    assert_int_equal(wk_xml_parse("<p/>", WK_XML_MAX + 1ul, on_xml, &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "over 16777216 bytes"));
}

/* The heap a parse holds, measured at each event: 4 MiB of text in one
 * element and 4 MiB of attribute values stay within the documented bound
 * (the document's bytes again, plus 64 KiB). */
static void xml_memory_bound(void **state)
{
    (void)state;
    size_t big = 4u << 20;
    char *doc = malloc(big + 64), err[256];
    strcpy(doc, "<p>");
    memset(doc + 3, 'x', big);
    strcpy(doc + 3 + big, "<q/></p>");
    trace t = { 0 };
    heap(&t);
    t.base = t.peak;
    assert_int_equal(wk_xml_parse(doc, strlen(doc), on_xml, &t, err, sizeof err), 0);
    print_message("xml: %zu bytes in, %zu bytes of heap at most\n", strlen(doc), t.peak - t.base);
    assert_true(t.peak - t.base <= strlen(doc) + (64u << 10) + sizeof(t));
    free(doc);
}

/* --- YAML ------------------------------------------------------------------ */

static int on_yaml(void *ctx, const wk_yaml_ev *ev, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    trace *t = ctx;
    heap(t);
    if (ev->key && ev->type != WK_YAML_END)
        note(t, "%s=", ev->key);
    if (ev->type == WK_YAML_MAP)
        note(t, "{");
    else if (ev->type == WK_YAML_SEQ)
        note(t, "[");
    else if (ev->type == WK_YAML_END)
        note(t, "}");
    else if (ev->null)
        note(t, "~,");
    else
        note(t, "%s%s,", ev->quoted ? "'" : "", ev->value);
    return 0;
}

static int count_events(void *ctx, const wk_yaml_ev *ev, char *err, size_t errlen)
{
    (void)ev, (void)err, (void)errlen;
    ++*(size_t *)ctx;
    return 0;
}

static int yaml(const char *doc, trace *t, char *err)
{
    memset(t, 0, sizeof *t);
    heap(t);
    t->base = t->peak;
    return wk_yaml_parse(doc, strlen(doc), on_yaml, t, err, 256);
}

static void yaml_is(const char *doc, const char *want)
{
    trace t;
    char err[256] = "";
    int rc = yaml(doc, &t, err);
    if (rc != 0 || strcmp(t.out, want) != 0)
        fail_msg("%s\ngot  %s (%s)\nwant %s", doc, t.out, err, want);
}

static void yaml_reads_packages(void **state)
{
    (void)state;
    /* DMOJ's init.yml as problem setters write it. */
    yaml_is("archive: tests.zip\n"
            "test_cases:\n"
            "- {in: 1.in, out: 1.out, points: 5}\n"
            "- in: 2.in   # a comment\n"
            "  out: 2.out\n"
            "  points: 10\n"
            "- batched:\n"
            "  - {in: 3.in, out: 3.out}\n"
            "  - {in: 4.in, out: 4.out}\n"
            "  points: 20\n"
            "checker:\n"
            "  name: floats\n"
            "  args: {precision: 6}\n",
            "{archive=tests.zip,test_cases=[{in=1.in,out=1.out,points=5,}{in=2.in,out=2.out,points=10,}"
            "{batched=[{in=3.in,out=3.out,}{in=4.in,out=4.out,}}points=20,}}checker={name=floats,args={"
            "precision=6,}}}");
    /* Kattis's problem.yaml. */
    yaml_is("---\nname: 'A ''quoted'' name'\nlimits:\n    time_limit: 2.5\n    memory: 1024\n"
            "validation: custom\nkeywords: [graphs,\n  dp]\nempty:\n...\n",
            "{name='A 'quoted' name,limits={time_limit=2.5,memory=1024,}validation=custom,"
            "keywords=[graphs,dp,}empty=~,}");
    yaml_is("a: \"tab\\there \\u00e9 \\x41\"\nb: |\n  line 1\n   more\n\n  line 3\nc: >-\n  folded\n  text\n\n  para\n",
            "{a='tab\there \xc3\xa9 A,b='line 1\n more\n\nline 3\n,c='folded text\npara,}");
    yaml_is("- - a\n  - b\n- c: d\n  e: ~\n- null\n", "[[a,b,}{c=d,e=~,}~,}");
    yaml_is("", "~,");
    yaml_is("# only a comment\n", "~,");
    yaml_is("url: http://x.y/z#frag\n", "{url=http://x.y/z#frag,}");
    /* Found by fuzzing: an empty quoted scalar first thing in a document. */
    yaml_is("a: ''\nb: [\"\"]\n", "{a=',b=[',}}");
}

static void yaml_refuses(const char *doc, const char *want)
{
    trace t;
    char err[256];
    assert_int_equal(yaml(doc, &t, err), -1);
    if (!strstr(err, want))
        fail_msg("%s: got \"%s\", want \"%s\"", doc, err, want);
}

static void yaml_refuses_attacks(void **state)
{
    (void)state;
    yaml_refuses("a: !!python/object/apply:os.system ['touch /tmp/x']\n", "line 1, column 4: a tag (!)");
    yaml_refuses("a: &x [1, 2]\nb: *x\n", "line 1, column 4: an anchor (&)");
    yaml_refuses("b: *x\n", "an alias (*)");
    yaml_refuses("- [!str a]\n", "a tag");
    yaml_refuses("%YAML 1.2\n---\na: 1\n", "line 1, column 1: a directive");
    yaml_refuses("a: 1\n---\nb: 2\n", "line 2, column 1: a second document");
    yaml_refuses("a:\n\tb: 1\n", "line 2, column 1: a tab in indentation");
    yaml_refuses("a: \"x\\0y\"\n", "a NUL character (\\0)");
    yaml_refuses("a: \"x\\u0000y\"\n", "not a character (or a NUL)");
    yaml_refuses("a: x\xe2\x28\n", "not of well-formed UTF-8");
    yaml_refuses("? complex\n: key\n", "a complex key");
    yaml_refuses("a: b: c\n", "a mapping inside a plain value");
    yaml_refuses("a: 1\n  b: 2\n", "bad indentation");
    yaml_refuses("a: plain\n  continued\n", "bad indentation (or a plain value over several lines");
    yaml_refuses("a: [1, 2\n", "line 1, column 4: a [ not closed");
    yaml_refuses("a: 'open\n", "a quoted value not closed");
    yaml_refuses("a: 1\n- b\n", "a sequence entry where a key was expected");
    yaml_refuses("a: 1\n...\nb: 2\n", "content after the document's end");
}

static void yaml_bounds(void **state)
{
    (void)state;
    char err[256];
    trace t;
    /* [[[...]]] one past the depth bound, and block nesting too. */
    size_t n = WK_YAML_DEPTH + 1;
    char *doc = calloc(1, 4 * n + 8);
    memset(doc, '[', n);
    memset(doc + n, ']', n);
    assert_int_equal(yaml(doc, &t, err), -1);
    assert_non_null(strstr(err, "nested deeper than 64"));
    doc[n - 1] = ' ';
    doc[n] = ' ';
    assert_int_equal(yaml(doc, &t, err), 0);
    free(doc);
    doc = calloc(1, (n + 1) * (n + 8));
    char *p = doc;
    for (size_t i = 0; i <= n; i++)
        p += sprintf(p, "%*sk:\n", (int)i, "");
    assert_int_equal(yaml(doc, &t, err), -1);
    assert_non_null(strstr(err, "nested deeper than 64"));
    free(doc);
    char key[WK_YAML_KEY_MAX + 8];
    memset(key, 'k', WK_YAML_KEY_MAX + 1);
    strcpy(key + WK_YAML_KEY_MAX + 1, ": 1\n");
    assert_int_equal(yaml(key, &t, err), -1);
    assert_non_null(strstr(err, "a key over 256 bytes"));
    assert_int_equal(wk_yaml_parse("a: 1", WK_YAML_MAX + 1ul, on_yaml, &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "over 4194304 bytes"));
}

static void yaml_memory_bound(void **state)
{
    (void)state;
    size_t big = 2u << 20;
    char *doc = malloc(big + 64), err[256];
    strcpy(doc, "a: \"");
    memset(doc + 4, 'x', big);
    strcpy(doc + 4 + big, "\"\nb: [1, 2, 3]\n");
    trace t = { 0 };
    heap(&t);
    t.base = t.peak;
    assert_int_equal(wk_yaml_parse(doc, strlen(doc), on_yaml, &t, err, sizeof err), 0);
    print_message("yaml: %zu bytes in, %zu bytes of heap at most\n", strlen(doc), t.peak - t.base);
    assert_true(t.peak - t.base <= strlen(doc) + strlen(doc) / 2 + (64u << 10));
    free(doc);
}

/* Found by bench_material: each END event named where its collection
 * began, so the line count restarted from the top: a 4 MiB init.yml of
 * one-line cases took minutes. Linear, it takes milliseconds; the alarm
 * only catches the quadratic walk. */
static void yaml_linear(void **state)
{
    (void)state;
    size_t n = WK_YAML_MAX - 64, o = 0;
    char *doc = malloc(n + 64), err[256];
    o += (size_t)sprintf(doc, "test_cases:\n");
    for (size_t i = 0; o + 40 < n; i++)
        o += (size_t)sprintf(doc + o, "- {in: %zu.in, out: %zu.out}\n", i, i);
    size_t events = 0;
    alarm(30);
    assert_int_equal(wk_yaml_parse(doc, o, count_events, &events, err, sizeof err), 0);
    alarm(0);
    assert_true(events > 100000);
    free(doc);
}

/* --- numbers and patterns ---------------------------------------------------- */

static const char *uint_of(const char *s, uint64_t max, uint64_t *v)
{
    return wk_num_uint(s, strlen(s), max, v);
}

static const char *scaled(const char *s, unsigned scale, uint64_t max, uint64_t *v)
{
    return wk_num_scaled(s, strlen(s), scale, max, v);
}

static void numbers(void **state)
{
    (void)state;
    uint64_t v;
    assert_null(uint_of("2000", 100000, &v));
    assert_int_equal(v, 2000);
    assert_null(uint_of("0", 5, &v));
    assert_string_equal(uint_of("-1", 100, &v), "is negative");
    assert_string_equal(uint_of("1 s", 100, &v), "is not a number");
    assert_string_equal(uint_of("", 100, &v), "is not a number");
    assert_string_equal(uint_of("1e3", 10000, &v), "is not a number");
    assert_string_equal(uint_of("0x10", 100, &v), "is not a number");
    assert_string_equal(uint_of("1_000", 10000, &v), "is not a number");
    assert_string_equal(uint_of("010", 100, &v), "has a leading zero (octal to some readers)");
    assert_string_equal(uint_of("18446744073709551616", UINT64_MAX, &v), "is too large"); /* 2^64 */
    assert_null(uint_of("18446744073709551615", UINT64_MAX, &v));
    assert_string_equal(uint_of("101", 100, &v), "is too large");

    assert_null(scaled("2.5", 3, 1000000, &v));
    assert_int_equal(v, 2500);
    assert_null(scaled("2", 3, 1000000, &v));
    assert_int_equal(v, 2000);
    assert_null(scaled(".5", 3, 1000000, &v));
    assert_int_equal(v, 500);
    assert_null(scaled("0.0001", 3, 1000000, &v));
    assert_int_equal(v, 1); /* rounded up: never a zero limit from a positive one */
    assert_null(scaled("1.5e1", 0, 100, &v));
    assert_int_equal(v, 15);
    assert_null(scaled("2.0005", 3, 1000000, &v));
    assert_int_equal(v, 2001);
    assert_null(scaled("0", 3, 10, &v));
    assert_int_equal(v, 0);
    assert_null(scaled("-0.0", 3, 10, &v));
    assert_string_equal(scaled("1e309", 3, UINT64_MAX, &v), "is too large");
    assert_string_equal(scaled("1e99999999999999999999", 0, UINT64_MAX, &v), "is too large");
    assert_string_equal(scaled("NaN", 3, 100, &v), "is not a number");
    assert_string_equal(scaled(".nan", 3, 100, &v), "is not a number");
    assert_string_equal(scaled("inf", 3, 100, &v), "is not a number");
    assert_string_equal(scaled("-.inf", 3, 100, &v), "is not a number");
    assert_string_equal(scaled("-1", 3, 100000, &v), "is negative");
    assert_string_equal(scaled("1 s", 3, 100000, &v), "is not a number");
    assert_null(scaled("1.", 0, 10, &v));
    assert_string_equal(scaled(".", 0, 10, &v), "is not a number");
    assert_string_equal(scaled("1e", 0, 10, &v), "is not a number");
    assert_string_equal(scaled("0x1p4", 0, 100, &v), "is not a number");
    assert_string_equal(scaled("18446744073709551.616", 3, UINT64_MAX, &v), "is too large");
    assert_null(scaled("18446744073709551.615", 3, UINT64_MAX, &v));
    assert_true(v == UINT64_MAX);
    assert_null(scaled("18446744073709551.6149", 3, UINT64_MAX, &v)); /* rounds up to the most */
    assert_true(v == UINT64_MAX);
    assert_string_equal(scaled("18446744073709551.6151", 3, UINT64_MAX, &v), "is too large"); /* rounds up past */
}

static void patterns(void **state)
{
    (void)state;
    char out[64];
    assert_null(wk_pattern_check("tests/%02d"));
    assert_int_equal(wk_pattern_expand("tests/%02d", 7, out, sizeof out), 0);
    assert_string_equal(out, "tests/07");
    assert_int_equal(wk_pattern_expand("tests/%02d.a", 123, out, sizeof out), 0);
    assert_string_equal(out, "tests/123.a");
    assert_int_equal(wk_pattern_expand("t/%d", 18446744073709551615ull, out, sizeof out), 0);
    assert_string_equal(out, "t/18446744073709551615");
    assert_int_equal(wk_pattern_expand("%%/%3d", 5, out, sizeof out), 0);
    assert_string_equal(out, "%/  5");
    assert_int_equal(wk_pattern_expand("tests/%09d", 1, out, 10), -1); /* does not fit */
    assert_string_equal(wk_pattern_check("tests/%s"), "has a '%' that is not %d, %Nd, %0Nd (N 1-9) or %%");
    assert_string_equal(wk_pattern_check("tests/%n"), "has a '%' that is not %d, %Nd, %0Nd (N 1-9) or %%");
    assert_string_equal(wk_pattern_check("%d%d"), "has more than one %d");
    assert_string_equal(wk_pattern_check("tests/01"), "has no %d");
    assert_non_null(wk_pattern_check("%10d"));
    assert_non_null(wk_pattern_check("%0d"));
    assert_non_null(wk_pattern_check("%"));
    assert_non_null(wk_pattern_check("%*d"));
    assert_int_equal(wk_pattern_expand("%s", 1, out, sizeof out), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(xml_reads_packages),  cmocka_unit_test(xml_refuses_attacks),
        cmocka_unit_test(xml_nul_with_length), cmocka_unit_test(xml_bounds),
        cmocka_unit_test(xml_memory_bound),    cmocka_unit_test(yaml_reads_packages),
        cmocka_unit_test(yaml_refuses_attacks), cmocka_unit_test(yaml_bounds),
        cmocka_unit_test(yaml_memory_bound),   cmocka_unit_test(yaml_linear), cmocka_unit_test(numbers),
        cmocka_unit_test(patterns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
