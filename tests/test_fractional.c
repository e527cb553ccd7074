/*
 * test_fractional — fractional GPUs (issue 22): MPS and virtual-GPU shares.
 *
 * Placement by compute share and memory quota on hand-worked cases (best
 * fit, first fit, fgd; memory refusals; oversubscription 1 against 1.5;
 * stranded compute and memory), the measured share curves at and between
 * their points, the pool's contention stretch and busy accounting, the
 * fleet's compute check for replicas added at run time, MPS against
 * time-slicing for two tenants of one GPU, GPU-second conservation, and the
 * scenario's refusals.
 *
 * The share curves are typed in here from calibrate/README.md ("Sharing one
 * GPU": the medians of run 6, 2026-11-26, H100 SXM), not read back from
 * mps.c, so a wrong entry there fails.  Every GPU below is an H100 SXM:
 * 80 GB (the catalog's 80, as the placement reads it), 132 SMs.
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

#include "mps.h"
#include "placement.h"
#include "pool.h"
#include "results.h"
#include "run.h"
#include "scenario.h"

#define H100 "H100-SXM-80GB"

/* A service on pool "f": name, share, memory, replicas; light traffic. */
#define SVC(name, share, gb, n)                                                                           \
    "{\"name\": \"" name "\", \"gpu_share\": " #share ", \"memory_gb\": " #gb ", \"replicas\": " #n        \
    ", \"arrivals\": {\"poisson_rps\": 1}, \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}}}"

/* A one-pool scenario: the pool's JSON members after "gpu", then services. */
static fs_scenario *frac_scenario(const char *pool, const char *services)
{
    return test_scenario("{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\","
                         " \"pools\": [{\"name\": \"f\", \"gpu\": \"" H100 "\", %s}],"
                         " \"services\": [%s]}",
                         pool, services);
}

/* Places s expecting a refusal containing want. */
static void place_refused(const fs_scenario *s, const char *want)
{
    fs_placement *p = NULL;
    fs_error err = {0};
    int rc = fs_placement_compute(s, &p, &err);
    printf("  refused: %s\n", err.msg);
    assert_int_equal(rc, FS_ERR_INPUT);
    assert_null(p);
    if (!strstr(err.msg, want))
        fail_msg("refusal \"%s\" lacks \"%s\"", err.msg, want);
}

static void assert_close(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("got %.12g, want %.12g (tolerance %g)", got, want, tol);
}

/* The GPU replica r of service i landed on. */
static uint32_t gpu_of(const fs_placement *p, size_t i, uint32_t r)
{
    return fs_placement_unit(p, i, r)->gpu;
}

/* The compute shares placed on each of the pool's first n GPUs, printed. */
static void gpu_shares(const fs_placement *p, const fs_scenario *s, double *share, size_t n)
{
    for (size_t g = 0; g < n; g++)
        share[g] = 0;
    const fs_pool_units *pu = &p->pools[0];
    for (size_t u = 0; u < pu->n_units; u++)
        if (pu->units[u].service != FS_UNPLACED && pu->units[u].gpu < n)
            share[pu->units[u].gpu] += s->services[pu->units[u].service].gpu_share;
    for (size_t g = 0; g < n; g++)
        printf("  GPU %zu: shares %.4g\n", g, share[g]);
}

/* ---- 1. packing ------------------------------------------------------------ */

/* Shares 0.5, 0.3, 0.3, 0.2 (10 GB each) on three 80 GB GPUs, 8 seats each.
 * Best fit, largest first: 0.5 opens GPU 0; 0.3 goes where least compute
 * is left after it (GPU 0: 0.2 against an empty GPU's 0.7); the second 0.3
 * no longer fits GPU 0 (1.1) and opens GPU 1; 0.2 fills GPU 0 to exactly 1.
 * Two GPUs, GPU 2 empty.  GPU 0 has 50 GB and 5 seats left but no compute:
 * no replica size fits there, so its 50 GB are stranded (and no compute);
 * GPU 1 (0.7 left) and GPU 2 are usable. */
