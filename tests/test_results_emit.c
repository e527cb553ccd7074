/*
 * test_results_emit — results.json written one service at a time
 * (fs_results_json_emit) is byte for byte the whole document's dump
 * (json_dumps of fs_results_json), in every format the program writes it in
 * (indented by 2 for results.json, compact for the run identity, indented by
 * 1 as a sweep's files are), with and without run_id, over two policies,
 * several services and two replications; and services named after the
 * splice's own marks (one with a quote, a newline and a bracket, one exactly,
 * which makes it a tenant key ahead of the second policy's mark) cannot
 * move them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "results_json.h"
#include "run.h"
#include "scenario.h"
#include "testutil.h"

typedef struct text {
    char *buf;
    size_t len, cap;
} text;

static int append(const char *buf, size_t size, void *data)
{
    text *t = data;
    if (t->len + size + 1 > t->cap) {
        size_t cap = 2 * (t->len + size + 1);
        char *bigger = realloc(t->buf, cap);
        if (!bigger)
            return -1;
        t->buf = bigger;
        t->cap = cap;
    }
    memcpy(t->buf + t->len, buf, size);
    t->len += size;
    t->buf[t->len] = '\0';
    return 0;
}

static void same_as_whole(const fs_results *r)
{
    const size_t formats[] = {JSON_INDENT(2) | JSON_REAL_PRECISION(10), JSON_COMPACT | JSON_REAL_PRECISION(17),
                              JSON_INDENT(1) | JSON_REAL_PRECISION(17)};
    const char *ids[] = {NULL, "0123456789abcdef"};
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        for (size_t k = 0; k < 2; k++) {
            json_t *doc = fs_results_json(r, false);
            assert_non_null(doc);
            if (ids[k])
                assert_int_equal(json_object_set_new(doc, "run_id", json_string(ids[k])), 0);
            char *whole = json_dumps(doc, formats[f]);
            json_decref(doc);
            text t = {0};
            assert_int_equal(fs_results_json_emit(r, false, ids[k], formats[f], append, &t), 0);
            assert_non_null(whole);
            assert_non_null(t.buf);
            assert_string_equal(t.buf, whole);
            free(whole);
            free(t.buf);
        }
    }
}

static void test_two_policies(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"20m\", \"seed\": 5, \"replications\": 2,"
        " \"policies\": {\"one\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 6}]},"
        "   \"two\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 8}]}},"
        " \"services\": ["
        "  {\"name\": \"a\", \"arrivals\": {\"poisson_rps\": 20}, \"service_time\": {\"exponential\": {\"mean\": \"100ms\"}},"
        "   \"replicas\": 2, \"slo\": {\"p99_ms\": 500}},"
        "  {\"name\": \"fleetsim-services-of-policy-0\\\"\\n[\", \"arrivals\": {\"poisson_rps\": 5},"
        "   \"service_time\": {\"exponential\": {\"mean\": \"200ms\"}}, \"replicas\": 2},"
        "  {\"name\": \"fleetsim-services-of-policy-1\", \"arrivals\": {\"poisson_rps\": 1}, \"service_time\": {\"exponential\": {\"mean\": \"1s\"}},"
        "   \"replicas\": 2}]}");
    fs_results *r = test_run(s);
    assert_int_equal(r->n_policies, 2);
    same_as_whole(r);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_policies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
