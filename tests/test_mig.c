/*
 * test_mig — the GPU catalog and MIG placement against reference/mig.md.
 *
 * The expected tables below are typed in from mig.md rather than read from
 * gpu.c, so a wrong entry in gpu.c fails here instead of agreeing with
 * itself.  The last test is an exhaustive oracle: for every multiset of
 * profiles that passes the totals, a brute-force search over start slots
 * decides whether any placement exists, and fs_mig_place must either place
 * it or suggest an order that does, and must suggest nothing when none does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpu.h"
#include "mig.h"

#define WHY_SIZE 1024
#define MAX_PROFILES 8

typedef struct expect_profile {
    const char *name;
    unsigned compute, memory, sms, max_count;
    const char *starts; /* the valid start slots, as digits */
} expect_profile;

typedef struct expect_type {
    const char *gpu;
    size_t n;
    expect_profile p[MAX_PROFILES];
} expect_type;

/* mig.md: A100/H100 80GB share one geometry; A100 40GB and H200 rename it. */
static const expect_type expected[] = {
    {"H100-SXM-80GB",
     7,
     {{"1g.10gb", 1, 1, 16, 7, "0123456"},
      {"1g.10gb+me", 1, 1, 16, 1, "0123456"},
      {"1g.20gb", 1, 2, 26, 4, "0246"},
      {"2g.20gb", 2, 2, 32, 3, "024"},
      {"3g.40gb", 3, 4, 60, 2, "04"},
      {"4g.40gb", 4, 4, 64, 1, "0"},
      {"7g.80gb", 7, 8, 132, 1, "0"}}},
    {"H100-PCIE-80GB",
     7,
     {{"1g.10gb", 1, 1, 14, 7, "0123456"},
      {"1g.10gb+me", 1, 1, 14, 1, "0123456"},
      {"1g.20gb", 1, 2, 22, 4, "0246"},
      {"2g.20gb", 2, 2, 28, 3, "024"},
      {"3g.40gb", 3, 4, 52, 2, "04"},
      {"4g.40gb", 4, 4, 56, 1, "0"},
      {"7g.80gb", 7, 8, 114, 1, "0"}}},
    {"A100-SXM4-80GB",
     7,
     {{"1g.10gb", 1, 1, 14, 7, "0123456"},
      {"1g.10gb+me", 1, 1, 14, 1, "0123456"},
      {"1g.20gb", 1, 2, 14, 4, "0246"},
      {"2g.20gb", 2, 2, 28, 3, "024"},
      {"3g.40gb", 3, 4, 42, 2, "04"},
      {"4g.40gb", 4, 4, 56, 1, "0"},
      {"7g.80gb", 7, 8, 98, 1, "0"}}},
    {"A100-SXM4-40GB",
     6,
     {{"1g.5gb", 1, 1, 14, 7, "0123456"},
      {"1g.10gb", 1, 2, 14, 4, "0246"},
      {"2g.10gb", 2, 2, 28, 3, "024"},
      {"3g.20gb", 3, 4, 42, 2, "04"},
      {"4g.20gb", 4, 4, 56, 1, "0"},
      {"7g.40gb", 7, 8, 98, 1, "0"}}},
    {"H200-141GB",
     6,
     {{"1g.18gb", 1, 1, 16, 7, "0123456"},
      {"1g.35gb", 1, 2, 26, 4, "0246"},
      {"2g.35gb", 2, 2, 32, 3, "024"},
      {"3g.71gb", 3, 4, 60, 2, "04"},
      {"4g.71gb", 4, 4, 64, 1, "0"},
      {"7g.141gb", 7, 8, 132, 1, "0"}}},
};
#define N_EXPECTED (sizeof expected / sizeof expected[0])

static const fs_gpu_type *gpu(const char *name)
{
    const fs_gpu_type *g = fs_gpu_find(name);
    assert_non_null(g);
    return g;
}

/* Places a comma-separated layout ("3g.40gb, 2g.20gb@0"); returns fs_mig_place's result. */
static int place(const fs_gpu_type *g, const char *csv, fs_mig_layout *out, char *why)
{
    char buf[512];
    const char *entries[16];
    size_t n = 0;
    assert_true(strlen(csv) < sizeof buf);
    strcpy(buf, csv);
    for (char *tok = strtok(buf, ", "); tok; tok = strtok(NULL, ", ")) {
        assert_true(n < 16);
        entries[n++] = tok;
    }
    return fs_mig_place(g, entries, n, out, why, WHY_SIZE);
}