static void test_best_fit_packing(void **state)
{
    (void)state;
    fs_scenario *s = frac_scenario("\"gpus\": 3, \"fractional\": {}",
                                   SVC("a", 0.5, 10, 1) "," SVC("b", 0.3, 10, 2) "," SVC("c", 0.2, 10, 1));
    fs_placement *p = test_place(s);
    double share[3];
    gpu_shares(p, s, share, 3);
    assert_int_equal(gpu_of(p, 0, 0), 0);
    assert_int_equal(gpu_of(p, 1, 0), 0);
    assert_int_equal(gpu_of(p, 1, 1), 1);
    assert_int_equal(gpu_of(p, 2, 0), 0);
    assert_close(share[0], 1.0, 1e-12);
    assert_close(share[1], 0.3, 1e-12);
    assert_close(share[2], 0, 0);
    const fs_pool_units *pu = &p->pools[0];
    printf("  units %zu, free %zu, stranded %.4g GB and %.4g GPUs of compute\n", pu->n_units, pu->free_units,
           pu->stranded_memory_gb, pu->stranded_sm_share);
    assert_int_equal(pu->n_units, 24);
    assert_int_equal(pu->start_units, 24); /* every seat exists at t = 0 (results.json's "units") */
    assert_int_equal(pu->free_units, 20);
    assert_close(pu->used_memory_gb, 40, 1e-12);
    assert_close(pu->stranded_memory_gb, 50, 1e-9);
    assert_close(pu->stranded_sm_share, 0, 1e-12);
    /* Each seat takes its replica's shares; charged the larger of compute
     * (0.5 / oversubscription 1) and memory (10 / 80). */
    const fs_unit *u = fs_placement_unit(p, 0, 0);
    assert_string_equal(u->kind, "mps");
    assert_close(u->compute_share, 0.5, 0);
    assert_close(u->charge_share, 0.5, 0);
    fs_placement_destroy(p);
    fs_scenario_destroy(s);
}

/* Where best and first fit part: a 70 GB replica of share 0.2 opens GPU 0
 * (dominant share 70/80), a 0.6 one (20 GB) cannot join it (90 GB) and opens
 * GPU 1; a 0.3 one (5 GB) fits both.  First fit: GPU 0.  Best fit: GPU 1,
 * where 0.1 of the compute is left against GPU 0's 0.5. */
static void test_first_fit_against_best_fit(void **state)
{
    (void)state;
    const char *svcs = SVC("big", 0.2, 70, 1) "," SVC("wide", 0.6, 20, 1) "," SVC("mid", 0.3, 5, 1);
    const char *const pools[] = {"\"gpus\": 2, \"fractional\": {}",
                                 "\"gpus\": 2, \"fractional\": {}, \"placement\": \"first_fit\""};
    const uint32_t want[] = {1, 0};
    for (size_t k = 0; k < 2; k++) {
        fs_scenario *s = frac_scenario(pools[k], svcs);
        fs_placement *p = test_place(s);
        printf("  %s: big on GPU %u, wide on GPU %u, mid on GPU %u\n", k ? "first fit" : "best fit",
               gpu_of(p, 0, 0), gpu_of(p, 1, 0), gpu_of(p, 2, 0));
        assert_int_equal(gpu_of(p, 0, 0), 0);
        assert_int_equal(gpu_of(p, 1, 0), 1);
        assert_int_equal(gpu_of(p, 2, 0), want[k]);
        fs_placement_destroy(p);
        fs_scenario_destroy(s);
    }
}

/* fgd where best fit fails.  Shares 0.4 x 2, 0.3 x 1, 0.25 x 3 (1.85 of a
 * GPU in all) on 2 GPUs.  Best fit: 0.4, 0.4 on GPU 0 (0.8: 0.2 left, too
 * little for any size), 0.3, 0.25, 0.25 on GPU 1 (0.8), and the last 0.25
 * fits neither: refused.  fgd (sizes weighted 2/6, 1/6, 3/6):
 *   0.4 opens GPU 0;
 *   0.4: on GPU 0 it would leave 0.2 that no size fits (fragmentation +0.2),
 *        on the empty GPU 1 0.6 that every size fits (+0): GPU 1;
 *   0.3: both GPUs alike (0.4 each): +0.1 (0.3 left, too little for 0.4:
 *        2/6 x 0.3), ties to GPU 0 (0.7);
 *   0.25: GPU 0 -> 0.95 turns its 0.3 fragment into 0.05 (-0.05), GPU 1
 *        -> 0.65 makes 0.35 a fragment for 0.4 (+0.117): GPU 0;
 *   0.25, 0.25: only GPU 1 fits (0.65, then 0.9).
 * All six placed: GPU 0 0.95, GPU 1 0.9. */
