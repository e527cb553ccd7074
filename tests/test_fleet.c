/*
 * test_fleet — the fleet models: placement onto whole GPUs, MIG slices and
 * time-sliced seats, speed scaling, pool contention and busy accounting,
 * cost, energy and chargeback, policies on common random numbers, and the
 * shipped fragmentation scenario.
 *
 * Every expected figure is worked out by hand from the catalog (models/hardware/gpu.c,
 * typed in here rather than read back, so a wrong catalog entry fails):
 *   H100-SXM-80GB: 80 GB, 132 SMs, $6.88 on-demand, $2.46 spot, 70 W / 700 W
 *   L4-24GB:       24 GB,  58 SMs, $0.74 on-demand, $0.30 spot, 16 W / 72 W
 *   H100 MIG:      1g.10gb 9.75 GB 16 SMs, 1g.20gb 19.62 GB 26 SMs,
 *                  2g.20gb 19.62 GB 32 SMs, 3g.40gb 39.50 GB 60 SMs
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

#include "testutil.h"

#include "placement.h"
#include "pool.h"
#include "results.h"
#include "run.h"
#include "scenario.h"

#define H100 "H100-SXM-80GB"
#define H100_SMS 132.0
#define H100_PRICE 6.88
#define H100_IDLE_W 70.0
#define H100_BUSY_W 700.0
#define L4_SMS 58.0
#define L4_PRICE 0.74
#define L4_SPOT 0.30
#define L4_IDLE_W 16.0
#define L4_BUSY_W 72.0
#define MEM_1G10 9.75
#define MEM_2G20 19.62
#define MEM_3G40 39.50

/* A service with light traffic: the JSON members after "name". */
#define LIGHT "\"arrivals\": {\"poisson_rps\": 1}, \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}}"

/* ---- helpers -------------------------------------------------------------- */

/* Runs s expecting FS_ERR_INPUT; the message goes to msg. */
static void run_refused(const fs_scenario *s, char *msg, size_t size)
{
    fs_results *r = NULL;
    fs_error err = {0};
    int rc = fs_run_scenario(s, &r, &err);
    printf("  refused: %s\n", err.msg);
    assert_int_equal(rc, FS_ERR_INPUT);
    assert_int_equal(err.code, FS_ERR_INPUT);
    assert_null(r);
    snprintf(msg, size, "%s", err.msg);
}

static void assert_close(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("got %.12g, want %.12g (tolerance %g)", got, want, tol);
}

static void assert_rel(double got, double want, double rel)
{
    if (!(fabs(got - want) <= rel * fabs(want)))
        fail_msg("got %.15g, want %.15g (relative tolerance %g)", got, want, rel);
}

static void assert_kind(const fs_placement *p, size_t service, uint32_t replica, const char *kind)
{
    const fs_unit *u = fs_placement_unit(p, service, replica);
    assert_non_null(u);
    if (strcmp(u->kind, kind) != 0)
        fail_msg("services[%zu] replica %u is on %s, want %s", service, replica, u->kind, kind);
    assert_int_equal(u->service, service);
    assert_int_equal(u->replica, replica);
}

/* ---- 1. best fit on a MIG layout, and stranded memory ---------------------- */

static void test_best_fit_mig_layout(void **state)
{
    (void)state;
    /* Services listed smallest first: placement must still go largest first. */
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\","
        " \"pools\": [{\"name\": \"mig\", \"gpu\": \"" H100 "\", \"gpus\": 1,"
        "   \"mig\": [\"1g.10gb\", \"1g.10gb\", \"3g.40gb\", \"2g.20gb\"]}],"
        " \"services\": ["
        "  {\"name\": \"small\", \"memory_gb\": 5, " LIGHT ", \"replicas\": 2},"
        "  {\"name\": \"mid\", \"memory_gb\": 15, " LIGHT ", \"replicas\": 1},"
        "  {\"name\": \"big\", \"memory_gb\": 30, " LIGHT ", \"replicas\": 1}]}");
    fs_placement *p = test_place(s);
    assert_kind(p, 2, 0, "3g.40gb");
    assert_kind(p, 1, 0, "2g.20gb");
    assert_kind(p, 0, 0, "1g.10gb");
    assert_kind(p, 0, 1, "1g.10gb");
    assert_ptr_not_equal(fs_placement_unit(p, 0, 0), fs_placement_unit(p, 0, 1));

    const fs_pool_units *pu = &p->pools[0];
    assert_int_equal(pu->n_units, 4);
    assert_int_equal(pu->free_units, 0);
    assert_close(pu->used_memory_gb, 30 + 15 + 5 + 5, 1e-9);
    /* 1 + 1 + 4 + 2 = 8 memory slices: none unused; 1 + 1 + 3 + 2 = 7 compute slices. */
    double want = (MEM_3G40 - 30) + (MEM_2G20 - 15) + 2 * (MEM_1G10 - 5);
    printf("  stranded %.4f GB, hand sum %.4f GB\n", pu->stranded_memory_gb, want);
    assert_close(pu->stranded_memory_gb, want, 1e-9);
    assert_close(pu->stranded_sm_share, 0, 1e-12);
    fs_placement_destroy(p);
    fs_scenario_destroy(s);
}