static void assert_starts(const fs_mig_layout *l, size_t n, const unsigned *starts)
{
    assert_int_equal(l->n, n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(l->starts[i], starts[i]);
}

/* The order after "this order fits: ", or NULL. */
static const char *suggestion(const char *why)
{
    const char *s = strstr(why, "this order fits: ");
    return s ? s + strlen("this order fits: ") : NULL;
}

/* --- (f) catalog ------------------------------------------------------- */

static void test_catalog_entries(void **state)
{
    (void)state;
    static const char *names[] = {"H100-SXM-80GB", "H100-PCIE-80GB", "H200-141GB",
                                  "A100-SXM4-80GB", "A100-SXM4-40GB", "L40S-48GB",
                                  "L4-24GB"};
    static const unsigned sms[] = {132, 114, 132, 108, 108, 142, 58};
    static const double mem[] = {80, 80, 141, 80, 40, 48, 24};
    size_t count;
    const fs_gpu_type *cat = fs_gpu_catalog(&count);
    assert_int_equal(count, 7);
    for (size_t i = 0; i < count; i++) {
        const fs_gpu_type *g = gpu(names[i]);
        assert_ptr_equal(g, &cat[i]);
        assert_int_equal(g->sms, sms[i]);
        assert_true(g->memory_gb == mem[i]);
        assert_true(g->price_on_demand > 0 && g->price_spot > 0);
        assert_true(g->price_spot <= g->price_on_demand);
        assert_true(g->idle_w > 0 && g->idle_w < g->busy_w);
        assert_true((g->mig == NULL) == (g->n_mig == 0));
        for (size_t j = 0; j < g->n_mig; j++) {
            const fs_mig_profile *p = &g->mig[j];
            assert_true(p->sms > 0 && p->sms <= g->sms);
            assert_true(p->memory_gb > 0 && p->memory_gb <= g->memory_gb);
            /* Usable memory stays under the nominal share of the GPU. */
            assert_true(p->memory_gb <= g->memory_gb * p->memory_slices / 8.0 + 1e-9);
            /* Every valid start leaves room for the instance. */
            for (unsigned s = 0; s < 8; s++)
                if (p->starts & (1u << s))
                    assert_true(s + p->memory_slices <= 8);
            /* The maximum count is reachable within the totals. */
            assert_true(p->max_count * p->compute_slices <= 7);
            assert_true(p->max_count * p->memory_slices <= 8);
        }
    }
    assert_null(fs_gpu_find("H100"));
    assert_null(fs_gpu_find(""));
    assert_null(fs_gpu_find("h100-sxm-80gb"));
}

static void test_catalog_reference_figures(void **state)
{
    (void)state;
    /* The numbers reference/costs.md gives directly. */
    const fs_gpu_type *h100 = gpu("H100-SXM-80GB");
    assert_true(h100->price_on_demand == 6.88 && h100->price_spot == 2.46);
    assert_true(h100->busy_w == 700);
    assert_true(gpu("H100-PCIE-80GB")->busy_w == 350);
    assert_true(gpu("H200-141GB")->busy_w == 700);
    assert_true(gpu("A100-SXM4-80GB")->price_on_demand == 3.43);
    assert_true(gpu("A100-SXM4-80GB")->busy_w == 400);
    const fs_gpu_type *a40 = gpu("A100-SXM4-40GB");
    assert_true(a40->price_on_demand == 2.74 && a40->price_spot == 0.76 && a40->busy_w == 400);
    const fs_gpu_type *l4 = gpu("L4-24GB");
    assert_true(l4->price_on_demand == 0.74 && l4->busy_w == 72 && l4->idle_w == 16);
    /* mig.md's nvidia-smi figures for H100 80GB. */
    assert_true(fs_gpu_mig_profile(h100, "1g.10gb")->memory_gb == 9.75);
    assert_true(fs_gpu_mig_profile(h100, "1g.20gb")->memory_gb == 19.62);
    assert_true(fs_gpu_mig_profile(h100, "2g.20gb")->memory_gb == 19.62);
    assert_true(fs_gpu_mig_profile(h100, "3g.40gb")->memory_gb == 39.50);
}

static void test_catalog_profile_tables(void **state)
{
    (void)state;
    for (size_t t = 0; t < N_EXPECTED; t++) {
        const expect_type *e = &expected[t];
        const fs_gpu_type *g = gpu(e->gpu);
        assert_int_equal(g->n_mig, e->n);
        for (size_t i = 0; i < e->n; i++) {
            const expect_profile *x = &e->p[i];
            const fs_mig_profile *p = fs_gpu_mig_profile(g, x->name);
            assert_non_null(p);
            assert_ptr_equal(p, &g->mig[i]);
            assert_string_equal(p->name, x->name);
            assert_int_equal(p->compute_slices, x->compute);
            assert_int_equal(p->memory_slices, x->memory);
            assert_int_equal(p->sms, x->sms);
            assert_int_equal(p->max_count, x->max_count);
            unsigned mask = 0;
            for (const char *c = x->starts; *c; c++)
                mask |= 1u << (*c - '0');
            assert_int_equal(p->starts, mask);
        }
    }
}

static void test_catalog_profile_lookup(void **state)
{
    (void)state;
    const fs_gpu_type *h100 = gpu("H100-SXM-80GB");
    const fs_mig_profile *p = fs_gpu_mig_profile(h100, "3g.40gb");
    assert_non_null(p);
    assert_int_equal(p->compute_slices, 3);
    assert_int_equal(p->memory_slices, 4);
    assert_non_null(fs_gpu_mig_profile(h100, "1g.10gb+me"));
    assert_null(fs_gpu_mig_profile(h100, "3g.20gb"));
    assert_null(fs_gpu_mig_profile(h100, "3g.40gb@4"));
    assert_null(fs_gpu_mig_profile(h100, "3g.40"));
    assert_null(fs_gpu_mig_profile(h100, ""));
    /* 1g.10gb is one memory slice on 80GB parts and two on A100 40GB. */
    assert_int_equal(fs_gpu_mig_profile(gpu("A100-SXM4-40GB"), "1g.10gb")->memory_slices, 2);
    assert_int_equal(fs_gpu_mig_profile(gpu("A100-SXM4-80GB"), "1g.10gb")->memory_slices, 1);
    assert_null(fs_gpu_mig_profile(gpu("H200-141GB"), "1g.10gb+me"));
    assert_null(fs_gpu_mig_profile(gpu("L4-24GB"), "1g.10gb"));
    assert_null(fs_gpu_mig_profile(gpu("L40S-48GB"), "1g.10gb"));
}

/* --- (a) every profile alone, pinned at every slot --------------------- */

static void test_every_profile_every_slot(void **state)
{
    (void)state;
    char why[WHY_SIZE];
    for (size_t t = 0; t < N_EXPECTED; t++) {
        const fs_gpu_type *g = gpu(expected[t].gpu);
        for (size_t i = 0; i < expected[t].n; i++) {
            const expect_profile *x = &expected[t].p[i];
            for (unsigned s = 0; s < 8; s++) {
                char entry[64];
                snprintf(entry, sizeof entry, "%s@%u", x->name, s);
                const char *layout[] = {entry};
                fs_mig_layout out;
                int rc = fs_mig_place(g, layout, 1, &out, why, sizeof why);
                bool valid = strchr(x->starts, (int)('0' + s)) != NULL;
                if (valid) {
                    assert_int_equal(rc, 0);
                    assert_int_equal(out.n, 1);
                    assert_ptr_equal(out.profiles[0], fs_gpu_mig_profile(g, x->name));
                    assert_int_equal(out.starts[0], s);
                    assert_int_equal(fs_mig_unused_compute(&out), 7 - x->compute);
                } else {
                    assert_int_equal(rc, -1);
                    assert_non_null(strstr(why, "cannot start at slot"));
                    assert_non_null(strstr(why, "starts only at slot"));
                }
            }
            /* Unpinned alone: the lowest valid start, always 0. */
            const char *layout[] = {x->name};
            fs_mig_layout out;
            assert_int_equal(fs_mig_place(g, layout, 1, &out, why, sizeof why), 0);
            assert_int_equal(out.starts[0], 0);
        }
    }
}

/* --- (b) maximum counts ------------------------------------------------ */

static void test_max_counts(void **state)
{
    (void)state;
    char why[WHY_SIZE];
    for (size_t t = 0; t < N_EXPECTED; t++) {
        const fs_gpu_type *g = gpu(expected[t].gpu);
        for (size_t i = 0; i < expected[t].n; i++) {
            const expect_profile *x = &expected[t].p[i];
            const char *layout[8];
            for (unsigned k = 0; k <= x->max_count; k++)
                layout[k] = x->name;
            fs_mig_layout out;
            assert_int_equal(fs_mig_place(g, layout, x->max_count, &out, why, sizeof why), 0);
            assert_int_equal(out.n, x->max_count);
            /* Sequential placement fills the valid starts lowest first. */
            unsigned k = 0;
            for (const char *c = x->starts; *c && k < x->max_count; c++) {
                unsigned s = (unsigned)(*c - '0');
                if (k == 0 || s >= out.starts[k - 1] + x->memory) {
                    assert_int_equal(out.starts[k], s);
                    k++;
                }
            }
            assert_int_equal(k, x->max_count);
            assert_int_equal(fs_mig_place(g, layout, x->max_count + 1, &out, why, sizeof why),
                             -1);
        }
    }
    /* The +me profile is the one whose limit is reached inside the totals. */
    fs_mig_layout out;
    assert_int_equal(place(gpu("H100-SXM-80GB"), "1g.10gb+me, 1g.10gb+me", &out, why), -1);
    assert_string_equal(why, "1g.10gb+me appears 2 times; a GPU holds at most 1");
    assert_int_equal(place(gpu("A100-SXM4-80GB"), "1g.10gb+me, 1g.10gb, 1g.10gb+me", &out, why),
                     -1);
    assert_string_equal(why, "1g.10gb+me appears 2 times; a GPU holds at most 1");
    /* One +me beside six plain 1g instances fills all seven. */
    assert_int_equal(place(gpu("H100-SXM-80GB"),
                           "1g.10gb+me, 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb", &out,
                           why),
                     0);
    assert_int_equal(fs_mig_unused_compute(&out), 0);
}

/* --- (c) mig.md's worked examples -------------------------------------- */

/* The examples in 80GB names; rename() maps them to the other tables. */
static const char *const names_80[] = {"1g.10gb", "1g.20gb", "2g.20gb",
                                       "3g.40gb", "4g.40gb", "7g.80gb"};
static const char *const names_40[] = {"1g.5gb", "1g.10gb", "2g.10gb",
                                       "3g.20gb", "4g.20gb", "7g.40gb"};
static const char *const names_h200[] = {"1g.18gb", "1g.35gb", "2g.35gb",
                                         "3g.71gb", "4g.71gb", "7g.141gb"};

/* Rewrites every 80GB profile name in csv into `to`'s names (same geometry). */
static void rename_layout(const char *csv, const char *const *to, char *out, size_t size)
{
    char buf[512];
    strcpy(buf, csv);
    out[0] = '\0';
    size_t len = 0;
    const char *sep = "";
    for (char *tok = strtok(buf, ", "); tok; tok = strtok(NULL, ", ")) {
        char *at = strchr(tok, '@');
        if (at)
            *at = '\0';
        const char *name = NULL;
        for (size_t i = 0; i < 6; i++)
            if (strcmp(tok, names_80[i]) == 0)
                name = to[i];
        assert_non_null(name);
        int n = snprintf(out + len, size - len, "%s%s%s%s", sep, name, at ? "@" : "",
                         at ? at + 1 : "");
        assert_true(n > 0 && (size_t)n < size - len);
        len += (size_t)n;
        sep = ", ";
    }
}

typedef struct example {
    const char *layout;
    int rc;
    size_t n;
    unsigned starts[7];
    const char *fits; /* the suggested order on failure, or NULL for none */
} example;

static const example examples[] = {
    {"4g.40gb, 3g.40gb", 0, 2, {0, 4}, NULL},
    {"3g.40gb, 3g.40gb", 0, 2, {0, 4}, NULL},
    {"4g.40gb, 4g.40gb", -1, 0, {0}, NULL},
    {"2g.20gb, 2g.20gb, 2g.20gb, 1g.10gb", 0, 4, {0, 2, 4, 6}, NULL},
    {"3g.40gb, 2g.20gb, 1g.10gb", 0, 3, {0, 4, 6}, NULL},
    {"3g.40gb, 2g.20gb, 2g.20gb", -1, 0, {0}, "2g.20gb, 2g.20gb, 3g.40gb"},
    {"2g.20gb, 2g.20gb, 3g.40gb", 0, 3, {0, 2, 4}, NULL},
    {"3g.40gb@4, 2g.20gb, 2g.20gb", 0, 3, {4, 0, 2}, NULL},
    {"4g.40gb, 2g.20gb, 2g.20gb", -1, 0, {0}, NULL},
    {"1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb", 0, 7, {0, 1, 2, 3, 4, 5, 6},
     NULL},
    {"7g.80gb", 0, 1, {0}, NULL},
    {"1g.20gb, 1g.20gb, 1g.20gb, 1g.20gb", 0, 4, {0, 2, 4, 6}, NULL},
};

static void check_examples(const char *gpu_name, const char *const *to)
{
    char why[WHY_SIZE];
    const fs_gpu_type *g = gpu(gpu_name);
    for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++) {
        const example *x = &examples[i];
        char layout[512];
        rename_layout(x->layout, to, layout, sizeof layout);
        fs_mig_layout out;
        int rc = place(g, layout, &out, why);
        if (rc != x->rc)
            fail_msg("%s: %s gave %d (%s)", gpu_name, layout, rc, why);
        if (rc == 0) {
            assert_starts(&out, x->n, x->starts);
            continue;
        }
        const char *fits = suggestion(why);
        if (!x->fits) {
            assert_null(fits);
            continue;
        }
        char want[512];
        rename_layout(x->fits, to, want, sizeof want);
        assert_non_null(fits);
        assert_string_equal(fits, want);
        assert_int_equal(place(g, fits, &out, why), 0);
    }
}