static void test_fgd_where_best_fit_fails(void **state)
{
    (void)state;
    const char *svcs = SVC("p", 0.4, 10, 2) "," SVC("q", 0.3, 10, 1) "," SVC("r", 0.25, 10, 3);
    fs_scenario *s = frac_scenario("\"gpus\": 2, \"fractional\": {}", svcs);
    place_refused(s, "services[2] (r): replica 3 of 3 needs 0.25 of a GPU's compute and 10 GiB; no free unit in "
                     "pool \"f\" fits (the roomiest of its 2 GPUs has 0.2 of its compute");
    fs_scenario_destroy(s);

    s = frac_scenario("\"gpus\": 2, \"fractional\": {}, \"placement\": \"fgd\"", svcs);
    fs_placement *p = test_place(s);
    double share[2];
    gpu_shares(p, s, share, 2);
    assert_int_equal(gpu_of(p, 0, 0), 0);
    assert_int_equal(gpu_of(p, 0, 1), 1);
    assert_int_equal(gpu_of(p, 1, 0), 0);
    assert_int_equal(gpu_of(p, 2, 0), 0);
    assert_int_equal(gpu_of(p, 2, 1), 1);
    assert_int_equal(gpu_of(p, 2, 2), 1);
    assert_close(share[0], 0.95, 1e-12);
    assert_close(share[1], 0.9, 1e-12);
    /* 0.05 and 0.1 left: no size fits either, so both GPUs' 50 GB left (3
     * replicas of 10 GB each) and their unused SMs (0.05 + 0.1 of a GPU)
     * are stranded. */
    const fs_pool_units *pu = &p->pools[0];
    printf("  stranded %.4g GB and %.4g GPUs of compute\n", pu->stranded_memory_gb, pu->stranded_sm_share);
    assert_close(pu->stranded_memory_gb, 100, 1e-9);
    assert_close(pu->stranded_sm_share, 0.15, 1e-9);
    fs_placement_destroy(p);
    fs_scenario_destroy(s);
}

/* Memory is enforced: two 50 GB replicas of share 0.2 need 0.4 of one GPU's
 * compute but 100 GB of its 80.  And a GPU full of memory with compute
 * left strands that compute: two 40 GB replicas of 0.3 leave 0.4. */
static void test_memory_refusal_and_stranded_compute(void **state)
{
    (void)state;
    fs_scenario *s = frac_scenario("\"gpus\": 1, \"fractional\": {}", SVC("m", 0.2, 50, 2));
    place_refused(s, "services[0] (m): replica 2 of 2 needs 0.2 of a GPU's compute and 50 GiB; no free unit in "
                     "pool \"f\" fits (the roomiest of its 1 GPUs has 0.8 of its compute, 30 GiB and 7 seats left)");
    fs_scenario_destroy(s);

    s = frac_scenario("\"gpus\": 1, \"fractional\": {}", SVC("m", 0.3, 40, 2));
    fs_placement *p = test_place(s);
    const fs_pool_units *pu = &p->pools[0];
    printf("  stranded %.4g GB and %.4g GPUs of compute\n", pu->stranded_memory_gb, pu->stranded_sm_share);
    assert_close(pu->stranded_memory_gb, 0, 1e-12);
    assert_close(pu->stranded_sm_share, 0.4, 1e-12);
    /* Charged by memory, the larger: 40 / 80. */
    assert_close(fs_placement_unit(p, 0, 0)->charge_share, 0.5, 0);
    fs_placement_destroy(p);
    fs_scenario_destroy(s);

    /* Seats bound too: 3 replicas of 0.1 on a GPU of 2 seats. */
    s = frac_scenario("\"gpus\": 1, \"fractional\": {\"seats\": 2}", SVC("t", 0.1, 1, 3));
    place_refused(s, "replica 3 of 3 needs 0.1 of a GPU's compute and 1 GiB; no free unit in pool \"f\" fits "
                     "(all 2 seats are taken)");
    fs_scenario_destroy(s);
}