/* A layout that leaves memory slices unused and a free unit too small for
 * any replica: both count as stranded. */
static void test_stranded_unused_slices_and_small_free_unit(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\","
        " \"pools\": [{\"name\": \"mig\", \"gpu\": \"" H100 "\", \"gpus\": 2,"
        "   \"mig\": [\"3g.40gb\", \"1g.10gb\"]}],"
        " \"services\": [{\"name\": \"big\", \"memory_gb\": 30, " LIGHT ", \"replicas\": 2}]}");
    fs_placement *p = test_place(s);
    assert_kind(p, 0, 0, "3g.40gb");
    assert_kind(p, 0, 1, "3g.40gb");
    assert_int_not_equal(fs_placement_unit(p, 0, 0)->gpu, fs_placement_unit(p, 0, 1)->gpu);
    const fs_pool_units *pu = &p->pools[0];
    assert_int_equal(pu->n_units, 4);
    assert_int_equal(pu->free_units, 2);
    /* Per GPU: 9.5 inside the 3g, the free 1g.10gb (9.75 < 30), and 8 - 5 = 3
     * unused memory slices of 10 GB. */
    double want = 2 * ((MEM_3G40 - 30) + MEM_1G10 + 3 * 80.0 / 8);
    assert_close(pu->stranded_memory_gb, want, 1e-9);
    /* Per GPU: the free 1g's 16 SMs and 7 - 4 = 3 unused compute slices. */
    assert_close(pu->stranded_sm_share, 2 * (16 / H100_SMS + 3.0 / 7), 1e-12);
    fs_placement_destroy(p);
    fs_scenario_destroy(s);
}

/* ---- 2. first fit vs best fit --------------------------------------------------- */

static fs_scenario *one_service_on_layout(const char *layout, const char *policy, double gb)
{
    return test_scenario("{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\","
                    " \"pools\": [{\"name\": \"mig\", \"gpu\": \"" H100 "\", \"gpus\": 1,"
                    "   \"mig\": %s, \"placement\": \"%s\"}],"
                    " \"services\": [{\"name\": \"s\", \"memory_gb\": %g, " LIGHT
                    ", \"replicas\": 1}]}",
                    layout, policy, gb);
}

static void check_policy(const char *layout, const char *policy, double gb, const char *want)
{
    fs_scenario *s = one_service_on_layout(layout, policy, gb);
    fs_placement *p = test_place(s);
    printf("  %s, %s, %g GB -> %s\n", layout, policy, gb, fs_placement_unit(p, 0, 0)->kind);
    assert_kind(p, 0, 0, want);
    fs_placement_destroy(p);
    fs_scenario_destroy(s);
}

static void test_first_fit_vs_best_fit(void **state)
{
    (void)state;
    const char *layout = "[\"3g.40gb\", \"2g.20gb\", \"1g.10gb\"]";
    check_policy(layout, "first_fit", 5, "3g.40gb");
    check_policy(layout, "best_fit", 5, "1g.10gb");
    check_policy(layout, "first_fit", 15, "3g.40gb");
    check_policy(layout, "best_fit", 15, "2g.20gb");
    /* Equal memory (19.62 GB): best fit keeps the bigger slice, fewer SMs first. */
    const char *tie = "[\"2g.20gb\", \"1g.20gb\"]";
    check_policy(tie, "first_fit", 15, "2g.20gb");
    check_policy(tie, "best_fit", 15, "1g.20gb");

    /* Largest footprint first, whatever the service order: first fit placing
     * in service order would put the 15 GB replica on the 3g.40gb and leave
     * the 30 GB one nowhere to go. */
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\","
        " \"pools\": [{\"name\": \"mig\", \"gpu\": \"" H100 "\", \"gpus\": 1,"
        "   \"mig\": [\"3g.40gb\", \"2g.20gb\"], \"placement\": \"first_fit\"}],"
        " \"services\": [{\"name\": \"mid\", \"memory_gb\": 15, " LIGHT ", \"replicas\": 1},"
        "  {\"name\": \"big\", \"memory_gb\": 30, " LIGHT ", \"replicas\": 1}]}");
    fs_placement *p = test_place(s);
    assert_kind(p, 1, 0, "3g.40gb");
    assert_kind(p, 0, 0, "2g.20gb");
    fs_placement_destroy(p);
    fs_scenario_destroy(s);
}