static void test_worked_examples(void **state)
{
    (void)state;
    check_examples("H100-SXM-80GB", names_80);
    check_examples("A100-SXM4-80GB", names_80);
    check_examples("H100-PCIE-80GB", names_80);

    char why[WHY_SIZE];
    fs_mig_layout out;
    const fs_gpu_type *g = gpu("H100-SXM-80GB");
    assert_int_equal(place(g, "3g.40gb, 3g.40gb", &out, why), 0);
    assert_int_equal(fs_mig_unused_compute(&out), 1);
    assert_int_equal(place(g, "4g.40gb, 3g.40gb", &out, why), 0);
    assert_int_equal(fs_mig_unused_compute(&out), 0);
    assert_int_equal(place(g, "1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb",
                           &out, why),
                     0);
    assert_int_equal(fs_mig_unused_compute(&out), 0);

    /* The header's example message, word for word. */
    assert_int_equal(place(g, "3g.40gb, 2g.20gb, 2g.20gb", &out, why), -1);
    assert_string_equal(why, "no free placement for 2g.20gb after 3g.40gb, 2g.20gb (2g.20gb "
                             "starts only at slots 0, 2, 4; slots 0-5 are taken); this order "
                             "fits: 2g.20gb, 2g.20gb, 3g.40gb");
    /* mig.md explains this one by memory, but it is also one compute slice
     * over, and the totals are checked first. */
    assert_int_equal(place(g, "4g.40gb, 2g.20gb, 2g.20gb", &out, why), -1);
    assert_string_equal(why, "the layout uses 8 of 7 compute slices: 4g.40gb + 2g.20gb + 2g.20gb");
    /* A pin can make a layout that fits in some order fit in none. */
    assert_int_equal(place(g, "3g.40gb@0, 2g.20gb, 2g.20gb", &out, why), -1);
    assert_string_equal(why, "no free placement for 2g.20gb after 3g.40gb@0, 2g.20gb (2g.20gb "
                             "starts only at slots 0, 2, 4; slots 0-5 are taken)");
    assert_int_equal(place(g, "4g.40gb, 4g.40gb", &out, why), -1);
    assert_string_equal(why, "the layout uses 8 of 7 compute slices: 4g.40gb + 4g.40gb");
}