/* Three replicas of 0.5 on one GPU: refused at oversubscription 1 (the third
 * would make 1.5), placed at 1.5, where they are charged 0.5 / 1.5 each and
 * nothing is stranded. */
static void test_oversubscription(void **state)
{
    (void)state;
    fs_scenario *s = frac_scenario("\"gpus\": 1, \"fractional\": {}", SVC("h", 0.5, 10, 3));
    place_refused(s, "replica 3 of 3 needs 0.5 of a GPU's compute");
    fs_scenario_destroy(s);
    s = frac_scenario("\"gpus\": 1, \"fractional\": {\"oversubscription\": 1.5}", SVC("h", 0.5, 10, 3));
    fs_placement *p = test_place(s);
    double share[1];
    gpu_shares(p, s, share, 1);
    assert_close(share[0], 1.5, 1e-12);
    assert_close(fs_placement_unit(p, 0, 2)->charge_share, 0.5 / 1.5, 1e-15);
    assert_close(p->pools[0].stranded_sm_share, 0, 0);
    fs_placement_destroy(p);
    fs_scenario_destroy(s);
}

/* ---- 2. the share curves ---------------------------------------------------- */

/* calibrate/README.md, "Sharing one GPU", alone at 100/75/50/25/10%. */
static const double measured[FS_SHARE_KINDS][5] = {
    [FS_SHARE_COMPUTE] = {1.00, 1.35, 2.00, 4.12, 10.97},
    [FS_SHARE_MEMORY] = {1.00, 1.00, 1.00, 1.77, 3.25},
    [FS_SHARE_PREFILL] = {1.00, 1.30, 1.63, 3.15, 8.28},
    [FS_SHARE_DECODE] = {1.00, 1.09, 1.32, 1.96, 4.46},
};
static const double at[5] = {1.0, 0.75, 0.5, 0.25, 0.1};

static void test_share_curves(void **state)
{
    (void)state;
    for (int k = 0; k < FS_SHARE_KINDS; k++) {
        printf("  %-8s", fs_mps_kind_names[k]);
        for (size_t i = 0; i < 5; i++) {
            double got = fs_mps_slowdown((fs_share_kind)k, at[i]);
            printf(" %g -> %.4g", at[i], got);
            assert_close(got, measured[k][i], 1e-12);
        }
        printf("\n");
    }
    /* Between points, a power law through both: decode at 0.375 is
     * 1.96 x (1.32 / 1.96)^(ln 1.5 / ln 2) = 1.556; compute at 0.2 is
     * 10.97 x (4.12 / 10.97)^(ln 2 / ln 2.5) = 5.229. */
    double decode = fs_mps_slowdown(FS_SHARE_DECODE, 0.375), want_decode = 1.96 * pow(1.32 / 1.96, log(1.5) / log(2));
    double compute = fs_mps_slowdown(FS_SHARE_COMPUTE, 0.2), want_compute = 10.97 * pow(4.12 / 10.97, log(2) / log(2.5));
    printf("  decode 0.375 -> %.6g (by hand %.6g), compute 0.2 -> %.6g (by hand %.6g)\n", decode, want_decode,
           compute, want_compute);
    assert_close(decode, want_decode, 1e-12);
    assert_close(want_decode, 1.556, 1e-3);
    assert_close(compute, want_compute, 1e-12);
    assert_close(want_compute, 5.229, 1e-3);
    /* Never faster with less of the GPU. */
    for (int k = 0; k < FS_SHARE_KINDS; k++)
        for (double x = 0.1; x < 1; x += 0.01)
            assert_true(fs_mps_slowdown((fs_share_kind)k, x) >= fs_mps_slowdown((fs_share_kind)k, x + 0.01) - 1e-12);
}

/* The replica's speed scale: an MPS client runs at its curve even alone; a
 * virtual GPU's client alone at full speed (the pool stretches it when
 * others are busy). */
