/*
 * Sweeps and plans, in process: a run's record survives JSON exactly, a
 * summary of records read back equals the summary of the records, sweep
 * points and paths behave, constraints parse, and the staircase search finds
 * what a brute-force grid finds on synthetic monotone and non-monotone
 * landscapes, with fewer evaluations.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "metrics.h"
#include "plan.h"
#include "sweep.h"
#include "testutil.h"

static const char *mini =
    "{\"schema\": \"fleetsim/1\", \"name\": \"mini\", \"horizon\": \"1h\", \"warmup\": \"5m\", \"window\": \"5m\","
    " \"seed\": 5, \"replications\": 2,"
    " \"policies\": {\"a\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 4}]},"
    "              \"b\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 6}]}},"
    " \"services\": [{\"name\": \"chat\", \"pool\": \"p\", \"arrivals\": {\"poisson_rps\": 25},"
    "   \"service_time\": {\"exponential\": {\"mean\": \"100ms\"}}, \"replicas\": 3}]}";

static char dir[256];

static int setup(void **state)
{
    (void)state;
    if (test_tmpdir(dir, sizeof dir, "fleetsim-sweep") != 0)
        return -1;
    test_write(test_path("%s/mini.json", dir), mini);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return test_rmdir(dir);
}

static fs_sweep *make_sweep(const char *vary_path, const char *values)
{
    fs_error err = {0};
    fs_sweep *sw;
    assert_int_equal(fs_sweep_create(test_path("%s/mini.json", dir), &sw, &err), FS_OK);
    json_t *v;
    bool range;
    assert_int_equal(fs_sweep_parse_values(values, &v, &range, &err), FS_OK);
    int rc = fs_sweep_add_dim(sw, vary_path, v, range, &err);
    if (rc != FS_OK)
        fail_msg("%s", err.msg);
    rc = fs_sweep_finish(sw, &err);
    if (rc != FS_OK)
        fail_msg("%s", err.msg);
    return sw;
}

/* A run's record written to JSON and read back is the same record, and the
 * summary of records read back is bit-for-bit the summary of the originals. */
static void test_record_roundtrip(void **state)
{
    (void)state;
    fs_sweep *sw = make_sweep("services[chat].arrivals.poisson_rps", "20..30:10");
    assert_int_equal(sw->n_points, 4); /* 2 rates x 2 policies (added) */
    json_t *work = fs_sweep_work_doc(sw);
    fs_metrics runs[3], back[3];
    fs_error err = {0};
    for (uint32_t k = 0; k < 3; k++) {
        assert_int_equal(fs_sweep_run(sw, work, 1, k, &runs[k], &err), FS_OK);
        json_t *j = fs_metrics_to_json(&runs[k]);
        char *text = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17));
        json_t *again = json_loads(text, 0, NULL);
        assert_int_equal(fs_metrics_from_json(again, "test", &back[k], &err), FS_OK);
        assert_int_equal(back[k].n_values, runs[k].n_values);
        assert_int_equal(back[k].n_hists, runs[k].n_hists);
        for (size_t i = 0; i < runs[k].n_values; i++) {
            assert_string_equal(back[k].names[i], runs[k].names[i]);
            assert_true(memcmp(&back[k].values[i], &runs[k].values[i], sizeof(double)) == 0);
        }
        for (size_t h = 0; h < runs[k].n_hists; h++) {
            assert_int_equal(back[k].hists[h].total, runs[k].hists[h].total);
            assert_true(back[k].hists[h].sum_ns == runs[k].hists[h].sum_ns);
            test_assert_same_counts(&back[k].hists[h], &runs[k].hists[h]);
        }
        free(text);
        json_decref(j);
        json_decref(again);
    }
    fs_metric_row a, b;
    assert_int_equal(fs_metric_row_summarize(runs, 3, &a, &err), FS_OK);
    assert_int_equal(fs_metric_row_summarize(back, 3, &b, &err), FS_OK);
    assert_int_equal(a.n, b.n);
    assert_true(a.n > 20);
    for (size_t i = 0; i < a.n; i++) {
        assert_true(memcmp(&a.value[i], &b.value[i], sizeof(double)) == 0);
        assert_true(memcmp(&a.ci95[i], &b.ci95[i], sizeof(double)) == 0);
    }
    /* The p99 of the row is the merged histogram's, which no single run has. */
    size_t p99 = fs_metric_row_find(&a, "service:chat.p99_ms");
    assert_true(p99 != SIZE_MAX);
    assert_true(a.ci95[p99] > 0);
    /* A plain count is the mean of the replications'. */
    size_t r0 = fs_metric_row_find(&a, "service:chat.requests");
    assert_true(r0 != SIZE_MAX);
    assert_true(fabs(a.value[r0] - (runs[0].values[r0] + runs[1].values[r0] + runs[2].values[r0]) / 3) < 1e-9);
    fs_metric_row_fini(&a);
    fs_metric_row_fini(&b);
    for (int k = 0; k < 3; k++) {
        fs_metrics_fini(&runs[k]);
        fs_metrics_fini(&back[k]);
    }
    json_decref(work);
    fs_sweep_destroy(sw);
}