/* ---- 3. replicas that do not fit ---------------------------------------------- */

static void test_does_not_fit(void **state)
{
    (void)state;
    char msg[1024];
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\","
        " \"pools\": [{\"name\": \"slices\", \"gpu\": \"" H100 "\", \"gpus\": 4,"
        "   \"mig\": [\"3g.40gb\", \"3g.40gb\"]}],"
        " \"services\": [{\"name\": \"fits\", \"memory_gb\": 20, " LIGHT ", \"replicas\": 1},"
        "  {\"name\": \"llama-45\", \"memory_gb\": 45, " LIGHT ", \"replicas\": 1}]}");
    run_refused(s, msg, sizeof msg);
    assert_non_null(strstr(msg, "llama-45"));
    assert_non_null(strstr(msg, "45 GiB"));
    assert_non_null(strstr(msg, "slices"));
    assert_null(strstr(msg, "\"fits\""));
    fs_scenario_destroy(s);

    /* Two 3g.40gb units, three replicas that each fit one. */
    s = test_scenario("{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\","
                 " \"pools\": [{\"name\": \"slices\", \"gpu\": \"" H100 "\", \"gpus\": 1,"
                 "   \"mig\": [\"3g.40gb\", \"3g.40gb\"]}],"
                 " \"services\": [{\"name\": \"triple\", \"memory_gb\": 10, " LIGHT
                 ", \"replicas\": 3}]}");
    run_refused(s, msg, sizeof msg);
    assert_non_null(strstr(msg, "triple"));
    assert_non_null(strstr(msg, "replica 3 of 3"));
    fs_scenario_destroy(s);

    /* Whole GPUs: one replica each, with or without a footprint. */
    s = test_scenario("{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\","
                 " \"pools\": [{\"name\": \"whole\", \"gpu\": \"" H100 "\", \"gpus\": 2}],"
                 " \"services\": [{\"name\": \"many\", " LIGHT ", \"replicas\": 3}]}");
    run_refused(s, msg, sizeof msg);
    assert_non_null(strstr(msg, "many"));
    fs_scenario_destroy(s);
}

/* ---- 4. time-sliced seats share their GPU's memory ---------------------------- */

static void test_time_slicing_memory(void **state)
{
    (void)state;
    char msg[1024];
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\","
        " \"pools\": [{\"name\": \"l4\", \"gpu\": \"L4-24GB\", \"gpus\": 1,"
        "   \"time_slicing\": {\"tenants\": 4}}],"
        " \"services\": [{\"name\": \"tenlm\", \"memory_gb\": 10, " LIGHT ", \"replicas\": 3}]}");
    /* Four seats, but 10 + 10 + 10 > 24. */
    run_refused(s, msg, sizeof msg);
    assert_non_null(strstr(msg, "tenlm"));
    assert_non_null(strstr(msg, "replica 3 of 3"));
    fs_scenario_destroy(s);

    s = test_scenario("{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\","
                 " \"pools\": [{\"name\": \"l4\", \"gpu\": \"L4-24GB\", \"gpus\": 1,"
                 "   \"time_slicing\": {\"tenants\": 4}}],"
                 " \"services\": [{\"name\": \"tenlm\", \"memory_gb\": 10, " LIGHT
                 ", \"replicas\": 2},"
                 "  {\"name\": \"tiny\", \"memory_gb\": 3.5, " LIGHT ", \"replicas\": 1}]}");
    fs_placement *p = test_place(s);
    assert_kind(p, 0, 0, "time-slice");
    assert_kind(p, 0, 1, "time-slice");
    assert_kind(p, 1, 0, "time-slice");
    const fs_pool_units *pu = &p->pools[0];
    assert_int_equal(pu->n_units, 4);
    assert_int_equal(pu->free_units, 1);
    assert_close(fs_placement_unit(p, 1, 0)->charge_share, 0.25, 1e-15);
    /* 0.5 GB left on the GPU, a seat free, but too small for any replica. */
    assert_close(pu->stranded_memory_gb, 24 - 23.5, 1e-9);
    fs_placement_destroy(p);
    fs_results *r = test_run(s);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* ---- 5. speed scale -------------------------------------------------------- */