static void test_replica_scale(void **state)
{
    (void)state;
    const char *svc = "{\"name\": \"d\", \"gpu_share\": 0.25, \"gpu_share_kind\": \"decode\", \"memory_gb\": 10,"
                      " \"replicas\": 1, \"arrivals\": {\"poisson_rps\": 1},"
                      " \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}}}";
    const char *const modes[] = {"mps", "virtual"};
    const double want[] = {1.96, 1.0};
    for (size_t k = 0; k < 2; k++) {
        char pool[128];
        snprintf(pool, sizeof pool, "\"gpus\": 1, \"fractional\": {\"mode\": \"%s\"}", modes[k]);
        fs_scenario *s = frac_scenario(pool, svc);
        fs_placement *p = test_place(s);
        double scale = fs_placement_scale(p, 0, 0);
        printf("  %s: decode at 0.25 scales by %.4g\n", modes[k], scale);
        assert_close(scale, want[k], 1e-12);
        assert_string_equal(fs_placement_unit(p, 0, 0)->kind, modes[k]);
        fs_placement_destroy(p);
        fs_scenario_destroy(s);
    }
}

/* ---- 3. contention and busy accounting ------------------------------------- */

/* A pool of one GPU with three seats whose tenants have these shares. */
typedef struct one_gpu {
    fs_scenario *s;
    fs_placement *p;
    fs_pool pool;
} one_gpu;

static void one_gpu_open(one_gpu *g, const char *mode, const double *shares)
{
    char json[256];
    snprintf(json, sizeof json, "\"gpus\": 1, \"fractional\": {\"seats\": 3, \"oversubscription\": 2, \"mode\": \"%s\"}",
             mode);
    g->s = frac_scenario(json, SVC("x", 0.5, 10, 3));
    g->p = test_place(g->s);
    assert_int_equal(fs_pool_init(&g->pool, &g->s->pools[0], &g->p->pools[0]), 0);
    for (size_t u = 0; u < 3; u++)
        fs_pool_unit_tenant(&g->pool, u, shares[u], FS_SHARE_COMPUTE);
    fs_pool_start_measuring(&g->pool, 0);
}

static void one_gpu_close(one_gpu *g)
{
    fs_pool_fini(&g->pool);
    fs_placement_destroy(g->p);
    fs_scenario_destroy(g->s);
}

/* MPS, shares 0.5, 0.5, 0.5 on one GPU: one or two busy (S <= 1) stretch
 * nothing (each runs at its curve, in its scale); three (S = 1.5) stretch
 * every start by 1.5.  Busy compute is the busy shares capped at the GPU:
 * 0.5, then 1, then still 1; over 10 s with one busy 1-3 s, two 3-5 s,
 * three 5-6 s and one 6-8 s: 0.5 x 2 + 1 x 2 + 1 x 1 + 0.5 x 2 = 5. */
static void test_mps_contention(void **state)
{
    (void)state;
    one_gpu g;
    const double shares[] = {0.5, 0.5, 0.5};
    one_gpu_open(&g, "mps", shares);
    fs_pool *pool = &g.pool;
    fs_pool_unit_busy(pool, 1, 0, +1);
    assert_close(fs_pool_contention(pool, 0), 1.0, 0);
    assert_close(pool->busy.value, 0.5, 1e-12);
    fs_pool_unit_busy(pool, 3, 1, +1);
    assert_close(fs_pool_contention(pool, 1), 1.0, 0);
    assert_close(pool->busy.value, 1.0, 1e-12);
    fs_pool_unit_busy(pool, 5, 2, +1);
    double stretch = fs_pool_contention(pool, 2);
    printf("  three busy tenants of 0.5 (S = 1.5): stretch %.4g, busy %.4g GPUs\n", stretch, pool->busy.value);
    assert_close(stretch, 1.5, 1e-12);
    assert_close(pool->busy.value, 1.0, 1e-12);
    fs_pool_unit_busy(pool, 6, 2, -1);
    fs_pool_unit_busy(pool, 6, 1, -1);
    assert_close(fs_pool_contention(pool, 0), 1.0, 0);
    fs_pool_unit_busy(pool, 8, 0, -1);
    fs_pool_rep rep = {0};
    fs_pool_finish(pool, 10, &rep);
    printf("  busy %.6g of %.6g GPU-s, idle %.6g\n", rep.busy_gpu_s, rep.gpu_s, rep.idle_gpu_s);
    assert_close(rep.busy_gpu_s, 5, 1e-12);
    assert_close(rep.busy_gpu_s + rep.idle_gpu_s + rep.switching_gpu_s, rep.gpu_s, 1e-12);
    free(rep.windows);
    one_gpu_close(&g);
}