/* A sweep run equals the same replication of a whole `run` of the edited
 * scenario (common random numbers: the point does not change the streams). */
static void test_run_matches_scenario(void **state)
{
    (void)state;
    fs_sweep *sw = make_sweep("services[chat].arrivals.poisson_rps", "[30]");
    json_t *work = fs_sweep_work_doc(sw);
    fs_metrics m;
    fs_error err = {0};
    /* point 1: rate 30, policy b */
    assert_int_equal(fs_sweep_run(sw, work, 1, 1, &m, &err), FS_OK);
    char *text = test_slurp("%s/mini.json", dir);
    char *at = strstr(text, "\"poisson_rps\": 25");
    assert_non_null(at);
    memcpy(at, "\"poisson_rps\": 30", 17);
    fs_scenario *s = test_scenario("%s", text);
    fs_results *r = test_run(s);
    fs_metrics whole;
    assert_int_equal(fs_metrics_from_run(r, 1, 1, &whole, &err), FS_OK);
    assert_int_equal(whole.n_values, m.n_values);
    for (size_t i = 0; i < m.n_values; i++)
        assert_true(whole.values[i] == m.values[i]);
    fs_metrics_fini(&whole);
    fs_metrics_fini(&m);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
    free(text);
    json_decref(work);
    fs_sweep_destroy(sw);
}

static void test_paths_and_values(void **state)
{
    (void)state;
    fs_error err = {0};
    json_t *v;
    bool range;
    assert_int_equal(fs_sweep_parse_values("2..8:3", &v, &range, &err), FS_OK);
    assert_true(range);
    assert_int_equal(json_array_size(v), 3);
    assert_int_equal(json_integer_value(json_array_get(v, 2)), 8);
    json_decref(v);
    assert_int_equal(fs_sweep_parse_values("0.5..1", &v, &range, &err), FS_OK);
    assert_int_equal(json_array_size(v), 1); /* step 1 from 0.5 stops before 1.5 */
    json_decref(v);
    assert_int_equal(fs_sweep_parse_values("a,3,[1]", &v, &range, &err), FS_OK);
    assert_false(range);
    assert_string_equal(json_string_value(json_array_get(v, 0)), "a");
    assert_true(json_is_integer(json_array_get(v, 1)));
    json_decref(v);
    assert_int_equal(fs_sweep_parse_values("8..2", &v, &range, &err), FS_ERR_INPUT);
    assert_int_equal(fs_sweep_parse_values("1..5:0", &v, &range, &err), FS_ERR_INPUT);

    fs_sweep *sw;
    assert_int_equal(fs_sweep_create(test_path("%s/mini.json", dir), &sw, &err), FS_OK);
    assert_int_equal(fs_sweep_parse_values("1,2", &v, &range, &err), FS_OK);
    assert_int_equal(fs_sweep_add_dim(sw, "policies.c.pools[0].gpus", v, range, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "no key \"c\""));
    assert_non_null(strstr(err.msg, "a, b"));
    assert_int_equal(fs_sweep_parse_values("1,2", &v, &range, &err), FS_OK);
    assert_int_equal(fs_sweep_add_dim(sw, "services[nope].replicas", v, range, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "no element named \"nope\""));
    assert_int_equal(fs_sweep_parse_values("1,2", &v, &range, &err), FS_OK);
    assert_int_equal(fs_sweep_add_dim(sw, "policies.a.pools[3].gpus", v, range, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "past the end"));
    /* A value the scenario refuses is caught before anything runs, naming the point. */
    assert_int_equal(fs_sweep_parse_values("4,-1", &v, &range, &err), FS_OK);
    assert_int_equal(fs_sweep_add_dim(sw, "policies.a.pools[0].gpus", v, range, &err), FS_OK);
    assert_int_equal(fs_sweep_finish(sw, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "policies.a.pools[0].gpus=-1"));
    fs_sweep_destroy(sw);
}