static void test_speed_scale(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\","
        " \"pools\": [{\"name\": \"mig\", \"gpu\": \"" H100 "\", \"gpus\": 1,"
        "   \"mig\": [\"3g.40gb\", \"3g.40gb\"]},"
        "  {\"name\": \"whole\", \"gpu\": \"" H100 "\", \"gpus\": 3}],"
        " \"services\": ["
        "  {\"name\": \"linear\", \"pool\": \"mig\", \"memory_gb\": 30, " LIGHT ", \"replicas\": 1},"
        "  {\"name\": \"sqrt\", \"pool\": \"mig\", \"memory_gb\": 30, \"sm_exponent\": 0.5, " LIGHT
        ", \"replicas\": 1},"
        "  {\"name\": \"whole\", \"pool\": \"whole\", " LIGHT ", \"replicas\": 1},"
        "  {\"name\": \"from-l4\", \"pool\": \"whole\", \"reference_gpu\": \"L4-24GB\", " LIGHT
        ", \"replicas\": 1},"
        "  {\"name\": \"flat\", \"pool\": \"whole\", \"reference_gpu\": \"L4-24GB\","
        "   \"sm_exponent\": 0, " LIGHT ", \"replicas\": 1}]}");
    fs_placement *p = test_place(s);
    assert_kind(p, 0, 0, "3g.40gb");
    assert_kind(p, 1, 0, "3g.40gb");
    printf("  scales: 3g exp 1 %.6f, exp 0.5 %.6f, whole %.6f, L4-referenced %.6f\n",
           fs_placement_scale(p, 0, 0), fs_placement_scale(p, 1, 0), fs_placement_scale(p, 2, 0),
           fs_placement_scale(p, 3, 0));
    assert_close(fs_placement_scale(p, 0, 0), H100_SMS / 60, 1e-12);
    assert_close(fs_placement_scale(p, 1, 0), sqrt(H100_SMS / 60), 1e-12);
    assert_close(fs_placement_scale(p, 2, 0), 1.0, 1e-15);
    assert_close(fs_placement_scale(p, 3, 0), L4_SMS / H100_SMS, 1e-12);
    assert_close(fs_placement_scale(p, 4, 0), 1.0, 1e-15);
    fs_placement_destroy(p);
    fs_scenario_destroy(s);
}

/* ---- 6. pool contention and busy accounting, by hand ------------------------------ */

static void test_pool_contention(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\","
        " \"pools\": [{\"name\": \"ts\", \"gpu\": \"" H100 "\", \"gpus\": 1,"
        "   \"time_slicing\": {\"tenants\": 3, \"slice\": \"1ms\", \"switch_overhead\": \"250us\","
        "                      \"contention_exponent\": 1}}],"
        " \"services\": [{\"name\": \"s\", " LIGHT ", \"replicas\": 3}]}");
    fs_placement *pl = test_place(s);
    const fs_pool_units *pu = &pl->pools[0];
    assert_int_equal(pu->n_units, 3);
    for (size_t u = 0; u < 3; u++)
        assert_int_equal(pu->units[u].gpu, 0);

    fs_pool pool;
    assert_int_equal(fs_pool_init(&pool, &s->pools[0], pu), 0);
    assert_close(pool.slice_stretch, 1.25, 1e-12);
    fs_pool_start_measuring(&pool, 0);
    fs_pool_unit_busy(&pool, 1, 0, +1);
    assert_close(fs_pool_contention(&pool, 0), 1.0, 0);
    assert_close(pool.busy.value, 1.0, 0);
    fs_pool_unit_busy(&pool, 3, 1, +1);
    assert_close(fs_pool_contention(&pool, 1), 2 * 1.25, 1e-12);
    assert_close(fs_pool_contention(&pool, 0), 2 * 1.25, 1e-12);
    /* Two busy seats on one GPU: the GPU counts once. */
    assert_close(pool.busy.value, 1.0, 0);
    assert_close(pool.idle.value, 0.0, 0);
    fs_pool_unit_busy(&pool, 4, 2, +1);
    assert_close(fs_pool_contention(&pool, 2), 3 * 1.25, 1e-12);
    assert_close(pool.busy.value, 1.0, 0);
    fs_pool_unit_busy(&pool, 5, 2, -1);
    fs_pool_unit_busy(&pool, 5, 0, -1);
    assert_close(fs_pool_contention(&pool, 1), 1.0, 0);
    assert_close(pool.busy.value, 1.0, 0);
    fs_pool_unit_busy(&pool, 7, 1, -1);
    assert_close(pool.busy.value, 0.0, 0);
    /* The GPU was busy from 1 s to 7 s of 10. */
    fs_pool_rep rep = {0};
    fs_pool_finish(&pool, 10, &rep);
    assert_close(rep.gpu_s, 10, 1e-12);
    assert_close(rep.busy_gpu_s, 6, 1e-12);
    assert_close(rep.idle_gpu_s, 4, 1e-12);
    free(rep.windows);
    fs_pool_fini(&pool);

    /* The same pool with exponent 0.5. */
    fs_pool_spec bent = s->pools[0];
    bent.time_slicing.contention_exponent = 0.5;
    assert_int_equal(fs_pool_init(&pool, &bent, pu), 0);
    fs_pool_unit_busy(&pool, 0, 0, +1);
    fs_pool_unit_busy(&pool, 0, 2, +1);
    assert_close(fs_pool_contention(&pool, 2), sqrt(2) * 1.25, 1e-12);
    fs_pool_unit_busy(&pool, 0, 1, +1);
    assert_close(fs_pool_contention(&pool, 1), sqrt(3) * 1.25, 1e-12);
    fs_pool_fini(&pool);
    fs_placement_destroy(pl);
    fs_scenario_destroy(s);
}