/* Virtual, shares 0.5, 0.25, 0.75, compute-bound: alone a tenant has the
 * whole GPU (1); 0.5 beside 0.25 (S = 0.75) splits it 2 : 1, so the 0.5
 * runs at the curve at 2/3 (2.00 x (1.35 / 2.00)^(ln(4/3) / ln 1.5) =
 * 1.513) and the 0.25 at 1/3; all three (S = 1.5) at their own curves
 * times 1.5 (0.5: 2.00 x 1.5 = 3).  The GPU is all busy while any is. */
static void test_virtual_contention(void **state)
{
    (void)state;
    one_gpu g;
    const double shares[] = {0.5, 0.25, 0.75};
    one_gpu_open(&g, "virtual", shares);
    fs_pool *pool = &g.pool;
    fs_pool_unit_busy(pool, 0, 0, +1);
    assert_close(fs_pool_contention(pool, 0), 1.0, 0);
    /* Alone it uses the whole GPU: busy compute 1, not its share. */
    assert_close(pool->busy.value, 1.0, 0);
    fs_pool_unit_busy(pool, 0, 1, +1);
    double half = fs_pool_contention(pool, 0), quarter = fs_pool_contention(pool, 1);
    double want_half = 2.00 * pow(1.35 / 2.00, log(4.0 / 3) / log(1.5));
    double want_quarter = 4.12 * pow(2.00 / 4.12, log(4.0 / 3) / log(2));
    printf("  0.5 beside 0.25: %.5g (by hand %.5g) and %.5g (by hand %.5g)\n", half, want_half, quarter, want_quarter);
    assert_close(half, want_half, 1e-12);
    assert_close(want_half, 1.513, 1e-3);
    assert_close(quarter, want_quarter, 1e-12);
    fs_pool_unit_busy(pool, 0, 2, +1);
    double three = fs_pool_contention(pool, 0);
    printf("  all three (S = 1.5): the 0.5 stretched %.4g\n", three);
    assert_close(three, 3.0, 1e-12);
    assert_close(fs_pool_contention(pool, 2), 1.35 * 1.5, 1e-12);
    one_gpu_close(&g);
}

/* ---- 4. runs ----------------------------------------------------------------- */

/* The mean latency (ms) of services a and b, each 10 ms deterministic
 * requests of `kind` at rps, sharing one GPU as `pool`. */
static void pair_means(const char *pool, const char *extra, double rps, double mean_ms[2])
{
    fs_scenario *s = test_scenario(
        "{\"schema\": \"fleetsim/1\", \"horizon\": \"2h\", \"warmup\": \"10m\", \"seed\": 5,"
        " \"pools\": [{\"name\": \"p\", \"gpu\": \"" H100 "\", \"gpus\": 1, %s}],"
        " \"services\": ["
        "  {\"name\": \"a\", \"memory_gb\": 20%s, \"arrivals\": {\"poisson_rps\": %g},"
        "   \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}}, \"replicas\": 1},"
        "  {\"name\": \"b\", \"memory_gb\": 20%s, \"arrivals\": {\"poisson_rps\": %g},"
        "   \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}}, \"replicas\": 1}]}",
        pool, extra, rps, extra, rps);
    fs_results *r = test_run(s);
    for (size_t i = 0; i < 2; i++) {
        fs_service_summary sum;
        assert_int_equal(fs_results_service_summary(r, 0, i, &sum), 0);
        mean_ms[i] = sum.merged_mean_ms;
    }
    fs_results_destroy(r);
    fs_scenario_destroy(s);
}

/* Two tenants of one GPU, each at half (decode-like work).  Busy together
 * much of the time (35 rps of 10 ms each), MPS is faster: each request
 * takes 1.32x (the decode curve at 0.5, no contention: 0.5 + 0.5 = 1),
 * against 2 x (1 + 0.2 / 1.024) = 2.39x time-sliced while both are busy
 * (the calibration: two decode steps at 50% under MPS 1.85x, time-sliced
 * 2.21x).  Rarely together (3 rps each), time-slicing is faster: a request
 * alone runs at full speed there, at 1.32x under MPS. */