/* Point numbering, seeds, and fingerprints. */
static void test_points_and_seeds(void **state)
{
    (void)state;
    fs_sweep *sw = make_sweep("services[chat].arrivals.poisson_rps", "10..30:10");
    assert_int_equal(sw->n_points, 6);
    size_t c[2];
    fs_sweep_coords(sw, 5, c);
    assert_int_equal(c[0], 2);
    assert_int_equal(c[1], 1);
    assert_int_equal(fs_sweep_point_at(sw, c), 5);
    assert_true(fs_sweep_point_seed(sw, 0) == fs_sweep_point_seed(sw, 5)); /* common random numbers */
    sw->common_random_numbers = false;
    assert_true(fs_sweep_point_seed(sw, 0) != fs_sweep_point_seed(sw, 5));
    fs_sweep *other = make_sweep("services[chat].arrivals.poisson_rps", "10..40:10");
    assert_string_not_equal(sw->fingerprint, other->fingerprint);
    fs_sweep *same = make_sweep("services[chat].arrivals.poisson_rps", "10..30:10");
    assert_string_equal(same->fingerprint, sw->fingerprint);
    /* The resolved form reads back to the same sweep (as a merge reads it). */
    json_t *j = fs_sweep_to_json(same);
    fs_sweep *back;
    fs_error err = {0};
    assert_int_equal(fs_sweep_from_json(j, "resolved", NULL, &back, &err), FS_OK);
    assert_string_equal(back->fingerprint, same->fingerprint);
    assert_int_equal(back->n_points, same->n_points);
    /* An edited resolved form is refused. */
    json_object_set_new(j, "seed", json_integer(99));
    fs_sweep *edited;
    assert_int_equal(fs_sweep_from_json(j, "resolved", NULL, &edited, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "edited"));
    json_decref(j);
    fs_sweep_destroy(back);
    fs_sweep_destroy(sw);
    fs_sweep_destroy(other);
    fs_sweep_destroy(same);
}

/* A sweep file over mini (inline) whose policy b deploys chat with its own
 * replicas, varying `vary` (a JSON list of dimensions). */
static int zipped_sweep(const char *vary, fs_sweep **out, fs_error *err)
{
    char *text = test_slurp("%s/mini.json", dir);
    json_t *scenario = json_loads(text, 0, NULL);
    free(text);
    assert_non_null(scenario);
    json_t *b = json_object_get(json_object_get(scenario, "policies"), "b");
    json_object_set_new(b, "services", json_pack("{s:{s:i}}", "chat", "replicas", 3));
    json_object_set_new(scenario, "horizon", json_string("20m"));
    json_t *root = json_pack("{s:s,s:o,s:o}", "schema", FS_SWEEP_SCHEMA, "scenario", scenario, "vary",
                             json_loads(vary, 0, NULL));
    assert_non_null(root);
    int rc = fs_sweep_from_json(root, "zip.json", NULL, out, err);
    json_decref(root);
    return rc;
}

