#include "window_csv.h"

#include <errno.h>
#include <stdlib.h>

#include "results_csv.h"
#include "spool.h"

struct fs_window_csv {
    fs_output *out;
    FILE *series, *pools, *breaches, *llm;
    /* The replication running: its rows, one segment per service or pool. */
    fs_spool *services, *pool_rows, *breach_starts;
};

/* Records read back from a spool at a time. */
#define FS__CHUNK 128

static void fs__drop_spools(fs_window_csv *c)
{
    fs_spool_destroy(c->services);
    fs_spool_destroy(c->pool_rows);
    fs_spool_destroy(c->breach_starts);
    c->services = c->pool_rows = c->breach_starts = NULL;
}

static int fs__begin(void *ctx, const fs_results *r, size_t policy, uint32_t replication)
{
    (void)replication;
    fs_window_csv *c = ctx;
    const fs_scenario *s = r->policies[policy].scenario;
    fs__drop_spools(c);
    /* A breach segment holds at most its service's SLO windows. */
    size_t slo_cap = 0;
    for (size_t i = 0; i < s->n_services; i++) {
        size_t cap = fs_windows_bound(s, s->services[i].slo.window_s);
        slo_cap = cap > slo_cap ? cap : slo_cap;
    }
    size_t cap = fs_windows_bound(s, s->window_s);
    int rc = fs_spool_create(c->out->dir, s->n_services, cap, sizeof(fs_service_window), &c->services);
    if (rc == 0)
        rc = fs_spool_create(c->out->dir, s->n_pools, cap, sizeof(fs_pool_window), &c->pool_rows);
    if (rc == 0)
        rc = fs_spool_create(c->out->dir, s->n_services, slo_cap, sizeof(double), &c->breach_starts);
    return rc;
}

static int fs__service_window(void *ctx, size_t service, const fs_service_window *w)
{
    return fs_spool_put(((fs_window_csv *)ctx)->services, service, w);
}

static int fs__pool_window(void *ctx, size_t pool, const fs_pool_window *w)
{
    return fs_spool_put(((fs_window_csv *)ctx)->pool_rows, pool, w);
}

static int fs__slo_breach(void *ctx, size_t service, double window_start_s)
{
    return fs_spool_put(((fs_window_csv *)ctx)->breach_starts, service, &window_start_s);
}

/* What one table's rows are: the spool, and how a record becomes a row. */
typedef struct fs__table {
    fs_spool *spool;
    size_t size;
    FILE *fp;
    void (*row)(FILE *fp, const fs_policy_result *pol, uint32_t replication, size_t index, const void *rec);
} fs__table;

static void fs__service_row(FILE *fp, const fs_policy_result *pol, uint32_t k, size_t i, const void *rec)
{
    fs_results_csv_service_row(fp, pol->name, k, pol->scenario->services[i].name, rec);
}

static void fs__llm_row(FILE *fp, const fs_policy_result *pol, uint32_t k, size_t i, const void *rec)
{
    fs_results_csv_llm_row(fp, pol->name, k, pol->scenario->services[i].name, rec);
}

static void fs__pool_row(FILE *fp, const fs_policy_result *pol, uint32_t k, size_t i, const void *rec)
{
    fs_results_csv_pool_row(fp, pol->name, k, pol->scenario->pools[i].name, rec);
}

static void fs__breach_row(FILE *fp, const fs_policy_result *pol, uint32_t k, size_t i, const void *rec)
{
    fs_results_csv_breach_row(fp, pol->name, k, pol->scenario->services[i].name, *(const double *)rec,
                              pol->scenario->services[i].slo.window_s);
}

/* An LLM service's rows also go to llm_timeseries.csv (as rep->llm). */
static bool fs__llm(const fs_scenario *s, size_t service)
{
    return s->services[service].batching.kind == FS_BATCHING_CONTINUOUS;
}

/* Writes segments 0..n-1 of t's spool as rows, segment by segment (only
 * LLM services' when llm_only). */