static void test_mps_against_time_slicing(void **state)
{
    (void)state;
    const char *mps = "\"fractional\": {\"seats\": 2}";
    const char *ts = "\"time_slicing\": {\"tenants\": 2}";
    const char *share = ", \"gpu_share\": 0.5, \"gpu_share_kind\": \"decode\"";
    double busy_mps[2], busy_ts[2], calm_mps[2], calm_ts[2];
    pair_means(mps, share, 35, busy_mps);
    pair_means(ts, "", 35, busy_ts);
    pair_means(mps, share, 3, calm_mps);
    pair_means(ts, "", 3, calm_ts);
    for (size_t i = 0; i < 2; i++) {
        printf("  service %c, 35 rps: mean %.2f ms MPS, %.2f ms time-sliced; 3 rps: %.2f ms MPS, %.2f ms "
               "time-sliced\n",
               'a' + (int)i, busy_mps[i], busy_ts[i], calm_mps[i], calm_ts[i]);
        assert_true(busy_mps[i] < busy_ts[i]);
        assert_true(calm_ts[i] < calm_mps[i]);
        /* Each an M/D/1 at rho = 35 x 13.2 ms = 0.462: 13.2 + 0.462 x 13.2 / (2 x 0.538) = 18.87 ms. */
        assert_close(busy_mps[i], 13.2 + 0.462 * 13.2 / (2 * 0.538), 0.5);
    }
}

/* Compute is checked for replicas added at run time too: a replica of 0.6
 * and an autoscaled one of 0.4 fill a GPU (oversubscription 1), so the
 * autoscaler's asks for a second 0.4 wait forever; at 1.5 they are
 * granted.  Both runs keep provisioned = busy + switching + idle. */
static void test_runtime_compute_check_and_conservation(void **state)
{
    (void)state;
    const char *const overs[] = {"1", "1.5"};
    for (size_t k = 0; k < 2; k++) {
        fs_scenario *s = test_scenario(
            "{\"schema\": \"fleetsim/1\", \"horizon\": \"2h\", \"warmup\": 0, \"seed\": 2,"
            " \"pools\": [{\"name\": \"f\", \"gpu\": \"" H100 "\", \"gpus\": 1,"
            "   \"fractional\": {\"seats\": 4, \"oversubscription\": %s}}],"
            " \"services\": ["
            "  {\"name\": \"fixed\", \"gpu_share\": 0.6, \"memory_gb\": 10, \"replicas\": 1,"
            "   \"arrivals\": {\"poisson_rps\": 10}, \"service_time\": {\"exponential\": {\"mean\": \"20ms\"}}},"
            "  {\"name\": \"grows\", \"gpu_share\": 0.4, \"memory_gb\": 10,"
            "   \"replicas\": {\"min\": 1, \"max\": 2, \"autoscale\": {\"target_in_flight\": 0.5}},"
            "   \"arrivals\": {\"poisson_rps\": 30}, \"service_time\": {\"exponential\": {\"mean\": \"10ms\"}}}]}",
            overs[k]);
        fs_results *r = test_run(s);
        const fs_rep_result *rep = &r->policies[0].reps[0];
        const fs_pool_rep *pr = &rep->pools[0];
        uint64_t added = fs_rep_service(rep, 1)->replicas_added;
        double sum = pr->busy_gpu_s + pr->idle_gpu_s + pr->switching_gpu_s;
        printf("  oversubscription %s: replicas added %llu; gpu_s %.6f = busy %.6f + idle %.6f + switching %.6f "
               "(diff %.3g)\n",
               overs[k], (unsigned long long)added, pr->gpu_s, pr->busy_gpu_s, pr->idle_gpu_s, pr->switching_gpu_s,
               pr->gpu_s - sum);
        assert_true(k == 0 ? added == 0 : added >= 1);
        assert_true(fabs(pr->gpu_s - sum) <= 1e-6 * pr->gpu_s);
        assert_true(pr->idle_gpu_s >= 0 && pr->busy_gpu_s > 0 && pr->busy_gpu_s <= pr->gpu_s);
        assert_true(k == 0 ? pr->switching_gpu_s == 0 : pr->switching_gpu_s > 0);
        fs_results_destroy(r);
        fs_scenario_destroy(s);
    }
}