/* --- (e) the A100 40GB and H200 tables ------------------------------------ */

static void test_renamed_tables(void **state)
{
    (void)state;
    check_examples("A100-SXM4-40GB", names_40);
    check_examples("H200-141GB", names_h200);

    char why[WHY_SIZE];
    fs_mig_layout out;
    assert_int_equal(place(gpu("A100-SXM4-40GB"), "3g.20gb, 2g.10gb, 2g.10gb", &out, why), -1);
    assert_string_equal(why, "no free placement for 2g.10gb after 3g.20gb, 2g.10gb (2g.10gb "
                             "starts only at slots 0, 2, 4; slots 0-5 are taken); this order "
                             "fits: 2g.10gb, 2g.10gb, 3g.20gb");
    /* A100 40GB's 1g.10gb takes two memory slices, so it cannot start at 1. */
    assert_int_equal(place(gpu("A100-SXM4-40GB"), "1g.10gb@1", &out, why), -1);
    assert_string_equal(why, "1g.10gb cannot start at slot 1 (1g.10gb starts only at slots 0, 2, "
                             "4, 6)");
    assert_int_equal(place(gpu("A100-SXM4-80GB"), "1g.10gb@1", &out, why), 0);
    /* 80GB names are not H200 names. */
    assert_int_equal(place(gpu("H200-141GB"), "3g.40gb", &out, why), -1);
    assert_string_equal(why, "unknown MIG profile \"3g.40gb\" for H200-141GB (its profiles: "
                             "1g.18gb, 1g.35gb, 2g.35gb, 3g.71gb, 4g.71gb, 7g.141gb)");
}

