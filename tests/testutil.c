#include "testutil.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <string.h>

fs_scenario *test_scenario(const char *fmt, ...)
{
    char json[16384];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(json, sizeof json, fmt, ap);
    va_end(ap);
    assert_true(n > 0 && (size_t)n < sizeof json);
    fs_scenario *s = NULL;
    fs_error err = {0};
    if (fs_scenario_parse(json, "test", &s, &err) != FS_OK)
        fail_msg("scenario: %s", err.msg);
    return s;
}

/* What a refusal must look like: rc and err->code are `code`, *out was left
 * alone (still the sentinel), and the message contains want. */
static void check_refused(int rc, fs_scenario *s, const fs_scenario *sentinel,
                          const fs_error *err, int code, const char *want)
{
    if (rc == FS_OK) {
        fs_scenario_destroy(s);
        fail_msg("accepted, wanted \"%s\"", want);
    }
    assert_ptr_equal(s, sentinel);
    assert_int_equal(rc, code);
    assert_int_equal(err->code, code);
    if (strstr(err->msg, want) == NULL)
        fail_msg("message\n  %s\nlacks\n  %s", err->msg, want);
}

void test_load_refused(const char *path, int code, const char *want)
{
    fs_error err = {0, ""};
    fs_scenario *sentinel = (fs_scenario *)&err, *s = sentinel;
    int rc = fs_scenario_load(path, &s, &err);
    check_refused(rc, s, sentinel, &err, code, want);
}

void test_parse_refused(const char *json, const char *origin, int code, const char *want)
{
    fs_error err = {0, ""};
    fs_scenario *sentinel = (fs_scenario *)&err, *s = sentinel;
    int rc = fs_scenario_parse(json, origin, &s, &err);
    check_refused(rc, s, sentinel, &err, code, want);
}

size_t test_gpu_type_index(const fs_scenario *s, const char *name)
{
    for (size_t i = 0; i < s->n_gpu_types; i++)
        if (strcmp(s->gpu_types[i].name, name) == 0)
            return i;
    fail_msg("no GPU type %s", name);
    return SIZE_MAX;
}

void test_assert_default_costs(const fs_switch_costs *sc)
{
    /* The loader copies these from the built-in profile's literals, so they
     * are equal exactly. */
    const fs_switch_costs want = {.context_s = 0.5, .framework_s = 4.47, .storage_gbps = 1.7,
                                  .h2d_gbps = 56.7, .d2h_gbps = 52.8, .inference_warmup_s = 10};
    if (sc->context_s != want.context_s || sc->framework_s != want.framework_s ||
        sc->storage_gbps != want.storage_gbps || sc->h2d_gbps != want.h2d_gbps ||
        sc->d2h_gbps != want.d2h_gbps || sc->inference_warmup_s != want.inference_warmup_s)
        fail_msg("switch costs %g %g %g %g %g %g, want the built-in %g %g %g %g %g %g",
                 sc->context_s, sc->framework_s, sc->storage_gbps, sc->h2d_gbps, sc->d2h_gbps,
                 sc->inference_warmup_s, want.context_s, want.framework_s, want.storage_gbps,
                 want.h2d_gbps, want.d2h_gbps, want.inference_warmup_s);
    assert_string_equal(sc->source, "built-in default (reference/costs.md)");
}

fs_results *test_run(const fs_scenario *s)
{
    fs_results *r = NULL;
    fs_error err = {0};
    if (fs_run_scenario(s, &r, &err) != FS_OK)
        fail_msg("run: %s", err.msg);
    return r;
}

fs_placement *test_place(const fs_scenario *s)
{
    fs_placement *p = NULL;
    fs_error err = {0};
    if (fs_placement_compute(s, &p, &err) != FS_OK)
        fail_msg("placement: %s", err.msg);
    return p;
}

int test_tmpdir(char *buf, size_t size, const char *prefix)
{
    int n = snprintf(buf, size, "/tmp/%s-XXXXXX", prefix);
    if (n < 0 || (size_t)n >= size)
        return -1;
    return mkdtemp(buf) ? 0 : -1;
}

int test_rmdir(const char *dir)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

