/* test_worker.c -- the worker's configuration (flags, GRADEQ_* variables,
 * defaults, their precedence, the errors) and how a job's limits become a
 * sandbox spec (defaults filled in, the worker's maxima clamping); the
 * heartbeat marking a slot lost only while it runs the entry taken. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "queue/job.h"
#include "worker/common/log.h"
#include "worker/common/text.h"
#include "worker/daemon/config.h"
#include "worker/common/convert.h"
#include "worker/daemon/worker.h"

/* The heartbeat's verdict "entry taken" lands on a slot only while that
 * slot still runs that entry: the next job's result must not be dropped. */
static void lost_only_if_still_running(void **state)
{
    (void)state;
    wk_slot s = { .consumer = "w/0" };
    pthread_mutex_init(&s.mu, NULL);
    snprintf(s.entry, sizeof s.entry, "2-0"); /* the next job already began */
    assert_false(wk_slot_mark_lost(&s, "1-0"));
    assert_false(atomic_load(&s.lost));
    s.entry[0] = 0; /* idle */
    assert_false(wk_slot_mark_lost(&s, "1-0"));
    assert_false(atomic_load(&s.lost));
    snprintf(s.entry, sizeof s.entry, "1-0");
    assert_true(wk_slot_mark_lost(&s, "1-0"));
    assert_true(atomic_load(&s.lost));
    pthread_mutex_destroy(&s.mu);
}

/* What a terminal or a log gets of bytes a job chose: text as it is, the
 * rest as \xNN; a program's lines keep their newlines and tabs. */
static void text_shown_escaped(void **state)
{
    (void)state;
    static const char evil[] = "ok \xc3\xa9\t\x1b[2K\r\x07\xff\xc2\x9b end\n";
    char out[256];
    wk_text_escape(out, sizeof out, evil);
    assert_string_equal(out, "ok \xc3\xa9\\x09\\x1b[2K\\x0d\\x07\\xff\\xc2\\x9b end\\x0a");
    assert_int_equal(wk_text_escape(out, 8, evil), 5); /* "ok \xc3\xa9" whole, no half escape */
    char *buf;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    wk_text_write(f, evil, strlen(evil), true);
    fclose(f);
    assert_string_equal(buf, "ok \xc3\xa9\t\\x1b[2K\\x0d\\x07\\xff\\xc2\\x9b end\n");
    free(buf);
    /* The log, text and JSON: one line, no control byte but its end. */
    for (int json = 0; json < 2; json++) {
        FILE *tmp = tmpfile();
        assert_non_null(tmp);
        int saved = dup(2);
        dup2(fileno(tmp), 2);
        wk_log_setup(json, WK_LOG_INFO);
        wk_log(WK_LOG_WARN, "job x: %s", evil);
        dup2(saved, 2);
        close(saved);
        wk_log_setup(false, WK_LOG_INFO);
        char line[512] = "";
        rewind(tmp);
        size_t n = fread(line, 1, sizeof line - 1, tmp);
        fclose(tmp);
        assert_true(n > 0 && line[n - 1] == '\n');
        for (size_t i = 0; i + 1 < n; i++)
            if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f || (unsigned char)line[i] == 0xff)
                fail_msg("log byte %zu is 0x%02x: %s", i, (unsigned char)line[i], line);
        assert_non_null(strstr(line, json ? "\\\\x1b[2K" : "\\x1b[2K"));
    }
}

static int load(wk_config *c, char *err, int argc, ...)
{
    char *argv[32] = { "gradeq-worker" };
    va_list ap;
    va_start(ap, argc);
    for (int i = 1; i < argc; i++)
        argv[i] = va_arg(ap, char *);
    va_end(ap);
    return wk_config_load(c, argc, argv, err, 256);
}

static void defaults(void **state)
{
    (void)state;
    wk_config c;
    char err[256];
    assert_int_equal(load(&c, err, 1), 0);
    assert_string_equal(c.prefix, "gradeq");
    assert_string_equal(c.redis, "redis://127.0.0.1:6379");
    assert_true(c.threads >= 1);
    assert_true(c.require_isolation);
    assert_true(c.claim_idle_ms == 30000 && c.max_deliveries == 3 && c.result_ttl_s == 86400);
    assert_true(c.max_job_bytes == 64ull << 20 && c.max.memory_bytes == 4ull << 30);
    /* The largest result the defaults allow (an interactive run's) fits. */
    assert_true(c.max_result_bytes == Q_RESULT_BYTES_MAX);
    assert_true(c.max.stdout_bytes + 2 * c.max.stderr_bytes <= wk_output_budget(c.max_result_bytes, false));
}

static void env_then_flags(void **state)
{
    (void)state;
    wk_config c;
    char err[256];
    setenv("GRADEQ_PREFIX", "fromenv", 1);
    setenv("GRADEQ_THREADS", "3", 1);
    setenv("GRADEQ_MAX_MEMORY", "1G", 1);
    assert_int_equal(load(&c, err, 3, "--threads", "5"), 0);
    assert_string_equal(c.prefix, "fromenv");      /* environment over default */
    assert_int_equal(c.threads, 5);                 /* flag over environment */
    assert_true(c.max.memory_bytes == 1ull << 30);  /* SIZE units */
    assert_int_equal(load(&c, err, 2, "--prefix=eq"), 0);
    assert_string_equal(c.prefix, "eq");
    unsetenv("GRADEQ_PREFIX");
    unsetenv("GRADEQ_THREADS");
    unsetenv("GRADEQ_MAX_MEMORY");
}