static void test_mig_busy_accounting(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\","
        " \"pools\": [{\"name\": \"mig\", \"gpu\": \"" H100 "\", \"gpus\": 1,"
        "   \"mig\": [\"3g.40gb\", \"3g.40gb\"]}],"
        " \"services\": [{\"name\": \"s\", \"memory_gb\": 30, " LIGHT ", \"replicas\": 2}]}");
    fs_placement *pl = test_place(s);
    fs_pool pool;
    assert_int_equal(fs_pool_init(&pool, &s->pools[0], &pl->pools[0]), 0);
    fs_pool_start_measuring(&pool, 0);
    fs_pool_unit_busy(&pool, 0, 0, +1);
    assert_close(pool.busy.value, 60 / H100_SMS, 1e-12);
    assert_close(pool.idle.value, 1 - 60 / H100_SMS, 1e-12);
    /* MIG instances never stretch each other. */
    fs_pool_unit_busy(&pool, 2, 1, +1);
    assert_close(fs_pool_contention(&pool, 1), 1.0, 0);
    assert_close(pool.busy.value, 120 / H100_SMS, 1e-12);
    fs_pool_unit_busy(&pool, 4, 0, -1);
    fs_pool_unit_busy(&pool, 4, 1, -1);
    assert_close(pool.busy.value, 0, 1e-12);
    fs_pool_rep rep = {0};
    fs_pool_finish(&pool, 10, &rep);
    /* (60/132) x 4 s + (60/132) x 2 s */
    assert_close(rep.busy_gpu_s, 6 * 60 / H100_SMS, 1e-12);
    assert_close(rep.busy_gpu_s + rep.idle_gpu_s, rep.gpu_s, 1e-12);
    free(rep.windows);
    fs_pool_fini(&pool);
    fs_placement_destroy(pl);
    fs_scenario_destroy(s);
}

/* ---- 7. cost and energy to the cent ---------------------------------------- */