/* A zipped dimension: one point per list of values, its paths set together
 * (a prefill:decode-like trade at a fixed count: b's chat replicas against
 * b's GPUs), named and labelled with "/", carried by the resolved form. */
static void test_zipped_dimension(void **state)
{
    (void)state;
    fs_error err = {0};
    fs_sweep *sw = NULL;
    int rc = zipped_sweep("[{\"paths\": [\"policies.b.services.chat.replicas\", \"policies.b.pools[p].gpus\"],"
                          " \"values\": [[1, 7], [2, 6], [3, 5]]}]",
                          &sw, &err);
    if (rc != FS_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(sw->n_dims, 2); /* and the policy dimension */
    assert_int_equal(sw->n_points, 6);
    const fs_sweep_dim *d = &sw->dims[0];
    assert_string_equal(d->path, "policies.b.services.chat.replicas/policies.b.pools[p].gpus");
    assert_int_equal(d->n_paths, 2);
    assert_false(d->range);
    assert_string_equal(d->labels[0], "1/7");
    assert_string_equal(d->labels[2], "3/5");
    char label[256];
    fs_sweep_point_label(sw, 3, label, sizeof label);
    assert_string_equal(label, "policies.b.services.chat.replicas/policies.b.pools[p].gpus=2/6, policy=b");
    /* Each point's document carries both of its values, and policy b's
     * variant reads them. */
    json_t *work = fs_sweep_work_doc(sw);
    for (size_t point = 1; point < sw->n_points; point += 2) {
        fs_metrics m;
        assert_int_equal(fs_sweep_run(sw, work, point, 0, &m, &err), FS_OK);
        fs_metrics_fini(&m);
        fs_scenario *s = NULL;
        assert_int_equal(fs_scenario_parse_json(work, "point", &s, &err), FS_OK);
        json_t *pair = json_array_get(d->values, point / 2);
        assert_int_equal(s->policies[1]->services[0].replicas, json_integer_value(json_array_get(pair, 0)));
        assert_int_equal(s->policies[1]->pools[0].gpus, json_integer_value(json_array_get(pair, 1)));
        assert_int_equal(s->policies[0]->services[0].replicas, 3);
        fs_scenario_destroy(s);
    }
    json_decref(work);
    /* The resolved form gives the paths back and the same sweep. */
    json_t *j = fs_sweep_to_json(sw);
    json_t *dim = json_array_get(json_object_get(j, "vary"), 0);
    assert_null(json_object_get(dim, "path"));
    assert_int_equal(json_array_size(json_object_get(dim, "paths")), 2);
    fs_sweep *back = NULL;
    assert_int_equal(fs_sweep_from_json(j, "resolved", NULL, &back, &err), FS_OK);
    assert_string_equal(back->fingerprint, sw->fingerprint);
    assert_int_equal(back->n_points, sw->n_points);
    assert_string_equal(back->dims[0].path, d->path);
    assert_string_equal(back->dims[0].paths[1], "policies.b.pools[p].gpus");
    assert_string_equal(back->dims[0].labels[1], "2/6");
    json_decref(j);
    fs_sweep_destroy(back);
    /* The fingerprint covers the zipped values. */
    fs_sweep *other = NULL;
    assert_int_equal(zipped_sweep("[{\"paths\": [\"policies.b.services.chat.replicas\", \"policies.b.pools[p].gpus\"],"
                                  " \"values\": [[1, 7], [2, 6], [3, 4]]}]",
                                  &other, &err),
                     FS_OK);
    assert_string_not_equal(other->fingerprint, sw->fingerprint);
    fs_sweep_destroy(other);
    fs_sweep_destroy(sw);
}

/* A zipped dimension's mistakes, with the sweep file's JSON path. */
static void test_zipped_errors(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"[{\"paths\": [\"services[chat].replicas\", \"policies.b.pools[p].gpus\"], \"values\": [[1, 7], [2]]}]",
         "zip.json: vary[0].values[1]: expected a list of 2 values, one per path, got an array"},
        {"[{\"paths\": [], \"values\": [[1]]}]", "zip.json: vary[0].paths: expected a non-empty array"},
        {"[{\"path\": \"services[chat].replicas\", \"paths\": [\"policies.b.pools[p].gpus\"], \"values\": [[1]]}]",
         "zip.json: vary[0]: \"paths\" and \"path\" exclude each other"},
        {"[{\"paths\": [\"services[chat].replicas\"], \"from\": 1, \"to\": 3}]",
         "zip.json: vary[0]: \"paths\" and \"from\" exclude each other"},
        {"[{\"paths\": [\"services[chat].replicas\"], \"values\": [[1]], \"range\": true}]",
         "zip.json: vary[0].range: a zipped dimension is a list of values, not an ordered range"},
        {"[{\"paths\": [\"services[chat].replicas\", \"policy\"], \"values\": [[1, \"a\"]]}]",
         "\"policy\" is a dimension of its own"},
        {"[{\"path\": \"services[chat].replicas\", \"values\": [1]},"
         " {\"paths\": [\"policies.a.pools[p].gpus\", \"services[chat].replicas\"], \"values\": [[1, 2]]}]",
         "vary \"services[chat].replicas\": varied twice"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        fs_error err = {0};
        fs_sweep *sw = NULL;
        assert_int_equal(zipped_sweep(cases[k][0], &sw, &err), FS_ERR_INPUT);
        assert_null(sw);
        if (!strstr(err.msg, cases[k][1]))
            fail_msg("case %zu: \"%s\" lacks \"%s\"", k, err.msg, cases[k][1]);
    }
}