/* --- (d) reasons ------------------------------------------------------- */

static void test_reasons(void **state)
{
    (void)state;
    char why[WHY_SIZE];
    fs_mig_layout out;
    const fs_gpu_type *h100 = gpu("H100-SXM-80GB");

    assert_int_equal(place(h100, "3g.20gb", &out, why), -1);
    assert_string_equal(why, "unknown MIG profile \"3g.20gb\" for H100-SXM-80GB (its profiles: "
                             "1g.10gb, 1g.10gb+me, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb)");
    assert_int_equal(place(h100, "2g.20gb, mig-3g", &out, why), -1);
    assert_non_null(strstr(why, "unknown MIG profile \"mig-3g\" for H100-SXM-80GB"));
    assert_int_equal(place(h100, "@4", &out, why), -1);
    assert_non_null(strstr(why, "unknown MIG profile \"\""));

    assert_int_equal(place(gpu("L4-24GB"), "1g.10gb", &out, why), -1);
    assert_string_equal(why, "L4-24GB has no MIG");
    assert_int_equal(place(gpu("L40S-48GB"), "1g.10gb", &out, why), -1);
    assert_string_equal(why, "L40S-48GB has no MIG");

    assert_int_equal(place(h100, "3g.40gb, 3g.40gb, 2g.20gb", &out, why), -1);
    assert_string_equal(why, "the layout uses 8 of 7 compute slices: 3g.40gb + 3g.40gb + 2g.20gb");
    assert_int_equal(place(h100, "3g.40gb, 3g.40gb, 1g.10gb", &out, why), -1);
    assert_string_equal(why, "the layout uses 9 of 8 memory slices: 3g.40gb (4) + 3g.40gb (4) + "
                             "1g.10gb (1)");
    assert_int_equal(place(h100, "1g.20gb, 1g.20gb, 1g.20gb, 1g.20gb, 1g.10gb", &out, why), -1);
    assert_non_null(strstr(why, "the layout uses 9 of 8 memory slices"));
    assert_int_equal(
        place(h100, "1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb", &out,
              why),
        -1);
    assert_string_equal(why, "the layout has 8 instances; a GPU holds at most 7");
    /* A typo is reported as a typo, even in a list that is also too long. */
    assert_int_equal(
        place(h100, "1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb, 1g.1gb", &out,
              why),
        -1);
    assert_non_null(strstr(why, "unknown MIG profile \"1g.1gb\""));

    /* Pins: syntax, then the profile's valid starts. */
    static const char *const bad_slots[] = {"3g.40gb@8", "3g.40gb@", "3g.40gb@x", "3g.40gb@04",
                                            "3g.40gb@-1", "3g.40gb@4@"};
    for (size_t i = 0; i < sizeof bad_slots / sizeof bad_slots[0]; i++) {
        const char *layout[] = {bad_slots[i]};
        assert_int_equal(fs_mig_place(h100, layout, 1, &out, why, sizeof why), -1);
        assert_non_null(strstr(why, "bad slot in"));
    }
    assert_int_equal(place(h100, "3g.40gb@2", &out, why), -1);
    assert_string_equal(why, "3g.40gb cannot start at slot 2 (3g.40gb starts only at slots 0, 4)");
    assert_int_equal(place(h100, "4g.40gb@4", &out, why), -1);
    assert_string_equal(why, "4g.40gb cannot start at slot 4 (4g.40gb starts only at slot 0)");

    /* Two pins that overlap: no order helps. */
    assert_int_equal(place(h100, "3g.40gb@0, 2g.20gb@2", &out, why), -1);
    assert_string_equal(why, "no free placement for 2g.20gb@2 after 3g.40gb@0 (2g.20gb@2 needs "
                             "slots 2-3; slots 0-3 are taken)");
    /* An unpinned instance took a later pin's slots: creating the pin first fits. */
    assert_int_equal(place(h100, "2g.20gb, 3g.40gb@0", &out, why), -1);
    assert_string_equal(why, "no free placement for 3g.40gb@0 after 2g.20gb (3g.40gb@0 needs "
                             "slots 0-3; slots 0-1 are taken); this order fits: 3g.40gb@0, "
                             "2g.20gb");
    assert_int_equal(place(h100, "1g.10gb, 1g.10gb@0", &out, why), -1);
    assert_string_equal(why, "no free placement for 1g.10gb@0 after 1g.10gb (1g.10gb@0 needs slot "
                             "0; slot 0 is taken); this order fits: 1g.10gb@0, 1g.10gb");
    /* 1g fails with only slot 7 free (it may not start there). */
    assert_int_equal(place(h100, "1g.20gb, 1g.20gb, 1g.20gb, 1g.10gb, 1g.10gb", &out, why), -1);
    assert_string_equal(why, "no free placement for 1g.10gb after 1g.20gb, 1g.20gb, 1g.20gb, "
                             "1g.10gb (1g.10gb starts only at slots 0, 1, 2, 3, 4, 5, 6; slots "
                             "0-6 are taken); this order fits: 1g.10gb, 1g.10gb, 1g.20gb, "
                             "1g.20gb, 1g.20gb");
    assert_int_equal(place(h100, "1g.10gb, 1g.10gb, 1g.20gb, 1g.20gb, 1g.20gb", &out, why), 0);
    unsigned want[] = {0, 1, 2, 4, 6};
    assert_starts(&out, 5, want);

    /* Empty layout. */
    assert_int_equal(fs_mig_place(h100, NULL, 0, &out, why, sizeof why), -1);
    assert_string_equal(why, "the MIG layout is empty");
}

