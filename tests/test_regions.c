/*
 * test_regions — regions: time zones, spill, per-region figures.
 *
 * A region's "utc_offset" shifts its services' traffic profiles (hours,
 * weekdays, daily levels) from local time onto the simulator's UTC clock:
 * checked on the rate itself, on a training stream's daily time, and through
 * runs, where the SLO-breach windows (the heat map's data) of an
 * under-provisioned service move 9 hours earlier at +9h.  A service's
 * "spill" sends a saturated arrival to a free slot of another region's
 * service: a hand-worked trace gives the exact requests spilled and their
 * latencies (service time + round trip), against queueing without it.  The
 * regions' costs add up to the fleet's, and results.json shows regions only
 * for a scenario of more than one.  Bad input is refused with its path.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "arrivals.h"
#include "results.h"
#include "results_json.h"
#include "scenario.h"
#include "testutil.h"

#define HOUR 3600.0

/* One service on one pool in region r at offset %s, peaking x4 at 14:00
 * local; %s the rest of the top level. */
#define TZ_DOC                                                                                                     \
    "{\"schema\": \"fleetsim/1\", \"name\": \"tz\", \"horizon\": \"3d\", \"warmup\": \"1h\", \"window\": \"15m\"," \
    " \"seed\": 11, \"regions\": {\"r\": {\"utc_offset\": \"%s\"}},"                                               \
    " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 1, \"region\": \"r\"}],"                 \
    " \"services\": [{\"name\": \"chat\", \"region\": \"r\", \"arrivals\": {\"poisson_rps\": 3,"                  \
    "   \"diurnal\": [1,1,1,1,1,1,1,1,1,1,1,1,1,1,4,1,1,1,1,1,1,1,1,1]},"                                          \
    "   \"service_time\": {\"deterministic\": {\"value\": \"100ms\"}}, \"replicas\": 1,"                           \
    "   \"slo\": {\"p99_ms\": 500, \"window\": \"15m\"}}]}"

/* The rate of service i of s at clock time t (UTC), and its piece's end. */
static double rate_at(const fs_scenario *s, size_t i, double t, double *end)
{
    fs_arrival_profile prof = {.spec = &s->services[i].arrivals, .start_weekday = s->start_weekday};
    double e;
    double r = fs_arrivals_rate(&prof, t, end ? end : &e);
    return r;
}