static void errors_name_the_flag(void **state)
{
    (void)state;
    wk_config c;
    char err[256];
    assert_int_equal(load(&c, err, 3, "--threads", "many"), -1);
    assert_non_null(strstr(err, "--threads"));
    assert_int_equal(load(&c, err, 2, "--no-such-flag"), -1);
    assert_non_null(strstr(err, "--no-such-flag"));
    assert_int_equal(load(&c, err, 2, "--redis"), -1);
    assert_non_null(strstr(err, "needs a value"));
    assert_int_equal(load(&c, err, 3, "--require-isolation", "maybe"), -1);
    assert_int_equal(load(&c, err, 3, "--name", "a/b"), -1);
    assert_int_equal(load(&c, err, 3, "--claim-idle-ms", "10"), -1);
    /* Every value the worker would only trip over later is refused here,
     * naming its flag: an address it cannot parse (it crashed on "[:9100"),
     * maxima the sandbox refuses or that leave a run nothing, Redis values
     * that would be refused (or wrap) on every call. */
    static const char *const refused[][3] = {
        { "--metrics-addr", "[:9100", "IPv6 host is [ADDRESS]:PORT" },
        { "--metrics-addr", "[", "--metrics-addr" },
        { "--metrics-addr", "::1:9100", "in brackets" },
        { "--metrics-addr", ":9100", "no host" },
        { "--metrics-addr", "localhost:0", "the port is not 1..65535" },
        { "--metrics-addr", "localhost:http", "the port is not 1..65535" },
        { "--max-cpu-ms", "0", "--max-cpu-ms: 0, must be positive" },
        { "--max-memory", "0", "--max-memory: 0, must be positive" },
        { "--max-wall-ms", "0", "--max-wall-ms: 0, must be positive" },
        { "--max-processes", "99999999", "--max-processes: 99999999 is more than the sandbox takes" },
        { "--max-wall-ms", "999999999", "--max-wall-ms: 999999999 is more than the sandbox takes" },
        { "--claim-idle-ms", "18446744073709551615", "--claim-idle-ms must be 300.." },
        { "--result-ttl", "18446744073709551615", "--result-ttl: at most" },
        { "--results-maxlen", "18446744073709551615", "--results-maxlen, --dead-maxlen: at most" },
        { "--max-job-bytes", "0", "--max-job-bytes" },
        /* Results: at most what clients read, and the maxima must fit. */
        { "--max-result-bytes", "65M", "--max-result-bytes: 68157440, not 2M..64M" },
        { "--max-result-bytes", "1M", "not 2M..64M" },
        { "--max-stdout", "64M", "--max-stdout (67108864) and twice --max-stderr" },
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        err[0] = 0;
        if (load(&c, err, 3, refused[i][0], refused[i][1]) != -1 || !strstr(err, refused[i][2]))
            fail_msg("%s %s: got \"%s\", want \"%s\"", refused[i][0], refused[i][1], err, refused[i][2]);
    }
    /* The maxima fit a result when told so together. */
    assert_int_equal(load(&c, err, 7, "--max-stdout", "40M", "--max-stderr", "10M", "--max-result-bytes", "64M"), 0);
    assert_int_equal(load(&c, err, 5, "--max-stdout", "1M", "--max-result-bytes", "2M"), -1);
    assert_int_equal(load(&c, err, 7, "--max-stdout", "1M", "--max-stderr", "256K", "--max-result-bytes", "2M"), 0);
    setenv("GRADEQ_LOG_LEVEL", "loud", 1);
    assert_int_equal(load(&c, err, 1), -1);
    assert_non_null(strstr(err, "GRADEQ_LOG_LEVEL"));
    unsetenv("GRADEQ_LOG_LEVEL");
}

static void limits_default_and_clamp(void **state)
{
    (void)state;
    char *argv[] = { "./a.out", NULL };
    q_job j = { .prog = { .argv = argv, .argc = 1 } };
    j.prog.limits[Q_LIM_CPU_MS] = 999999;
    j.prog.limits[Q_LIM_STDOUT_BYTES] = 10;
    j.prog.limits_present = 1u << Q_LIM_CPU_MS | 1u << Q_LIM_STDOUT_BYTES;
    sbx_limits max;
    sbx_limits_default(&max);
    max.cpu_ms = 5000;
    max.wall_ms = 12000;
    max.stdout_bytes = 1 << 30;
    sbx_spec spec;
    sbx_file *files;
    char err[256];
    assert_int_equal(wk_spec_from_job(&j, &max, &spec, &files, err, sizeof err), 0);
    assert_true(spec.limits.cpu_ms == 5000);        /* clamped to the maximum */
    assert_true(spec.limits.wall_ms == 12000);      /* 3 x cpu, under the maximum */
    assert_true(spec.limits.stdout_bytes == 10);    /* a job may ask for less */
    assert_true(spec.limits.memory_bytes == 256ull << 20); /* default */
    free(files);
    j.prog.limits[Q_LIM_PROCESSES] = 0;
    j.prog.limits_present |= 1u << Q_LIM_PROCESSES;
    assert_int_equal(wk_spec_from_job(&j, &max, &spec, &files, err, sizeof err), -1);
    assert_non_null(strstr(err, "processes"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lost_only_if_still_running),
        cmocka_unit_test(text_shown_escaped),
        cmocka_unit_test(defaults),
        cmocka_unit_test(env_then_flags),
        cmocka_unit_test(errors_name_the_flag),
        cmocka_unit_test(limits_default_and_clamp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