static void test_failure_leaves_output_and_buffer_safe(void **state)
{
    (void)state;
    const fs_gpu_type *h100 = gpu("H100-SXM-80GB");
    fs_mig_layout out, before;
    memset(&out, 0xA5, sizeof out);
    memcpy(&before, &out, sizeof out);
    char why[WHY_SIZE];
    assert_int_equal(place(h100, "3g.40gb, 2g.20gb, 2g.20gb", &out, why), -1);
    assert_memory_equal(&out, &before, sizeof out);

    /* A short buffer gets a terminated prefix of the reason. */
    const char *layout[] = {"3g.40gb", "2g.20gb", "2g.20gb"};
    char small[17];
    memset(small, 'x', sizeof small);
    assert_int_equal(fs_mig_place(h100, layout, 3, &out, small, 16), -1);
    assert_int_equal(strlen(small), 15);
    assert_memory_equal(small, "no free placeme", 15);
    assert_int_equal(small[16], 'x');
    /* No buffer at all is allowed. */
    assert_int_equal(fs_mig_place(h100, layout, 3, &out, NULL, 0), -1);
    char one[1] = {'x'};
    assert_int_equal(fs_mig_place(h100, layout, 3, &out, one, 1), -1);
    assert_int_equal(one[0], '\0');
    const char *ok[] = {"7g.80gb"};
    assert_int_equal(fs_mig_place(h100, ok, 1, &out, why, sizeof why), 0);
    assert_int_equal(out.n, 1);
    assert_int_equal(fs_mig_unused_compute(&out), 0);
}