static int fs__write(const fs__table *t, const fs_policy_result *pol, uint32_t k, size_t n, bool llm_only)
{
    fs_service_window chunk[FS__CHUNK]; /* the largest record, so any fits, aligned */
    unsigned char *bytes = (unsigned char *)chunk;
    for (size_t i = 0; i < n; i++) {
        if (llm_only && !fs__llm(pol->scenario, i))
            continue;
        size_t count = fs_spool_count(t->spool, i);
        for (size_t first = 0; first < count; first += FS__CHUNK) {
            size_t m = count - first < FS__CHUNK ? count - first : FS__CHUNK;
            int rc = fs_spool_read(t->spool, i, first, m, chunk);
            if (rc != 0)
                return rc;
            for (size_t j = 0; j < m; j++)
                t->row(t->fp, pol, k, i, bytes + j * t->size);
        }
    }
    return ferror(t->fp) ? EIO : 0;
}

static int fs__end(void *ctx, const fs_results *r, size_t policy, uint32_t replication)
{
    fs_window_csv *c = ctx;
    const fs_policy_result *pol = &r->policies[policy];
    const fs_scenario *s = pol->scenario;
    bool llm = false;
    for (size_t i = 0; i < s->n_services; i++)
        llm = llm || fs__llm(s, i);
    if (llm && !c->llm) {
        fs_error err;
        if (fs_output_open(c->out, "llm_timeseries.csv", &c->llm, &err) != FS_OK)
            return errno ? errno : EIO;
        fputs(fs_results_csv_llm_header, c->llm);
    }
    const fs__table series = {c->services, sizeof(fs_service_window), c->series, fs__service_row};
    const fs__table llm_series = {c->services, sizeof(fs_service_window), c->llm, fs__llm_row};
    const fs__table pools = {c->pool_rows, sizeof(fs_pool_window), c->pools, fs__pool_row};
    const fs__table breaches = {c->breach_starts, sizeof(double), c->breaches, fs__breach_row};
    int rc = fs__write(&series, pol, replication, s->n_services, false);
    if (rc == 0 && llm)
        rc = fs__write(&llm_series, pol, replication, s->n_services, true);
    if (rc == 0)
        rc = fs__write(&pools, pol, replication, s->n_pools, false);
    if (rc == 0)
        rc = fs__write(&breaches, pol, replication, s->n_services, false);
    /* The scratch files go now, and with them their disk. */
    fs__drop_spools(c);
    return rc;
}

int fs_window_csv_begin(fs_output *out, fs_window_csv **csv, fs_error *err)
{
    fs_window_csv *c = calloc(1, sizeof *c);
    if (!c)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    c->out = out;
    if (fs_output_open(out, "timeseries.csv", &c->series, err) != FS_OK ||
        fs_output_open(out, "pools_timeseries.csv", &c->pools, err) != FS_OK ||
        fs_output_open(out, "slo_breaches.csv", &c->breaches, err) != FS_OK) {
        free(c);
        return FS_ERR_RUNTIME;
    }
    fputs(fs_results_csv_timeseries_header, c->series);
    fputs(fs_results_csv_pool_header, c->pools);
    fputs(fs_results_csv_breaches_header, c->breaches);
    *csv = c;
    return FS_OK;
}

fs_window_sink fs_window_csv_sink(fs_window_csv *csv)
{
    return (fs_window_sink){.ctx = csv,
                            .scratch_dir = csv->out->dir,
                            .begin = fs__begin,
                            .service_window = fs__service_window,
                            .pool_window = fs__pool_window,
                            .slo_breach = fs__slo_breach,
                            .end = fs__end};
}

int fs_window_csv_end(fs_window_csv *csv, fs_error *err)
{
    fs__drop_spools(csv);
    int rc = fs_results_csv_check(csv->series, err, "the time series");
    if (rc == FS_OK)
        rc = fs_results_csv_check(csv->pools, err, "the pool time series");
    if (rc == FS_OK)
        rc = fs_results_csv_check(csv->breaches, err, "the SLO breaches");
    if (rc == FS_OK && csv->llm)
        rc = fs_results_csv_check(csv->llm, err, "the LLM time series");
    free(csv);
    return rc;
}