static void test_cost_and_energy(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"10h\", \"warmup\": \"1h\","
        " \"replications\": 2, \"seed\": 7,"
        " \"policies\": {\"mixed\": {\"pools\": ["
        "   {\"name\": \"A\", \"gpu\": \"" H100 "\", \"gpus\": 3},"
        "   {\"name\": \"B\", \"gpu\": \"L4-24GB\", \"gpus\": 2, \"price\": \"spot\"}]}},"
        " \"services\": ["
        "  {\"name\": \"a\", \"pool\": \"A\", \"arrivals\": {\"poisson_rps\": 2},"
        "   \"service_time\": {\"exponential\": {\"mean\": \"100ms\"}}, \"replicas\": 3},"
        "  {\"name\": \"b\", \"pool\": \"B\", \"arrivals\": {\"poisson_rps\": 1},"
        "   \"service_time\": {\"exponential\": {\"mean\": \"200ms\"}}, \"replicas\": 2}]}");
    fs_results *r = test_run(s);
    assert_int_equal(r->n_policies, 1);
    assert_string_equal(r->policies[0].name, "mixed");
    fs_pool_summary a, b, fleet;
    assert_int_equal(fs_results_pool_summary(r, 0, 0, &a), 0);
    assert_int_equal(fs_results_pool_summary(r, 0, 1, &b), 0);
    assert_int_equal(fs_results_fleet_summary(r, 0, &fleet), 0);
    printf("  cost: A $%.4f, B $%.4f, fleet $%.4f (hand: 185.76 + 5.40 = 191.16)\n",
           a.cost_usd.mean, b.cost_usd.mean, fleet.cost_usd.mean);
    assert_close(a.cost_usd.mean, 3 * 9 * H100_PRICE, 0.005);
    assert_close(b.cost_usd.mean, 2 * 9 * L4_SPOT, 0.005);
    assert_close(fleet.cost_usd.mean, 191.16, 0.005);
    assert_close(fs_results_pool_price(r->policies[0].scenario, 1), L4_SPOT, 1e-12);

    assert_close(a.gpu_hours.mean, 27, 1e-9);
    assert_close(b.gpu_hours.mean, 18, 1e-9);
    assert_close(fleet.gpu_hours.mean, 45, 1e-9);
    /* Light traffic: about 0.2 busy GPUs on each pool. */
    assert_true(a.busy_gpu_hours.mean > 0.5 && a.busy_gpu_hours.mean < 5);
    assert_true(b.busy_gpu_hours.mean > 0.5 && b.busy_gpu_hours.mean < 5);
    const fs_pool_summary *pools[] = {&a, &b, &fleet};
    for (size_t k = 0; k < 3; k++)
        assert_rel(pools[k]->busy_gpu_hours.mean + pools[k]->idle_gpu_hours.mean,
                   pools[k]->gpu_hours.mean, 1e-9);

    double ea = (H100_IDLE_W * a.idle_gpu_hours.mean + H100_BUSY_W * a.busy_gpu_hours.mean) / 1000;
    double eb = (L4_IDLE_W * b.idle_gpu_hours.mean + L4_BUSY_W * b.busy_gpu_hours.mean) / 1000;
    printf("  energy: A %.6f kWh (hand %.6f), B %.6f kWh (hand %.6f), fleet %.6f\n",
           a.energy_kwh.mean, ea, b.energy_kwh.mean, eb, fleet.energy_kwh.mean);
    assert_rel(a.energy_kwh.mean, ea, 1e-9);
    assert_rel(b.energy_kwh.mean, eb, 1e-9);
    assert_rel(fleet.energy_kwh.mean, ea + eb, 1e-9);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* ---- 8. chargeback ---------------------------------------------------------- */

/* The L4 pool has two GPUs and one replica: the idle GPU is in the fleet's
 * cost, so the shares add up to less than 1. */
static void test_chargeback(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"10h\", \"warmup\": \"1h\","
        " \"pools\": [{\"name\": \"mig\", \"gpu\": \"" H100 "\", \"gpus\": 1,"
        "   \"mig\": [\"3g.40gb\", \"3g.40gb\"]},"
        "  {\"name\": \"l4\", \"gpu\": \"L4-24GB\", \"gpus\": 2}],"
        " \"services\": ["
        "  {\"name\": \"pair\", \"pool\": \"mig\", \"memory_gb\": 30, " LIGHT ", \"replicas\": 2},"
        "  {\"name\": \"other\", \"pool\": \"l4\", " LIGHT ", \"replicas\": 1}]}");
    fs_results *r = test_run(s);
    assert_close(fs_results_measured_s(r), 9 * 3600.0, 1e-9);
    fs_chargeback c = fs_results_chargeback(r, 0, 0);
    double held = 2 * (3.0 / 7) * 9;
    double fleet_cost = 9 * H100_PRICE + 2 * 9 * L4_PRICE;
    printf("  pair: %.4f GPU-h held, $%.4f, %.2f%% of $%.2f\n", c.gpu_hours_held, c.cost_usd,
           100 * c.share, fleet_cost);
    assert_close(c.gpu_hours_held, held, 1e-9);
    assert_close(c.cost_usd, held * H100_PRICE, 1e-9);
    assert_close(c.share, held * H100_PRICE / fleet_cost, 1e-12);
    /* The share is of the cost the run reports. */
    fs_pool_summary fleet;
    assert_int_equal(fs_results_fleet_summary(r, 0, &fleet), 0);
    assert_close(fleet.cost_usd.mean, fleet_cost, 0.005);
    assert_close(c.share * fleet.cost_usd.mean, c.cost_usd, 1e-6);

    fs_chargeback o = fs_results_chargeback(r, 0, 1);
    assert_close(o.gpu_hours_held, 9, 1e-9);
    assert_close(o.cost_usd, 9 * L4_PRICE, 1e-9);
    assert_close(o.share, 9 * L4_PRICE / fleet_cost, 1e-12);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* ---- 9. time-slicing contention in a run ------------------------------------- */

