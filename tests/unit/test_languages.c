/* test_languages.c -- the language presets without a sandbox: the
 * placeholder expressions, the reader (every key, every refusal with its
 * line), where the box would find a preset's programs (through env, a
 * script's #! line, a toolchain only the host sees), a preset applied to a
 * run (flags from the run's limits, the environment's order, the time
 * factor, the runtime's processes), when a runtime's own out-of-memory
 * message is believed, and the version read from a command's output.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/lib/files.h"
#include "worker/lang/apply.h"
#include "worker/lang/expr.h"
#include "worker/lang/selftest.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    return tl_mkdtemp(dir, sizeof dir, "gradeq-lang.") ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const int64_t vars[WK_V_COUNT] = { 256, 262144, 268435456, 192, 196608, 201326592,
                                          256, 262144, 1000, 3000, 64, 64 };

static int64_t eval(const char *s)
{
    int64_t v = -12345;
    char err[128];
    assert_int_equal(wk_expr_eval(s, strlen(s), vars, &v, err, sizeof err), 0);
    return v;
}

static void expect_eval_error(const char *s, const char *want)
{
    int64_t v;
    char err[128];
    assert_int_equal(wk_expr_eval(s, strlen(s), vars, &v, err, sizeof err), -1);
    assert_string_equal(err, want);
}

static void expressions(void **state)
{
    (void)state;
    assert_int_equal(eval("memory_mb"), 256);
    assert_int_equal(eval("memory_mb - 64"), 192);
    assert_int_equal(eval("2 + 3 * 4"), 14);
    assert_int_equal(eval("(2 + 3) * 4"), 20);
    assert_int_equal(eval("memory_mb * 3 / 4"), 192);
    assert_int_equal(eval("max(memory_mb - 64, memory_mb / 2)"), 192);
    assert_int_equal(eval("min(stack_mb, 512)"), 256);
    assert_int_equal(eval("-3 + 5"), 2);
    assert_int_equal(eval(" 10 - 2 - 3 "), 5);
    /* Saturates instead of overflowing. */
    assert_int_equal(eval("memory_bytes * memory_bytes * memory_bytes"), INT64_MAX);
    assert_int_equal(eval("0 - memory_bytes * memory_bytes * memory_bytes"), -INT64_MAX);
    assert_int_equal(eval("99999999999999999999999"), INT64_MAX);
    expect_eval_error("memory_mb / (cpu_ms - 1000)", "a division by zero");
    expect_eval_error("memroy_mb", "unknown name \"memroy_mb\"");
    expect_eval_error("memory_mb +", "an expression ends too soon");
    expect_eval_error("(memory_mb", "a '(' is not closed");
    expect_eval_error("memory_mb 5", "unexpected text after an expression");
    expect_eval_error("max(1)", "min and max take (a, b)");
    expect_eval_error("$", "unexpected '$'");
    expect_eval_error("((((((((((((((((((1))))))))))))))))))", "nested too deep");
}

static void expansion(void **state)
{
    (void)state;
    char out[64], err[128];
    assert_int_equal(wk_expand("-Xmx{heap_mb}m", vars, out, sizeof out, err, sizeof err), 8);
    assert_string_equal(out, "-Xmx192m");
    assert_true(wk_expand("{{literal}} {memory_mb / 2}", vars, out, sizeof out, err, sizeof err) > 0);
    assert_string_equal(out, "{literal} 128");
    /* Never below 1: a flag is never -Xmx0m or negative. */
    assert_true(wk_expand("-Xmx{memory_mb - 1000}m", vars, out, sizeof out, err, sizeof err) > 0);
    assert_string_equal(out, "-Xmx1m");
    assert_int_equal(wk_expand("{memory_mb", vars, out, sizeof out, err, sizeof err), -1);
    assert_string_equal(err, "a '{' is not closed (write {{ for a brace)");
    assert_int_equal(wk_expand("x}", vars, out, sizeof out, err, sizeof err), -1);
    assert_int_equal(wk_expand("{nope}", vars, out, sizeof out, err, sizeof err), -1);
    assert_string_equal(err, "{nope}: unknown name \"nope\"");
    assert_int_equal(wk_expand("{memory_bytes}{memory_bytes}{memory_bytes}{memory_bytes}", vars, out, 16, err,
                               sizeof err), -1);
}