static void test_constraints(void **state)
{
    (void)state;
    fs_constraint c;
    fs_error err = {0};
    assert_int_equal(fs_constraint_parse("service:chat.p99<=250ms", &c, &err), FS_OK);
    assert_string_equal(c.name, "service:chat.p99");
    assert_int_equal(c.op, FS_CMP_LE);
    assert_true(fabs(c.given - 0.25) < 1e-12);
    fs_constraint_fini(&c);
    assert_int_equal(fs_constraint_parse("fleet.peak_headroom >= 40%", &c, &err), FS_OK);
    assert_int_equal(c.op, FS_CMP_GE);
    assert_true(fabs(c.given - 0.4) < 1e-12);
    fs_constraint_fini(&c);
    assert_int_equal(fs_constraint_parse("training:nightly.queue_p95<10m", &c, &err), FS_OK);
    assert_int_equal(c.op, FS_CMP_LT);
    assert_true(fabs(c.given - 600) < 1e-9);
    fs_constraint_fini(&c);
    assert_int_equal(fs_constraint_parse("service:chat.p99 = 3", &c, &err), FS_ERR_INPUT);
    assert_int_equal(fs_constraint_parse("service:chat.p99<=fast", &c, &err), FS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "fast"));
    assert_int_equal(fs_constraint_parse("<=3", &c, &err), FS_ERR_INPUT);
}

/* ---- the search on synthetic landscapes ---- */

typedef struct landscape {
    const fs_sweep *sw;
    double (*latency)(const size_t *coords); /* the figure constrained, per point */
    double noise;                            /* CI half-width at 2 replications; halves per doubling */
} landscape;

static int evaluate(void *ctx, size_t point, uint32_t reps, fs_metric_row *row, fs_error *err)
{
    (void)err;
    landscape *l = ctx;
    size_t c[8];
    fs_sweep_coords(l->sw, point, c);
    *row = (fs_metric_row){.n = 2, .replications = reps};
    row->names = malloc(2 * sizeof *row->names);
    row->value = malloc(2 * sizeof *row->value);
    row->ci95 = malloc(2 * sizeof *row->ci95);
    row->names[0] = strdup("fleet.cost_usd");
    row->names[1] = strdup("service:chat.p99_ms");
    /* cost grows along both ranges (the second is the cheaper resource) */
    row->value[0] = 10.0 * (double)c[0] + 3.0 * (double)c[1] + (double)c[2];
    row->ci95[0] = 0;
    row->value[1] = l->latency(c);
    row->ci95[1] = l->noise * 2.0 / reps;
    return FS_OK;
}