static void two_service_means(const char *pool_json, double mean_ms[2])
{
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\", \"seed\": 3,"
        " \"pools\": [%s],"
        " \"services\": ["
        "  {\"name\": \"a\", \"arrivals\": {\"poisson_rps\": 30},"
        "   \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}}, \"replicas\": 1},"
        "  {\"name\": \"b\", \"arrivals\": {\"poisson_rps\": 30},"
        "   \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}}, \"replicas\": 1}]}",
        pool_json);
    fs_results *r = test_run(s);
    for (size_t i = 0; i < 2; i++) {
        fs_service_summary sum;
        assert_int_equal(fs_results_service_summary(r, 0, i, &sum), 0);
        assert_true(sum.completed.mean > 90000); /* 30 rps for an hour */
        mean_ms[i] = sum.merged_mean_ms;
    }
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

static void test_time_slicing_contention_run(void **state)
{
    (void)state;
    double whole[2], sliced[2], free_sliced[2];
    two_service_means("{\"name\": \"p\", \"gpu\": \"" H100 "\", \"gpus\": 2}", whole);
    two_service_means("{\"name\": \"p\", \"gpu\": \"" H100 "\", \"gpus\": 1,"
                      " \"time_slicing\": {\"tenants\": 2}}",
                      sliced);
    two_service_means("{\"name\": \"p\", \"gpu\": \"" H100 "\", \"gpus\": 1,"
                      " \"time_slicing\": {\"tenants\": 2, \"contention_exponent\": 0,"
                      "   \"switch_overhead\": 0}}",
                      free_sliced);
    for (size_t i = 0; i < 2; i++) {
        printf("  service %c: mean %.3f ms on its own GPU, %.3f ms time-sliced, %.3f ms with no "
               "stretch\n",
               'a' + (int)i, whole[i], sliced[i], free_sliced[i]);
        /* M/D/1 at rho 0.3: 10 + 0.3 x 10 / (2 x 0.7) = 12.14 ms. */
        assert_close(whole[i], 10 + 0.3 * 10 / 1.4, 0.2);
        /* About a third of requests start while the other tenant is busy and
         * take 2 x (1 + 0.2 / 1.024) = 2.39 times as long. */
        assert_true(sliced[i] > 1.2 * whole[i]);
        assert_rel(free_sliced[i], whole[i], 0.01);
    }
}

/* ---- 10. policies on common random numbers ------------------------------------ */

static void test_policies_common_random_numbers(void **state)
{
    (void)state;
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"2h\", \"warmup\": \"10m\","
        " \"replications\": 2, \"seed\": 9,"
        " \"policies\": {"
        "  \"whole\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"" H100 "\", \"gpus\": 2}]},"
        "  \"mig\": {\"pools\": [{\"name\": \"p\", \"gpu\": \"" H100 "\", \"gpus\": 1,"
        "     \"mig\": [\"3g.40gb\", \"3g.40gb\"]}]}},"
        " \"services\": ["
        "  {\"name\": \"a\", \"memory_gb\": 20, \"arrivals\": {\"poisson_rps\": 5},"
        "   \"service_time\": {\"exponential\": {\"mean\": \"50ms\"}}, \"replicas\": 1},"
        "  {\"name\": \"b\", \"memory_gb\": 25, \"arrivals\": {\"poisson_rps\": 3},"
        "   \"service_time\": {\"lognormal\": {\"median\": \"40ms\", \"sigma\": 0.5}},"
        "   \"replicas\": 1}]}");
    fs_results *r = test_run(s);
    assert_int_equal(r->n_policies, 2);
    assert_string_equal(r->policies[0].name, "whole");
    assert_string_equal(r->policies[1].name, "mig");
    assert_string_equal(fs_placement_unit(r->policies[0].placement, 0, 0)->kind, "whole");
    assert_string_equal(fs_placement_unit(r->policies[1].placement, 0, 0)->kind, "3g.40gb");
    for (size_t i = 0; i < 2; i++) {
        for (uint32_t k = 0; k < 2; k++) {
            const fs_service_rep *w = &r->policies[0].reps[k].services[i];
            const fs_service_rep *m = &r->policies[1].reps[k].services[i];
            assert_true(w->requests > 10000);
            assert_int_equal(w->requests, m->requests);
        }
        /* Replications differ from each other (independent streams). */
        assert_int_not_equal(r->policies[0].reps[0].services[i].requests,
                             r->policies[0].reps[1].services[i].requests);
        fs_service_summary w, m;
        assert_int_equal(fs_results_service_summary(r, 0, i, &w), 0);
        assert_int_equal(fs_results_service_summary(r, 1, i, &m), 0);
        printf("  %s: %.0f requests in both; mean %.2f ms whole, %.2f ms on 3g.40gb\n",
               s->services[i].name, w.requests.mean, w.merged_mean_ms, m.merged_mean_ms);
        /* A 3g.40gb has 60 of 132 SMs: service takes 2.2x as long. */
        assert_true(m.merged_mean_ms > 1.5 * w.merged_mean_ms);
    }
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* ---- 11. the shipped fragmentation scenario ------------------------------------- */