/* Writes text to dir/name and loads it; the presets in *l. */
static int load(const char *text, wk_langs *l, char *err, size_t errlen)
{
    char path[400];
    snprintf(path, sizeof path, "%s/langs", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return wk_langs_load(path, l, err, errlen);
}

static void reader_keys(void **state)
{
    (void)state;
    wk_langs l;
    char err[512];
    assert_int_equal(load("# comment\n"
                          "[java]\n"
                          "language = Java (OpenJDK)\n"
                          "packages = openjdk-17-jdk-headless\n"
                          "source = Main.java\n"
                          "compile = javac Main.java\n"
                          "run = java -Xmx{heap_mb}m -Xss{min(stack_mb, 512)}m Main\n"
                          "version = java -version\n"
                          "env = A=1 'B=two words' C={memory_mb}\n"
                          "env = D=4\n"
                          "compile.env = \"JAVA_OPTS=-Xmx{heap_mb}m -Xss64m\"\n"
                          "paths = /var/lib/ghc /opt/x\n"
                          "heap_mb = max(memory_mb - 64, memory_mb / 2)\n"
                          "oom = java.lang.OutOfMemoryError\n"
                          "oom = Could not reserve enough space\n"
                          "runtime_processes = 32\n"
                          "time_factor = 1.5\n"
                          "memory_bytes = 512M\n"
                          "open_files = 256\n"
                          "compile.cpu_ms = 60000\n"
                          "compile.memory_bytes = 1G\n"
                          "selftest = class M {\\n\\tx \\\\ y\\n}\n",
                          &l, err, sizeof err),
                     0);
    assert_int_equal(l.n, 1);
    const wk_lang *j = wk_lang_find(&l, "java");
    assert_non_null(j);
    assert_string_equal(j->title, "Java (OpenJDK)");
    assert_string_equal(j->packages, "openjdk-17-jdk-headless");
    assert_true(j->has_compile);
    assert_string_equal(j->run_argv[1], "-Xmx{heap_mb}m");
    assert_string_equal(j->run_argv[2], "-Xss{min(stack_mb, 512)}m"); /* a placeholder's blanks do not split */
    assert_string_equal(j->version_argv[1], "-version");
    assert_int_equal(j->nenv, 4);
    assert_string_equal(j->env[1], "B=two words");
    assert_string_equal(j->env[3], "D=4");
    assert_int_equal(j->ncompile_env, 1);
    assert_string_equal(j->compile_env[0], "JAVA_OPTS=-Xmx{heap_mb}m -Xss64m");
    assert_int_equal(j->npaths, 2);
    assert_string_equal(j->paths[0], "/var/lib/ghc");
    assert_int_equal(j->noom, 2);
    assert_string_equal(j->oom[1], "Could not reserve enough space");
    assert_int_equal(j->runtime_processes, 32);
    assert_int_equal(j->time_factor_milli, 1500);
    assert_int_equal(j->limits[Q_LIM_MEMORY_BYTES], 512u << 20);
    assert_int_equal(j->limits[Q_LIM_OPEN_FILES], 256);
    assert_int_equal(j->compile_limits[Q_LIM_MEMORY_BYTES], 1u << 30);
    assert_string_equal(j->selftest, "class M {\n\tx \\ y\n}");
    assert_int_equal(j->selftest_len, 18);
    wk_langs_free(&l);
}

static void reader_refusals(void **state)
{
    (void)state;
    static const struct { const char *text, *err; } cases[] = {
        { "[a]\nsource = a\nrun = x\nnope = 1\n", ":4: unknown key \"nope\"" },
        { "[a]\nsource = a\nrun = x -m{memroy_mb}\n", ":3: run: {memroy_mb}: unknown name \"memroy_mb\"" },
        { "[a]\nsource = a\nrun = x {memory_mb\n", ":3: run: a '{' is not closed" },
        { "[a]\nsource = a\nrun = x\nenv = 1X=2\n", ":4: env: \"1X=2\" is not NAME=VALUE" },
        { "[a]\nsource = a\nrun = x\nenv = NOVALUE\n", ":4: env: \"NOVALUE\" is not NAME=VALUE" },
        { "[a]\nsource = a\nrun = x\npaths = var/lib\n", ":4: paths: \"var/lib\" is not a plain absolute path" },
        { "[a]\nsource = a\nrun = x\npaths = /var/../etc\n", ":4: paths: \"/var/../etc\" is not a plain" },
        { "[a]\nsource = a\nrun = x\npaths = /proc/1\n", ":4: paths: \"/proc/1\" is not a plain" },
        { "[a]\nsource = a\nrun = x\nheap_mb = heap_mb - 1\n", ":4: heap_mb: heap_mb cannot name heap_mb" },
        { "[a]\nsource = a\nrun = x\nheap_mb = memory_mb / 0\n", ":4: heap_mb: a division by zero" },
        { "[a]\nsource = a\nrun = x\ntime_factor = 0\n", ":4: time_factor: \"0\" is not a number above 0" },
        { "[a]\nsource = a\nrun = x\ntime_factor = 1.5x\n", ":4: time_factor: \"1.5x\" is not a number" },
        { "[a]\nsource = a\nrun = x\ntime_factor = 101\n", ":4: time_factor: \"101\" is not a number" },
        { "[a]\nsource = a\nrun = x\nruntime_processes = 5000\n", ":4: runtime_processes: an integer from 0" },
        { "[a]\nsource = a\nrun = x\nselftest = a\\qb\n", ":4: selftest: only \\n, \\t and \\\\ are escapes" },
        { "[a]\nsource = a\nrun = x\noom =\n", ":4: oom: a pattern" },
        { "[a]\nsource = a\nrun = x\nmemory_bytes = 12Q\n", ":4: memory_bytes: \"12Q\" is not a size" },
        { "[a]\nsource = a\nrun = x\ncompile.env = A=\"b\n", ":4: compile.env: unbalanced quote" },
        { "[a]\nsource = a\nrun = x\n[a]\n", ":4: [a] given twice" },
        { "[a]\nrun = x\n", ":2: [a] needs source and run" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wk_langs l;
        char err[512];
        if (load(cases[i].text, &l, err, sizeof err) != -1 || !strstr(err, cases[i].err))
            fail_msg("case %zu: got \"%s\", want \"...%s...\"", i, err, cases[i].err);
    }
}

/* The defect this guards: a preset written `env VAR=x missing-compiler`
 * was listed available (the check looked at env) and run. */
static void probe_follows_env(void **state)
{
    (void)state;
    wk_langs l;
    char err[512];
    assert_int_equal(load("[a]\nsource = a\ncompile = env FOO=1 no-such-compiler-xyz a\nrun = ./a\n"
                          "[b]\nsource = b\nrun = /usr/bin/env -i -u X BAR=2 -- no-such-interpreter-xyz b\n"
                          "[c]\nsource = c\nrun = env FOO=1 sh c\n"
                          "[d]\nsource = d\nrun = env PATH=/nowhere sh d\n"
                          "[e]\nsource = e\nrun = env -S 'sh -e' e\n"
                          "[f]\nsource = f\nrun = env A=1\n"
                          "[g]\nsource = g\nenv = PATH=/nowhere\nrun = sh g\n",
                          &l, err, sizeof err),
                     0);
    assert_false(l.v[0].available);
    assert_string_equal(l.v[0].why, "no-such-compiler-xyz is not installed");
    assert_false(l.v[1].available);
    assert_string_equal(l.v[1].why, "no-such-interpreter-xyz is not installed");
    assert_true(l.v[2].available);
    assert_false(l.v[3].available); /* PATH= given to env is where it looks */
    assert_false(l.v[4].available);
    assert_non_null(strstr(l.v[4].why, "env -S: an option this check cannot follow"));
    assert_false(l.v[5].available);
    assert_string_equal(l.v[5].why, "env runs no program");
    assert_false(l.v[6].available); /* the preset's own PATH too */
    wk_langs_free(&l);
}

/* A program only the host sees (a toolchain under a home directory) is not
 * available; a script whose interpreter is missing is not either. */
static void probe_sees_what_the_box_sees(void **state)
{
    (void)state;
    char bin[300], tool[400], script[400], text[2048];
    snprintf(bin, sizeof bin, "%s/bin", dir);
    snprintf(tool, sizeof tool, "%s/hosttool", bin);
    snprintf(script, sizeof script, "/usr/bin/env");
    assert_int_equal(mkdir(bin, 0755), 0);
    FILE *f = fopen(tool, "w");
    assert_non_null(f);
    fputs("#!/bin/sh\n", f);
    fclose(f);
    assert_int_equal(chmod(tool, 0755), 0);
    char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    char path[1024];
    snprintf(path, sizeof path, "%s:%s", bin, old ? old : "/usr/bin:/bin");
    setenv("PATH", path, 1);
    wk_langs l;
    char err[512];
    snprintf(text, sizeof text,
             "[a]\nsource = a\nrun = hosttool a\n"
             "[b]\nsource = b\nrun = %s a\n"
             "[c]\nsource = c\nrun = %s/scripted a\n",
             tool, bin);
    char scripted[400];
    snprintf(scripted, sizeof scripted, "%s/scripted", bin);
    f = fopen(scripted, "w");
    assert_non_null(f);
    fputs("#!/usr/bin/env no-such-interpreter-xyz\n", f);
    fclose(f);
    assert_int_equal(chmod(scripted, 0755), 0);
    assert_int_equal(load(text, &l, err, sizeof err), 0);
    old ? setenv("PATH", old, 1) : unsetenv("PATH");
    free(old);
    assert_false(l.v[0].available);
    assert_non_null(strstr(l.v[0].why, "hosttool is not installed where the box sees it (this machine has"));
    assert_false(l.v[1].available);
    assert_non_null(strstr(l.v[1].why, "is not installed where the box sees it"));
    assert_false(l.v[2].available);
    wk_langs_free(&l);
    (void)script;
}

static void applied(void **state)
{
    (void)state;
    wk_langs l;
    char err[512];
    assert_int_equal(load("[j]\nsource = M.java\ncompile = javac -J-Xmx{heap_mb}m M.java\n"
                          "run = java -Xmx{heap_mb}m -Xss{min(stack_mb, 512)}m M\n"
                          "heap_mb = max(memory_mb - 64, memory_mb / 2)\n"
                          "env = HOME=/tmp A={cpu_ms} B=x\ncompile.env = B=compile\n"
                          "runtime_processes = 32\ntime_factor = 2\noom = OutOfMemoryError\n",
                          &l, err, sizeof err),
                     0);
    const wk_lang *j = &l.v[0];
    sbx_limits lim, max;
    sbx_limits_default(&lim);
    memset(&max, 0xff, sizeof max);
    lim.memory_bytes = 1ull << 30;
    wk_lang_cmd c;
    const char *job_env[] = { "B=job", "C=3", NULL };
    assert_int_equal(wk_lang_command(j, false, &lim, job_env, &c, err, sizeof err), 0);
    assert_string_equal(c.argv[1], "-Xmx960m");
    assert_string_equal(c.argv[2], "-Xss512m");
    assert_null(c.argv[4]);
    /* The sandbox's PATH and LANG, the preset's HOME over the default,
     * then the job's B over the preset's. */
    const char *want[] = { "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp", "LANG=C.UTF-8", "A=1000", "B=job",
                           "C=3", NULL };
    for (size_t i = 0; want[i] || c.env[i]; i++) {
        assert_non_null(c.env[i]);
        assert_non_null(want[i]);
        assert_string_equal(c.env[i], want[i]);
    }
    wk_lang_cmd_free(&c);
    lim.memory_bytes = 64ull << 20;
    assert_int_equal(wk_lang_command(j, true, &lim, NULL, &c, err, sizeof err), 0);
    assert_string_equal(c.argv[1], "-J-Xmx32m");
    assert_string_equal(c.env[4], "B=compile");
    wk_lang_cmd_free(&c);

    sbx_limits_default(&lim);
    max.cpu_ms = 1500;
    wk_lang_limits(j, &lim, &max);
    assert_int_equal(lim.cpu_ms, 1500);   /* 2 x 1000, clamped to the maximum */
    assert_int_equal(lim.wall_ms, 6000);  /* 2 x the default 3 x cpu */
    assert_int_equal(lim.processes, 64 + 32);
    wk_langs_free(&l);
}

static void oom_believed_when_measured(void **state)
{
    (void)state;
    wk_langs l;
    char err[512];
    assert_int_equal(load("[j]\nsource = M\nrun = java M\nheap_mb = memory_mb - 56\noom = OutOfMemoryError\n"
                          "[p]\nsource = p\nrun = sh p\noom = MemoryError\n",
                          &l, err, sizeof err),
                     0);
    sbx_limits lim;
    sbx_limits_default(&lim); /* 256 MiB: java's ceiling 200 MiB */
    char msg[] = "Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space\n";
    sbx_result r = { .status = SBX_RUNTIME_ERROR, .exit_code = 1, .stderr_buf = msg, .stderr_len = strlen(msg),
                     .memory_bytes = 190ull << 20 };
    assert_int_equal(wk_lang_ceiling(&l.v[0], &lim), 200ull << 20);
    assert_true(wk_lang_oom(&l.v[0], &lim, &r));    /* 95% of the ceiling */
    r.memory_bytes = 170ull << 20;
    assert_false(wk_lang_oom(&l.v[0], &lim, &r));   /* 85%: the message alone is not believed */
    r.memory_bytes = 250ull << 20;
    r.status = SBX_SIGNALED;
    assert_true(wk_lang_oom(&l.v[0], &lim, &r));
    r.status = SBX_TIME_LIMIT;
    assert_false(wk_lang_oom(&l.v[0], &lim, &r));   /* only failures are read again */
    r.status = SBX_RUNTIME_ERROR;
    r.stderr_len = 10;
    assert_false(wk_lang_oom(&l.v[0], &lim, &r));   /* the message cut short is not there */
    /* Without heap_mb the ceiling is the memory limit. */
    char py[] = "MemoryError\n";
    sbx_result q = { .status = SBX_RUNTIME_ERROR, .stderr_buf = py, .stderr_len = strlen(py),
                     .memory_bytes = 240ull << 20 };
    assert_true(wk_lang_oom(&l.v[1], &lim, &q));
    q.memory_bytes = 20ull << 20;
    assert_false(wk_lang_oom(&l.v[1], &lim, &q));
    wk_langs_free(&l);
}

static void versions(void **state)
{
    (void)state;
    static const struct { const char *out, *want; } cases[] = {
        { "go version go1.19.8 linux/amd64\n", "1.19.8" },
        { "GNU bash, version 5.2.15(1)-release (x86_64-pc-linux-gnu)\n", "5.2.15" },
        { "openjdk version \"17.0.15\" 2025-04-15\n", "17.0.15" },
        { "OpenJDK 64-Bit Server VM warning\ninfo: kotlinc-jvm 1.3.31 (JRE 17)\n", "1.3.31" },
        { "SBCL 2.2.9.debian\n", "2.2.9" },
        { "25\n", "25" },
        { "no number here\n", "" },
        { "v20.20.2", "20.20.2" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char v[16];
        wk_version_of(cases[i].out, strlen(cases[i].out), v, sizeof v);
        assert_string_equal(v, cases[i].want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(expressions),
        cmocka_unit_test(expansion),
        cmocka_unit_test(reader_keys),
        cmocka_unit_test(reader_refusals),
        cmocka_unit_test(probe_follows_env),
        cmocka_unit_test(probe_sees_what_the_box_sees),
        cmocka_unit_test(applied),
        cmocka_unit_test(oom_believed_when_measured),
        cmocka_unit_test(versions),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