const char *test_path(const char *fmt, ...)
{
    static char bufs[8][1024];
    static unsigned next;
    char *p = bufs[next++ % 8];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(p, sizeof bufs[0], fmt, ap);
    va_end(ap);
    assert_true(n >= 0 && (size_t)n < sizeof bufs[0]);
    return p;
}

/* The formatted path in path; fails the test if it does not fit. */
static void vpath(char *path, size_t size, const char *fmt, va_list ap)
{
    int n = vsnprintf(path, size, fmt, ap);
    assert_true(n >= 0 && (size_t)n < size);
}

char *test_slurp(const char *fmt, ...)
{
    char path[1024];
    va_list ap;
    va_start(ap, fmt);
    vpath(path, sizeof path, fmt, ap);
    va_end(ap);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    assert_true(n >= 0);
    assert_int_equal(fseek(f, 0, SEEK_SET), 0);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

void test_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

void test_assert_same_counts(const fs_hist *a, const fs_hist *b)
{
    for (uint32_t i = 0; i < FS_HIST_BUCKETS; i++)
        assert_int_equal(fs_hist_count(a, i), fs_hist_count(b, i));
}

/* stat() of the formatted path: whether it succeeded. */
static bool vstat(struct stat *st, const char *fmt, va_list ap)
{
    char path[1024];
    vpath(path, sizeof path, fmt, ap);
    return stat(path, st) == 0;
}

bool test_exists(const char *fmt, ...)
{
    struct stat st;
    va_list ap;
    va_start(ap, fmt);
    bool found = vstat(&st, fmt, ap);
    va_end(ap);
    return found;
}

bool test_nonempty(const char *fmt, ...)
{
    struct stat st;
    va_list ap;
    va_start(ap, fmt);
    bool found = vstat(&st, fmt, ap);
    va_end(ap);
    return found && st.st_size > 0;
}

void test_stderr_has(const char *dir, const char *want)
{
    char *err = test_slurp("%s/err.txt", dir);
    assert_non_null(err);
    if (!strstr(err, want))
        fail_msg("stderr lacks \"%s\": %s", want, err);
    free(err);
}

static int vsh(const char *fmt, va_list ap)
{
    char cmd[8192];
    int n = vsnprintf(cmd, sizeof cmd, fmt, ap);
    assert_true(n >= 0 && (size_t)n < sizeof cmd);
    int status = system(cmd);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

int test_sh(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vsh(fmt, ap);
    va_end(ap);
    return rc;
}

int test_fleetsim(const char *dir, const char *fmt, ...)
{
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    vpath(args, sizeof args, fmt, ap);
    va_end(ap);
    return test_sh("cd '%s' && '%s' %s > '%s/out.txt' 2> '%s/err.txt'", FS_SOURCE_DIR, FS_BINARY, args, dir,
                   dir);
}

json_t *test_fleetsim_json(const char *dir, const char *fmt, ...)
{
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    vpath(args, sizeof args, fmt, ap);
    va_end(ap);
    int status = test_fleetsim(dir, "%s", args);
    if (status != 0) {
        char *err = test_slurp("%s/err.txt", dir);
        fail_msg("fleetsim %s: exit %d: %s", args, status, err ? err : "");
    }
    json_error_t jerr;
    json_t *doc = json_load_file(test_path("%s/out.txt", dir), 0, &jerr);
    if (!doc)
        fail_msg("fleetsim %s: stdout is not JSON: %s", args, jerr.text);
    return doc;
}

const json_t *test_json_at(const json_t *obj, const char *path)
{
    char key[128];
    const json_t *v = obj;
    for (const char *p = path; v && *p;) {
        size_t n = strcspn(p, ".");
        snprintf(key, sizeof key, "%.*s", (int)n, p);
        v = json_object_get(v, key);
        p += n + (p[n] == '.');
    }
    return v;
}

double test_json_num(const json_t *obj, const char *path)
{
    const json_t *v = test_json_at(obj, path);
    if (!json_is_number(v))
        fail_msg("%s is not a number", path);
    return json_number_value(v);
}

const char *test_json_str(const json_t *obj, const char *path)
{
    const json_t *v = test_json_at(obj, path);
    if (!json_is_string(v))
        fail_msg("%s is not a string", path);
    return json_string_value(v);
}