static void test_fragmentation_scenario(void **state)
{
    (void)state;
    const char *path = FS_SOURCE_DIR "/scenarios/fragmentation.json";
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        printf("  %s is absent: skipped\n", path);
        skip();
    }
    fclose(f);
    fs_scenario *s = NULL;
    fs_error err = {0};
    if (fs_scenario_load(path, &s, &err) != FS_OK)
        fail_msg("load: %s", err.msg);
    assert_int_equal(fs_scenario_override(s, -1, 1, 9 * 3600.0, &err), FS_OK);
    fs_results *r = test_run(s);
    size_t whole = SIZE_MAX, mig = SIZE_MAX;
    for (size_t p = 0; p < r->n_policies; p++) {
        if (strcmp(r->policies[p].name, "whole-gpus") == 0)
            whole = p;
        else if (strcmp(r->policies[p].name, "mig-slices") == 0)
            mig = p;
    }
    assert_true(whole != SIZE_MAX && mig != SIZE_MAX);
    fs_pool_summary fw, fm;
    assert_int_equal(fs_results_fleet_summary(r, whole, &fw), 0);
    assert_int_equal(fs_results_fleet_summary(r, mig, &fm), 0);
    double saving = 1 - fm.cost_usd.mean / fw.cost_usd.mean;
    printf("  fragmentation, 9 h: whole-gpus $%.2f, mig-slices $%.2f, saving %.1f%%\n",
           fw.cost_usd.mean, fm.cost_usd.mean, 100 * saving);
    assert_true(fw.cost_usd.mean > 0);
    assert_true(fm.cost_usd.mean < 0.45 * fw.cost_usd.mean);

    size_t checked = 0;
    double worst = 0;
    const char *worst_name = "";
    for (size_t p = 0; p < 2; p++) {
        size_t pol = p == 0 ? whole : mig;
        const fs_scenario *v = r->policies[pol].scenario;
        for (size_t i = 0; i < v->n_services; i++) {
            const fs_slo *slo = &v->services[i].slo;
            double target_ms = 0;
            for (size_t j = 0; j < slo->n_targets; j++)
                if (slo->targets[j].quantile == 0.99)
                    target_ms = slo->targets[j].threshold_s * 1e3;
            assert_true(target_ms > 0);
            fs_service_summary sum;
            assert_int_equal(fs_results_service_summary(r, pol, i, &sum), 0);
            assert_true(sum.completed.mean > 0);
            if (sum.merged_p99_ms / target_ms > worst) {
                worst = sum.merged_p99_ms / target_ms;
                worst_name = v->services[i].name;
            }
            if (!(sum.merged_p99_ms <= target_ms))
                fail_msg("%s / %s: merged p99 %.1f ms over its SLO %.1f ms", r->policies[pol].name,
                         v->services[i].name, sum.merged_p99_ms, target_ms);
            checked++;
        }
    }
    printf("  %zu service SLOs met; the tightest is %s at %.0f%% of its p99 target\n", checked,
           worst_name, 100 * worst);
    assert_int_equal(checked, 2 * s->n_services);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_best_fit_mig_layout),
        cmocka_unit_test(test_stranded_unused_slices_and_small_free_unit),
        cmocka_unit_test(test_first_fit_vs_best_fit),
        cmocka_unit_test(test_does_not_fit),
        cmocka_unit_test(test_time_slicing_memory),
        cmocka_unit_test(test_speed_scale),
        cmocka_unit_test(test_pool_contention),
        cmocka_unit_test(test_mig_busy_accounting),
        cmocka_unit_test(test_cost_and_energy),
        cmocka_unit_test(test_chargeback),
        cmocka_unit_test(test_time_slicing_contention_run),
        cmocka_unit_test(test_policies_common_random_numbers),
        cmocka_unit_test(test_fragmentation_scenario),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