static double monotone_latency(const size_t *c)
{
    /* falls with both ranges; the list dimension c[2] shifts it */
    return 1000.0 / (1.0 + (double)c[0] + 0.5 * (double)c[1]) + 40.0 * (double)c[2];
}

static fs_sweep *synthetic_sweep(size_t na, size_t nb, size_t nc)
{
    fs_sweep *sw = make_sweep("services[chat].arrivals.poisson_rps", "[1]");
    /* Replace the dimensions by synthetic ones (the evaluator never runs them). */
    for (size_t d = 0; d < sw->n_dims; d++) {
        for (size_t k = 0; k < json_array_size(sw->dims[d].values); k++)
            free(sw->dims[d].labels[k]);
        free(sw->dims[d].labels);
        free(sw->dims[d].path);
        json_decref(sw->dims[d].values);
    }
    sw->n_dims = 0;
    size_t sizes[3] = {na, nb, nc};
    const char *paths[3] = {"a", "b", "c"};
    for (int d = 0; d < 3; d++) {
        json_t *v = json_array();
        for (size_t k = 0; k < sizes[d]; k++)
            json_array_append_new(v, json_integer((json_int_t)k));
        sw->dims = realloc(sw->dims, (sw->n_dims + 1) * sizeof *sw->dims);
        fs_sweep_dim *dim = &sw->dims[sw->n_dims++];
        *dim = (fs_sweep_dim){.path = strdup(paths[d]), .values = v, .range = d < 2,
                              .labels = calloc(sizes[d], sizeof(char *))};
        for (size_t k = 0; k < sizes[d]; k++) {
            char buf[32];
            snprintf(buf, sizeof buf, "%zu", k);
            dim->labels[k] = strdup(buf);
        }
    }
    sw->n_points = na * nb * nc;
    return sw;
}

static void run_plan(fs_sweep *sw, landscape *l, bool grid, double limit, fs_plan *plan)
{
    fs_error err = {0};
    *plan = (fs_plan){.sweep = sw, .replications = 2, .max_replications = 8, .grid = grid};
    plan->constraints = calloc(1, sizeof *plan->constraints);
    char text[64];
    snprintf(text, sizeof text, "service:chat.p99<=%gms", limit);
    assert_int_equal(fs_constraint_parse(text, &plan->constraints[0], &err), FS_OK);
    plan->n_constraints = 1;
    int rc = fs_plan_search(plan, evaluate, l, &err);
    if (rc != FS_OK)
        fail_msg("%s", err.msg);
}

static void test_staircase_matches_grid(void **state)
{
    (void)state;
    fs_sweep *sw = synthetic_sweep(12, 16, 2);
    double limits[] = {60, 100, 150, 333.3, 900, 5};
    for (size_t k = 0; k < sizeof limits / sizeof limits[0]; k++) {
        landscape a = {.sw = sw, .latency = monotone_latency, .noise = 3}, b = a;
        fs_plan fast, brute;
        run_plan(sw, &a, false, limits[k], &fast);
        run_plan(sw, &b, true, limits[k], &brute);
        if (brute.best == SIZE_MAX) {
            assert_int_equal(fast.best, SIZE_MAX);
        } else {
            assert_true(fast.best != SIZE_MAX);
            double ci;
            double fast_cost = fs_plan_value(&fast.evaluated[fast.best], "fleet.cost_usd", &ci);
            double brute_cost = fs_plan_value(&brute.evaluated[brute.best], "fleet.cost_usd", &ci);
            assert_true(fast_cost == brute_cost);
            assert_int_equal(fast.evaluated[fast.best].point, brute.evaluated[brute.best].point);
        }
        /* far fewer evaluations than the grid */
        assert_true(fast.n_evaluated * 3 < brute.n_evaluated);
        assert_int_equal(brute.n_evaluated, sw->n_points);
        /* every frontier point is non-dominated among those judged */
        for (size_t f = 0; f < brute.n_front; f++) {
            double ci, c1 = fs_plan_value(&brute.evaluated[brute.front[f]], "fleet.cost_usd", &ci);
            double l1 = fs_plan_value(&brute.evaluated[brute.front[f]], "service:chat.p99_ms", &ci);
            for (size_t i = 0; i < brute.n_evaluated; i++) {
                double c2 = fs_plan_value(&brute.evaluated[i], "fleet.cost_usd", &ci);
                double l2 = fs_plan_value(&brute.evaluated[i], "service:chat.p99_ms", &ci);
                assert_false((c2 <= c1 && l2 < l1) || (c2 < c1 && l2 <= l1));
            }
        }
        fs_plan_fini(&fast);
        fs_plan_fini(&brute);
    }
    fs_sweep_destroy(sw);
}