/* --- (g) exhaustive oracle ------------------------------------------------ */

typedef struct oracle_item {
    const fs_mig_profile *p;
    int pin; /* -1: none */
} oracle_item;

/* Does any assignment of valid, non-overlapping starts exist?  Tries every
 * start of every instance (only the pinned one for a pin): the definition,
 * with no ordering rule in it. */
static bool any_assignment(const oracle_item *it, size_t n, size_t i, unsigned used)
{
    if (i == n)
        return true;
    for (unsigned s = 0; s < 8; s++) {
        const fs_mig_profile *p = it[i].p;
        if (!(p->starts & (1u << s)) || s + p->memory_slices > 8)
            continue;
        if (it[i].pin >= 0 && (unsigned)it[i].pin != s)
            continue;
        unsigned span = ((1u << p->memory_slices) - 1u) << s;
        if (!(span & used) && any_assignment(it, n, i + 1, used | span))
            return true;
    }
    return false;
}

static size_t oracle_cases, oracle_fits, oracle_reordered, oracle_unpinned, oracle_unpinned_fits;

/* Checks one layout given in the order it[]. */
static void check_layout(const fs_gpu_type *g, const oracle_item *it, size_t n)
{
    char names[7][32];
    const char *order[7] = {NULL};
    for (size_t i = 0; i < n; i++) {
        if (it[i].pin < 0)
            snprintf(names[i], sizeof names[i], "%s", it[i].p->name);
        else
            snprintf(names[i], sizeof names[i], "%s@%d", it[i].p->name, it[i].pin);
        order[i] = names[i];
    }
    bool exists = any_assignment(it, n, 0, 0);
    oracle_cases++;
    oracle_fits += exists;

    char why[WHY_SIZE];
    fs_mig_layout out;
    int rc = fs_mig_place(g, order, n, &out, why, sizeof why);
    if (rc == 0) {
        assert_true(exists);
        /* The result is itself a valid placement that honours the pins. */
        unsigned used = 0;
        for (size_t i = 0; i < n; i++) {
            const fs_mig_profile *q = out.profiles[i];
            assert_ptr_equal(q, it[i].p);
            assert_true(q->starts & (1u << out.starts[i]));
            if (it[i].pin >= 0)
                assert_int_equal(out.starts[i], (unsigned)it[i].pin);
            unsigned span = ((1u << q->memory_slices) - 1u) << out.starts[i];
            assert_int_equal(span & used, 0);
            used |= span;
        }
        return;
    }
    const char *fits = suggestion(why);
    if (!exists) {
        if (fits)
            fail_msg("%s: suggested %s but no placement exists", g->name, fits);
        return;
    }
    if (!fits)
        fail_msg("%s: %s, yet a placement exists", g->name, why);
    oracle_reordered++;
    assert_int_equal(place(g, fits, &out, why), 0);
    assert_int_equal(out.n, n);
}