/* ---- 5. the scenario's refusals ------------------------------------------------ */

static void refused(const char *pool, const char *service, const char *want)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\","
             " \"pools\": [{\"name\": \"f\", \"gpu\": \"" H100 "\", \"gpus\": 1%s}],"
             " \"services\": [{\"name\": \"s\", \"replicas\": 1, \"arrivals\": {\"poisson_rps\": 1},"
             "   \"service_time\": {\"deterministic\": {\"value\": \"10ms\"}}%s}]}",
             pool, service);
    test_parse_refused(json, "scen.json", FS_ERR_INPUT, want);
}

static void test_scenario_refusals(void **state)
{
    (void)state;
    const char *frac = ", \"fractional\": {}";
    const char *ok = ", \"gpu_share\": 0.5, \"memory_gb\": 10";
    refused(", \"fractional\": {}, \"mig\": [\"3g.40gb\"]", ok,
            "scen.json: pools[0]: \"mig\" and \"fractional\" exclude each other");
    refused(", \"fractional\": {}, \"time_slicing\": {\"tenants\": 2}", ok,
            "scen.json: pools[0]: \"time_slicing\" and \"fractional\" exclude each other");
    refused(", \"fractional\": {\"seats\": 49}", ok,
            "scen.json: pools[0].fractional.seats: expected an integer from 1 to 48, got 49");
    refused(", \"fractional\": {\"oversubscription\": 0.9}", ok,
            "scen.json: pools[0].fractional.oversubscription: expected at least 1");
    refused(", \"fractional\": {\"mode\": \"mig\"}", ok,
            "scen.json: pools[0].fractional.mode: expected a sharing mode (\"mps\", \"virtual\"), got \"mig\"");
    refused(", \"fractional\": {\"sets\": 2}", ok, "scen.json: pools[0].fractional");
    refused(", \"placement\": \"fgd\"", "", "scen.json: pools[0].placement: \"fgd\" places the replicas of a fractional pool");
    refused(frac, ", \"memory_gb\": 10", "scen.json: services[0]: a replica on fractional pool \"f\" needs \"gpu_share\"");
    refused(frac, ", \"gpu_share\": 0.5",
            "scen.json: services[0].gpu_share: a replica on fractional pool \"f\" also needs \"memory_gb\"");
    refused(frac, ", \"gpu_share\": 0.05, \"memory_gb\": 10",
            "scen.json: services[0].gpu_share: expected a share of the GPU's compute from 0.1");
    refused(frac, ", \"gpu_share\": 1.5, \"memory_gb\": 10", "scen.json: services[0].gpu_share: expected a share");
    refused(frac, ", \"gpu_share\": 0.5, \"memory_gb\": 10, \"gpu_share_kind\": \"decoder\"",
            "scen.json: services[0].gpu_share_kind: expected a kind of work (\"compute\", \"memory\", \"prefill\", "
            "\"decode\"), got \"decoder\" (did you mean \"decode\"?)");
    refused("", ok, "scen.json: services[0].gpu_share: a compute share is asked on a fractional pool only");
    refused("", ", \"gpu_share_kind\": \"memory\"", "scen.json: services[0].gpu_share_kind: a compute share is asked");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_best_fit_packing),
        cmocka_unit_test(test_first_fit_against_best_fit),
        cmocka_unit_test(test_fgd_where_best_fit_fails),
        cmocka_unit_test(test_memory_refusal_and_stranded_compute),
        cmocka_unit_test(test_oversubscription),
        cmocka_unit_test(test_share_curves),
        cmocka_unit_test(test_replica_scale),
        cmocka_unit_test(test_mps_contention),
        cmocka_unit_test(test_virtual_contention),
        cmocka_unit_test(test_mps_against_time_slicing),
        cmocka_unit_test(test_runtime_compute_check_and_conservation),
        cmocka_unit_test(test_scenario_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