/* Near the limit the interval straddles it: more replications, then a verdict. */
static double near_limit(const size_t *c)
{
    return c[0] == 3 && c[1] == 0 ? 99.0 : monotone_latency(c);
}

static void test_more_replications_near_a_limit(void **state)
{
    (void)state;
    fs_sweep *sw = synthetic_sweep(6, 1, 1);
    landscape l = {.sw = sw, .latency = near_limit, .noise = 2.5};
    fs_plan plan;
    run_plan(sw, &l, true, 100, &plan);
    for (size_t i = 0; i < plan.n_evaluated; i++) {
        const fs_plan_point *e = &plan.evaluated[i];
        if (e->point == 3) {
            /* 99 +/- 2.5 straddles 100 at 2 replications; +/- 0.625 at 8 does not */
            assert_int_equal(e->replications, 8);
            assert_int_equal(e->verdict, FS_VERDICT_MEETS);
        } else {
            assert_int_equal(e->replications, 2);
        }
    }
    assert_int_equal(plan.evaluated[plan.best].point, 3);
    fs_plan_fini(&plan);
    /* Unresolvable: counts as not meeting. */
    landscape wide = {.sw = sw, .latency = near_limit, .noise = 20};
    run_plan(sw, &wide, true, 100, &plan);
    for (size_t i = 0; i < plan.n_evaluated; i++)
        if (plan.evaluated[i].point == 3)
            assert_int_equal(plan.evaluated[i].verdict, FS_VERDICT_UNSURE);
    assert_true(plan.best == SIZE_MAX || plan.evaluated[plan.best].point != 3);
    fs_plan_fini(&plan);
    fs_sweep_destroy(sw);
}

/* The cheapest points have no data (nothing completed): they fail at once,
 * however many replications would follow, and are never the answer. */
static double none_when_cheap(const size_t *c)
{
    return c[0] < 2 ? NAN : monotone_latency(c);
}

static void test_no_data_never_meets(void **state)
{
    (void)state;
    fs_sweep *sw = synthetic_sweep(6, 1, 1);
    landscape l = {.sw = sw, .latency = none_when_cheap, .noise = 2.5};
    fs_plan plan;
    run_plan(sw, &l, true, 5000, &plan);
    for (size_t i = 0; i < plan.n_evaluated; i++) {
        const fs_plan_point *e = &plan.evaluated[i];
        assert_int_equal(e->verdict, e->point < 2 ? FS_VERDICT_FAILS : FS_VERDICT_MEETS);
        assert_int_equal(e->replications, 2);
    }
    assert_int_equal(plan.evaluated[plan.best].point, 2);
    fs_plan_fini(&plan);
    fs_sweep_destroy(sw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_roundtrip),
        cmocka_unit_test(test_run_matches_scenario),
        cmocka_unit_test(test_paths_and_values),
        cmocka_unit_test(test_points_and_seeds),
        cmocka_unit_test(test_zipped_dimension),
        cmocka_unit_test(test_zipped_errors),
        cmocka_unit_test(test_constraints),
        cmocka_unit_test(test_staircase_matches_grid),
        cmocka_unit_test(test_more_replications_near_a_limit),
        cmocka_unit_test(test_no_data_never_meets),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