/* One multiset (counts[] per profile): unpinned in table order and reversed,
 * then with its first instance pinned at each valid start, in both orders. */
static void check_multiset(const fs_gpu_type *g, const unsigned *counts)
{
    oracle_item it[7], rev[7];
    size_t n = 0;
    unsigned compute = 0, memory = 0;
    for (size_t j = 0; j < g->n_mig; j++)
        for (unsigned k = 0; k < counts[j]; k++) {
            it[n].p = &g->mig[j];
            it[n++].pin = -1;
            compute += g->mig[j].compute_slices;
            memory += g->mig[j].memory_slices;
        }
    if (n == 0 || compute > 7 || memory > 8)
        return;
    oracle_unpinned++;
    oracle_unpinned_fits += any_assignment(it, n, 0, 0);
    for (int pin = -1; pin < 8; pin++) {
        if (pin >= 0 && !(it[0].p->starts & (1u << pin)))
            continue;
        it[0].pin = pin;
        for (size_t i = 0; i < n; i++)
            rev[i] = it[n - 1 - i];
        check_layout(g, it, n);
        check_layout(g, rev, n);
    }
}

/* Every multiset of at most 7 instances, each profile within its maximum count. */
static void enumerate(const fs_gpu_type *g, unsigned *counts, size_t j, unsigned total)
{
    if (j == g->n_mig) {
        check_multiset(g, counts);
        return;
    }
    for (unsigned c = 0; c <= g->mig[j].max_count && total + c <= 7; c++) {
        counts[j] = c;
        enumerate(g, counts, j + 1, total + c);
    }
    counts[j] = 0;
}

static void test_exhaustive_against_brute_force(void **state)
{
    (void)state;
    size_t count;
    const fs_gpu_type *cat = fs_gpu_catalog(&count);
    oracle_cases = oracle_fits = oracle_reordered = oracle_unpinned = oracle_unpinned_fits = 0;
    for (size_t i = 0; i < count; i++) {
        if (!cat[i].mig)
            continue;
        unsigned counts[MAX_PROFILES] = {0};
        enumerate(&cat[i], counts, 0, 0);
    }
    /* Guards against an enumeration that silently checks nothing. */
    assert_true(oracle_cases > 1000);
    assert_true(oracle_fits > 100 && oracle_fits < oracle_cases);
    assert_true(oracle_reordered > 0);
    /* A fact of NVIDIA's geometry worth pinning: without pins, every layout
     * within the totals and maximum counts has some start assignment (so the
     * only layouts refused after the totals are ones whose order or pins are
     * wrong, and fs_mig_place then offers an order). */
    assert_int_equal(oracle_unpinned_fits, oracle_unpinned);
    print_message("exhaustive: %zu layouts without pins within the totals, all placeable; "
                  "%zu checked with pins and orders, %zu placeable, %zu needed another order\n",
                  oracle_unpinned, oracle_cases, oracle_fits, oracle_reordered);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_catalog_entries),
        cmocka_unit_test(test_catalog_reference_figures),
        cmocka_unit_test(test_catalog_profile_tables),
        cmocka_unit_test(test_catalog_profile_lookup),
        cmocka_unit_test(test_every_profile_every_slot),
        cmocka_unit_test(test_max_counts),
        cmocka_unit_test(test_worked_examples),
        cmocka_unit_test(test_renamed_tables),
        cmocka_unit_test(test_reasons),
        cmocka_unit_test(test_failure_leaves_output_and_buffer_safe),
        cmocka_unit_test(test_exhaustive_against_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