/* Hours, weekdays and daily levels are local; pieces end at local hours. */
static void test_local_time_rate(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"3d\", \"start_weekday\": \"Friday\","
        " \"regions\": {\"tokyo\": {\"utc_offset\": \"+9h\"}, \"ny\": {\"utc_offset\": \"-5h\"},"
        "   \"mumbai\": {\"utc_offset\": \"+5h30m\"}},"
        " \"pools\": [{\"name\": \"t\", \"gpu\": \"L4-24GB\", \"gpus\": 4, \"region\": \"tokyo\"},"
        "   {\"name\": \"n\", \"gpu\": \"L4-24GB\", \"gpus\": 4, \"region\": \"ny\"},"
        "   {\"name\": \"m\", \"gpu\": \"L4-24GB\", \"gpus\": 4, \"region\": \"mumbai\"}],"
        " \"services\": ["
        "  {\"name\": \"peak\", \"pool\": \"t\", \"region\": \"tokyo\", \"arrivals\": {\"poisson_rps\": 1,"
        "    \"diurnal\": [1,1,1,1,1,1,1,1,1,1,1,1,1,1,3,1,1,1,1,1,1,1,1,1]},"
        "    \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}}, \"replicas\": 1},"
        "  {\"name\": \"week\", \"pool\": \"t\", \"region\": \"tokyo\", \"arrivals\": {\"poisson_rps\": 1,"
        "    \"weekend\": [2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2]},"
        "    \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}}, \"replicas\": 1},"
        "  {\"name\": \"levels\", \"pool\": \"n\", \"region\": \"ny\", \"arrivals\": {\"poisson_rps\": 1,"
        "    \"daily_levels\": [1, 5]},"
        "    \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}}, \"replicas\": 1},"
        "  {\"name\": \"half\", \"pool\": \"m\", \"region\": \"mumbai\", \"arrivals\": {\"poisson_rps\": 1,"
        "    \"diurnal\": [1,1,1,1,1,1,1,1,1,1,1,1,1,1,3,1,1,1,1,1,1,1,1,1]},"
        "    \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}}, \"replicas\": 1}],"
        " \"training\": [{\"name\": \"nightly\", \"region\": \"tokyo\", \"submit\": {\"daily_at\": [\"02:00\", \"20:00\"]},"
        "   \"gang\": 1, \"work_gpu_hours\": 1}]}");
    assert_int_equal(s->n_regions, 3);
    assert_string_equal(s->regions[0].name, "tokyo");
    assert_true(s->regions[1].utc_offset_s == -5 * HOUR && s->regions[2].utc_offset_s == 5.5 * HOUR);
    double end;
    /* 14:00 in Tokyo is 05:00 UTC. */
    assert_true(rate_at(s, 0, 5 * HOUR - 1, &end) == 1 && end == 5 * HOUR);
    assert_true(rate_at(s, 0, 5 * HOUR, &end) == 3 && end == 6 * HOUR);
    assert_true(rate_at(s, 0, 6 * HOUR, NULL) == 1);
    /* Mumbai's pieces end on the half hour UTC: 14:00 IST is 08:30 UTC. */
    assert_true(rate_at(s, 3, 8 * HOUR, &end) == 1 && end == 8.5 * HOUR);
    assert_true(rate_at(s, 3, 8.5 * HOUR, &end) == 3 && end == 9.5 * HOUR);
    /* Friday at t = 0 UTC: Saturday starts in Tokyo at 15:00 UTC, and ends
     * there at 15:00 UTC on Saturday. */
    assert_true(rate_at(s, 1, 15 * HOUR - 1, NULL) == 1);
    assert_true(rate_at(s, 1, 15 * HOUR, NULL) == 2);
    assert_true(rate_at(s, 1, 24 * HOUR + 15 * HOUR - 1, NULL) == 2);
    assert_true(rate_at(s, 1, 48 * HOUR + 15 * HOUR, NULL) == 1); /* Monday in Tokyo */
    /* New York's day 1 starts at 05:00 UTC on day 1; before its day 0 (t <
     * 5 h) the first level holds. */
    assert_true(rate_at(s, 2, 0, NULL) == 1);
    assert_true(rate_at(s, 2, 29 * HOUR - 1, NULL) == 1);
    assert_true(rate_at(s, 2, 29 * HOUR, NULL) == 5);
    /* 02:00 and 20:00 in Tokyo are 17:00 and 11:00 UTC, sorted. */
    assert_int_equal(s->training[0].n_daily, 2);
    assert_true(s->training[0].daily_at_s[0] == 11 * HOUR && s->training[0].daily_at_s[1] == 17 * HOUR);
    printf("  +9h: x3 from %g h UTC; +5h30m: from %g h; Tokyo's Saturday from %g h; NY's day 1 from %g h; "
           "daily 02:00/20:00 JST at %g/%g h UTC\n",
           5.0, 8.5, 15.0, 29.0, s->training[0].daily_at_s[1] / HOUR, s->training[0].daily_at_s[0] / HOUR);
    fs_scenario_destroy(s);
}

/* The UTC hours (window starts) of every breached SLO window of a run. */
static void breach_hours(const char *offset, unsigned long hours[24], unsigned long *total)
{
    fs_scenario *s = test_scenario(TZ_DOC, offset);
    fs_results *r = test_run(s);
    const fs_service_rep *rep = fs_results_service_rep(r, 0, 0, 0);
    memset(hours, 0, 24 * sizeof *hours);
    *total = rep->n_slo_breaches;
    for (size_t k = 0; k < rep->n_slo_breaches; k++)
        hours[(size_t)fmod(floor(rep->slo_breach_starts[k] / HOUR), 24)]++;
    printf("  utc_offset %-4s breached windows by UTC hour:", offset);
    for (int h = 0; h < 24; h++)
        if (hours[h])
            printf(" %02d:00 x%lu", h, hours[h]);
    printf(" (%lu)\n", *total);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* The busy hour (14:00 local, x4 on a replica that serves 10/s) breaches
 * the SLO for the hour and while its backlog drains: at +0h from 14:00
 * UTC, at +9h nine hours earlier (05:00 UTC), at -5h five hours later. */
static void test_breach_heatmap_shift(void **state)
{
    (void)state;
    static const struct {
        const char *offset;
        int peak;
    } cases[] = {{"+0h", 14}, {"+9h", 5}, {"-5h", 19}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        unsigned long hours[24], total;
        breach_hours(cases[c].offset, hours, &total);
        /* Three days of 15-minute windows: each day's busy hour breaches its
         * four windows and the next hour's first while the backlog drains. */
        assert_true(hours[cases[c].peak] >= 3 * 4 - 1);
        unsigned long near = hours[cases[c].peak] + hours[(cases[c].peak + 1) % 24];
        assert_true(near == total);
    }
}

/* Spill: "a" (eu, one replica, 100 ms) gets three requests 10 ms apart
 * every 10 s; "b" (us, one replica, idle) takes what "a" spills.  With
 * when_queue 1: the first is served (100 ms), the second waits (190 ms),
 * the third finds one waiting and spills (100 ms + 40 ms round trip =
 * 140 ms).  Without spill the third waits for both (280 ms). */
#define SPILL_DOC                                                                                                  \
    "{\"schema\": \"fleetsim/1\", \"name\": \"spill\", \"horizon\": \"100s\", \"window\": \"10s\","                 \
    " \"regions\": {\"eu\": {\"utc_offset\": \"+1h\"}, \"us\": {\"utc_offset\": \"-5h\"}},"                        \
    " \"pools\": [{\"name\": \"pe\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 1, \"region\": \"eu\"},"                \
    "   {\"name\": \"pu\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 1, \"region\": \"us\"}],"                          \
    " \"services\": [{\"name\": \"a\", \"pool\": \"pe\", \"region\": \"eu\","                                       \
    "   \"arrivals\": {\"trace\": {\"file\": \"%s\", \"time\": \"t\"}},"                                           \
    "   \"service_time\": {\"deterministic\": {\"value\": \"100ms\"}}, \"replicas\": 1 %s},"                       \
    "  {\"name\": \"b\", \"pool\": \"pu\", \"region\": \"us\", \"arrivals\": {\"poisson_rps\": 0},"                 \
    "   \"service_time\": {\"deterministic\": {\"value\": \"100ms\"}}, \"replicas\": 1}]}"

static fs_results *spill_run(const char *csv, const char *spill, fs_scenario **s)
{
    *s = test_scenario(SPILL_DOC, csv, spill);
    return test_run(*s);
}

static void test_spill_hand_worked(void **state)
{
    (void)state;
    char dir[256];
    assert_int_equal(test_tmpdir(dir, sizeof dir, "fs-regions"), 0);
    char *csv = strdup(test_path("%s/a.csv", dir));
    char text[4096] = "t\n";
    for (int k = 0; k < 10; k++) /* bursts at 1 s, 11 s, ..., 91 s */
        snprintf(text + strlen(text), sizeof text - strlen(text), "%d.00\n%d.01\n%d.02\n", 1 + 10 * k, 1 + 10 * k,
                 1 + 10 * k);
    test_write(csv, text);
    static const double with[3] = {100, 140, 190}, without[3] = {100, 190, 280};
    for (int spill = 1; spill >= 0; spill--) {
        fs_scenario *s;
        fs_results *r = spill_run(csv, spill ? ", \"spill\": {\"to\": \"b\", \"added_latency\": \"40ms\","
                                               " \"when_queue\": 1}"
                                             : "",
                                  &s);
        const fs_service_rep *a = fs_results_service_rep(r, 0, 0, 0);
        uint64_t a_out = a->spill_out, a_done = a->completed, a_req = a->requests;
        const fs_service_rep *b = fs_results_service_rep(r, 0, 0, 1);
        assert_int_equal(a_req, 30);
        assert_int_equal(a_done, 30);
        assert_int_equal(a_out, spill ? 10 : 0);
        assert_int_equal(b->spill_in, spill ? 10 : 0);
        assert_int_equal(b->requests, 0);
        assert_int_equal(b->completed, 0);
        /* The spilled requests are a's: its latencies hold them. */
        const double *want = spill ? with : without;
        fs_service_summary sum;
        assert_int_equal(fs_results_service_summary(r, 0, 0, &sum), 0);
        double mean = (want[0] + want[1] + want[2]) / 3;
        printf("  %s: a spilled %llu of %llu, b took in %llu; a's mean %.4g ms (hand: %.4g), p50 %.4g (hand: %g), "
               "max %.4g (hand: %g); b's pool busy %.3g GPU-s (hand: %g)\n",
               spill ? "with spill" : "without", (unsigned long long)a_out, (unsigned long long)a_req,
               (unsigned long long)b->spill_in, sum.merged_mean_ms, mean, sum.merged_p50_ms, want[1],
               sum.merged_max_ms, want[2], r->policies[0].reps[0].pools[1].busy_gpu_s, spill ? 1.0 : 0.0);
        assert_true(fabs(sum.merged_mean_ms - mean) < 1e-3 * mean);
        assert_true(fabs(sum.merged_p50_ms - want[1]) < 0.01 * want[1]);
        assert_true(fabs(sum.merged_max_ms - want[2]) < 0.01 * want[2]);
        assert_true(fabs(r->policies[0].reps[0].pools[1].busy_gpu_s - (spill ? 1.0 : 0.0)) < 1e-9);
        fs_summary out, in;
        assert_int_equal(fs_results_spill_summary(r, 0, 0, &out, &in), 0);
        assert_true(out.mean == (spill ? 10 : 0));
        fs_results_destroy(r);
        fs_scenario_destroy(s);
    }
    free(csv);
    test_rmdir(dir);
}

/* Three regions of pools at different prices: each region's cost, GPU-hours
 * and requests, per replication, add up to the fleet's; results.json has
 * "regions" for it and none for a one-region scenario. */
static void test_region_costs_add_up(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"2h\", \"replications\": 2, \"seed\": 5,"
        " \"regions\": {\"eu\": {\"utc_offset\": \"+1h\"}, \"us\": {\"utc_offset\": \"-5h\"},"
        "   \"ap\": {\"utc_offset\": \"+9h\"}},"
        " \"pools\": [{\"name\": \"e1\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 2, \"region\": \"eu\"},"
        "   {\"name\": \"e2\", \"gpu\": \"L4-24GB\", \"gpus\": 3, \"region\": \"eu\", \"price\": \"spot\"},"
        "   {\"name\": \"u\", \"gpu\": \"A100-SXM4-80GB\", \"gpus\": 2, \"region\": \"us\"},"
        "   {\"name\": \"a\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 1, \"region\": \"ap\","
        "    \"mig\": [\"3g.40gb\", \"3g.40gb\"]}],"
        " \"services\": ["
        "  {\"name\": \"x\", \"pool\": \"e1\", \"region\": \"eu\", \"arrivals\": {\"poisson_rps\": 20},"
        "   \"service_time\": {\"exponential\": {\"mean\": \"50ms\"}}, \"replicas\": 2},"
        "  {\"name\": \"y\", \"pool\": \"u\", \"region\": \"us\", \"arrivals\": {\"poisson_rps\": 10},"
        "   \"service_time\": {\"exponential\": {\"mean\": \"50ms\"}}, \"replicas\": 1},"
        "  {\"name\": \"z\", \"pool\": \"a\", \"region\": \"ap\", \"arrivals\": {\"poisson_rps\": 5},"
        "   \"service_time\": {\"exponential\": {\"mean\": \"50ms\"}}, \"replicas\": 2}]}");
    fs_results *r = test_run(s);
    for (uint32_t k = 0; k < 2; k++) {
        double fleet[FS_FIG_COUNT], sum[FS_RFIG_COUNT] = {0}, region[FS_RFIG_COUNT], requests = 0;
        fs_results_pool_figures(r, 0, k, SIZE_MAX, fleet);
        for (size_t g = 0; g < s->n_regions; g++) {
            fs_results_region_figures(r, 0, k, g, region);
            for (int f = 0; f < FS_RFIG_COUNT; f++)
                sum[f] += region[f];
            printf("  replication %u region %s: %.4g GPU-h, %.4g USD, utilization %.3g, %.0f requests\n", k,
                   s->regions[g].name, region[FS_RFIG_GPU_H], region[FS_RFIG_COST], region[FS_RFIG_UTIL],
                   region[FS_RFIG_REQUESTS]);
        }
        for (size_t i = 0; i < s->n_services; i++)
            requests += (double)fs_results_service_rep(r, 0, k, i)->requests;
        printf("  replication %u fleet: %.4g GPU-h, %.4g USD; regions sum to %.4g GPU-h, %.4g USD\n", k,
               fleet[FS_FIG_GPU_H], fleet[FS_FIG_COST], sum[FS_RFIG_GPU_H], sum[FS_RFIG_COST]);
        assert_true(fabs(sum[FS_RFIG_COST] - fleet[FS_FIG_COST]) < 1e-9 * fleet[FS_FIG_COST]);
        assert_true(fabs(sum[FS_RFIG_GPU_H] - fleet[FS_FIG_GPU_H]) < 1e-9 * fleet[FS_FIG_GPU_H]);
        assert_true(fabs(sum[FS_RFIG_BUSY_H] - fleet[FS_FIG_BUSY_H]) < 1e-9 * fleet[FS_FIG_BUSY_H]);
        assert_true(sum[FS_RFIG_REQUESTS] == requests && requests > 0);
    }
    fs_region_summary eu;
    assert_int_equal(fs_results_region_summary(r, 0, 0, &eu), 0);
    assert_true(eu.cost_usd.mean > 0 && eu.utilization.mean > 0 && eu.utilization.mean < 1);
    json_t *doc = fs_results_json(r, false);
    const json_t *regions = json_object_get(json_array_get(json_object_get(doc, "policies"), 0), "regions");
    assert_int_equal(json_array_size(regions), 3);
    assert_string_equal(test_json_str(json_array_get(regions, 2), "name"), "ap");
    assert_true(test_json_num(json_array_get(regions, 2), "utc_offset_s") == 9 * HOUR);
    json_decref(doc);
    fs_results_destroy(r);
    fs_scenario_destroy(s);

    /* One region (regions named or not): no "regions", no "region" keys. */
    s = test_scenario(TZ_DOC, "+3h");
    assert_int_equal(s->n_regions, 1);
    s->horizon_s = 2 * HOUR;
    r = test_run(s);
    doc = fs_results_json(r, false);
    json_t *pol = json_array_get(json_object_get(doc, "policies"), 0);
    assert_null(json_object_get(pol, "regions"));
    assert_null(json_object_get(json_array_get(json_object_get(pol, "services"), 0), "region"));
    assert_null(json_object_get(json_array_get(json_object_get(pol, "services"), 0), "spill"));
    json_decref(doc);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* A two-region document; %s go into regions, a's and b's keys, and the top. */
#define BAD_DOC                                                                                                    \
    "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\" %s,"                                                         \
    " \"pools\": [{\"name\": \"pe\", \"gpu\": \"L4-24GB\", \"gpus\": 2, \"region\": \"eu\"},"                      \
    "   {\"name\": \"pu\", \"gpu\": \"L4-24GB\", \"gpus\": 2, \"region\": \"us\"}],"                                \
    " \"services\": [{\"name\": \"a\", \"pool\": \"pe\", \"region\": \"eu\", \"arrivals\": {\"poisson_rps\": 1},"  \
    "   \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}}, \"replicas\": 1 %s},"                        \
    "  {\"name\": \"b\", \"pool\": \"pu\", \"region\": \"%s\", \"arrivals\": {\"poisson_rps\": 1},"                \
    "   \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}}, \"replicas\": 1 %s}]}"

static void refused(const char *top, const char *a, const char *b_region, const char *b, const char *want)
{
    char text[4096];
    snprintf(text, sizeof text, BAD_DOC, top, a, b_region, b);
    test_parse_refused(text, "test", FS_ERR_INPUT, want);
}

#define REGIONS ", \"regions\": {\"eu\": {\"utc_offset\": \"+1h\"}, \"us\": {\"utc_offset\": \"-5h\"}}"

static void test_bad_input(void **state)
{
    (void)state;
    /* Without "regions" any name goes (UTC); with it, only those listed. */
    fs_scenario *s = test_scenario(BAD_DOC, "", "", "us", "");
    assert_int_equal(s->n_regions, 2);
    assert_true(s->regions[0].utc_offset_s == 0 && s->regions[1].utc_offset_s == 0);
    fs_scenario_destroy(s);
    refused(REGIONS, "", "uss", "",
            "test: services[1].region: expected a region \"regions\" lists (\"eu\", \"us\"), got \"uss\" (did you "
            "mean \"us\"?)");
    refused(", \"regions\": {\"eu\": {\"utc_offset\": \"+15h\"}, \"us\": {}}", "", "us", "",
            "test: regions.eu.utc_offset: expected an offset from -12h to +14h");
    refused(", \"regions\": {\"eu\": {\"utc_offset\": \"-13h\"}, \"us\": {}}", "", "us", "",
            "test: regions.eu.utc_offset: expected an offset from -12h to +14h");
    refused(", \"regions\": {\"eu\": {\"utc_offset\": \"+1x\"}, \"us\": {}}", "", "us", "",
            "test: regions.eu.utc_offset: expected a signed duration like \"+9h\"");
    refused(", \"regions\": {\"eu\": {\"offset\": \"+1h\"}, \"us\": {}}", "", "us", "", "unknown key \"offset\"");
    refused(", \"regions\": {}", "", "us", "", "test: regions: expected an object of named regions");
    /* A service's pool in another region. */
    refused(REGIONS, "", "eu", "",
            "test: services[1].region: service \"b\" is in region \"eu\" but its pool \"pu\" is in region \"us\"");
    /* Spill: a missing service, itself, its own region, a cycle. */
    refused(REGIONS, ", \"spill\": {\"to\": \"c\", \"added_latency\": \"40ms\"}", "us", "",
            "test: services[0].spill.to: expected the name of another service, got \"c\"");
    refused(REGIONS, ", \"spill\": {\"to\": \"a\", \"added_latency\": \"40ms\"}", "us", "",
            "test: services[0].spill.to: service \"a\" cannot spill to itself");
    refused(REGIONS, ", \"spill\": {\"to\": \"b\"}", "us", "",
            "test: services[0].spill: missing required key \"added_latency\"");
    refused(REGIONS, ", \"spill\": {\"to\": \"b\", \"added_latency\": \"40ms\"}", "us",
            ", \"spill\": {\"to\": \"a\", \"added_latency\": \"40ms\"}",
            "test: services[0].spill: a spill cycle (\"a\" -> \"b\" -> \"a\")");
    char text[4096];
    snprintf(text, sizeof text, BAD_DOC, "", ", \"spill\": {\"to\": \"b\", \"added_latency\": \"40ms\"}", "eu", "");
    /* (b's pool is in us: refused for that first.) */
    test_parse_refused(text, "test", FS_ERR_INPUT, "services[1].region");
    /* A policy may not move a service to another region. */
    test_parse_refused("{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\","
                       " \"policies\": {\"x\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"L4-24GB\", \"gpus\": 1}],"
                       "   \"services\": {\"a\": {\"region\": \"us\"}}}},"
                       " \"services\": [{\"name\": \"a\", \"arrivals\": {\"poisson_rps\": 1},"
                       "   \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}}, \"replicas\": 1}]}",
                       "test", FS_ERR_INPUT, "policies.x.services.a.region");
    /* A same-region spill. */
    test_parse_refused("{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\","
                       " \"pools\": [{\"name\": \"p\", \"gpu\": \"L4-24GB\", \"gpus\": 2}],"
                       " \"services\": [{\"name\": \"a\", \"arrivals\": {\"poisson_rps\": 1},"
                       "   \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}}, \"replicas\": 1,"
                       "   \"spill\": {\"to\": \"b\", \"added_latency\": \"1ms\"}},"
                       "  {\"name\": \"b\", \"arrivals\": {\"poisson_rps\": 1},"
                       "   \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}}, \"replicas\": 1}]}",
                       "test", FS_ERR_INPUT, "services[0].spill.to: service \"b\" is in this service's region");
}

/* Through the command line: a bad region is bad input (exit 2). */
static void test_cli_exit_code(void **state)
{
    (void)state;
    char dir[256];
    assert_int_equal(test_tmpdir(dir, sizeof dir, "fs-regions-cli"), 0);
    char text[4096];
    snprintf(text, sizeof text, BAD_DOC, REGIONS, "", "mars", "");
    test_write(test_path("%s/s.json", dir), text);
    assert_int_equal(test_fleetsim(dir, "validate %s/s.json", dir), 2);
    test_stderr_has(dir, "services[1].region: expected a region \"regions\" lists");
    test_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_local_time_rate),    cmocka_unit_test(test_breach_heatmap_shift),
        cmocka_unit_test(test_spill_hand_worked),  cmocka_unit_test(test_region_costs_add_up),
        cmocka_unit_test(test_bad_input),          cmocka_unit_test(test_cli_exit_code),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
