/*
 * Sealed replications' service records on disk (results.h,
 * FS_RESULTS_KEEP_REP_BYTES): a run of many services and replications keeps
 * the first few replications' records in memory and spools the rest, one
 * spool segment per replication, read back FS_RESULTS_REP_BLOCK records at a
 * time into the replication's block.  Outputs read a service across
 * replications (summaries) or a replication across services (rows), and
 * either way each block is read once per pass.
 */
#include "results.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spool.h"

struct fs_rep_block {
    fs_spool *spool;              /* the results' (borrowed) */
    int *error;                   /* the results' fs_results_spill_error (borrowed) */
    size_t segment, n_services;   /* the replication's segment, and its records */
    uint64_t **batch_counts;      /* each record's batch_size_counts (owned; NULL: no batched service) */
    size_t first, n;              /* the block read: records [first, first + n) */
    fs_service_rep rec[FS_RESULTS_REP_BLOCK];
};

int fs_results_spill_error(const fs_results *r)
{
    return r->spill_error ? *r->spill_error : 0;
}

/* The spool's segment of replication k of policy p: the replications of
 * every policy, in order. */
static size_t fs__segment(const fs_results *r, size_t policy, uint32_t k)
{
    size_t seg = k;
    for (size_t p = 0; p < policy; p++)
        seg += r->policies[p].n_reps;
    return seg;
}

/* The spool and the error flag, made with the first spill.  0 or errno. */
static int fs__spool_open(fs_results *r)
{
    if (r->rep_spool)
        return 0;
    size_t n_segments = 0;
    for (size_t p = 0; p < r->n_policies; p++)
        n_segments += r->policies[p].n_reps;
    size_t n = r->scenario->n_services;
    return fs_spool_create(NULL, n_segments, n ? n : 1, sizeof(fs_service_rep), &r->rep_spool);
}

/* Whether replication k's records may leave memory: nothing in them points
 * at memory a reader would follow, but the batch counts kept aside. */
static bool fs__spillable(const fs_rep_result *rep, size_t n_services)
{
    if (!rep->sealed || !rep->counts_dropped || !rep->services)
        return false;
    for (size_t i = 0; i < n_services; i++)
        if (rep->services[i].windows || rep->services[i].slo_breach_starts)
            return false;
    return true;
}

int fs_results_spill_rep(fs_results *r, size_t policy, uint32_t k)
{
    fs_rep_result *rep = &r->policies[policy].reps[k];
    size_t n = r->scenario->n_services, bytes = n * sizeof(fs_service_rep);
    if (r->kept_rep_bytes + bytes <= r->keep_rep_max || !fs__spillable(rep, n)) {
        r->kept_rep_bytes += bytes;
        return 0;
    }
    int rc = fs__spool_open(r);
    struct fs_rep_block *b = rc == 0 ? calloc(1, sizeof *b) : NULL;
    if (rc == 0 && !b)
        rc = ENOMEM;
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (rep->services[i].batch_size_counts && !b->batch_counts &&
            !(b->batch_counts = calloc(n, sizeof *b->batch_counts)))
            rc = ENOMEM;
    size_t segment = fs__segment(r, policy, k);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        fs_service_rep rec = rep->services[i];
        rec.batch_size_counts = NULL; /* kept in batch_counts[i], put back on reading */
        rc = fs_spool_put(r->rep_spool, segment, &rec);
    }
    if (rc != 0) {
        /* The records stay in memory: correct, only larger. */
        if (b)
            free(b->batch_counts);
        free(b);
        r->kept_rep_bytes += bytes;
        return rc;
    }
    for (size_t i = 0; b->batch_counts && i < n; i++)
        b->batch_counts[i] = rep->services[i].batch_size_counts;
    *b = (struct fs_rep_block){.spool = r->rep_spool, .error = r->spill_error, .segment = segment,
                               .n_services = n, .batch_counts = b->batch_counts};
    free(rep->services);
    rep->services = NULL;
    rep->spilled = b;
    return 0;
}

void fs_rep__free_spilled(fs_rep_result *rep, size_t n_services)
{
    struct fs_rep_block *b = rep->spilled;
    if (!b)
        return;
    for (size_t i = 0; b->batch_counts && i < n_services; i++)
        free(b->batch_counts[i]);
    free(b->batch_counts);
    free(b);
    rep->spilled = NULL;
}

/* A record that says nothing: what a failed read leaves in place of one. */
static void fs__no_data(fs_service_rep *rec)
{
    memset(rec, 0, sizeof *rec);
    for (int f = 0; f < FS_RESULTS_REP_FIGS; f++)
        rec->latency_figs[f] = rec->ttft_figs[f] = rec->tpot_figs[f] = NAN;
    rec->worst_window_p99_ms = rec->kv_occupancy = NAN;
    fs_hist_init(&rec->latency);
    fs_hist_init(&rec->ttft);
    fs_hist_init(&rec->tpot);
}

const fs_service_rep *fs_rep__spilled(const fs_rep_result *rep, size_t service)
{
    struct fs_rep_block *b = rep->spilled;
    if (service - b->first >= b->n) {
        b->first = service / FS_RESULTS_REP_BLOCK * FS_RESULTS_REP_BLOCK;
        b->n = b->n_services - b->first < FS_RESULTS_REP_BLOCK ? b->n_services - b->first : FS_RESULTS_REP_BLOCK;
        int rc = fs_spool_read(b->spool, b->segment, b->first, b->n, b->rec);
        for (size_t j = 0; j < b->n; j++) {
            if (rc != 0)
                fs__no_data(&b->rec[j]);
            else if (b->batch_counts)
                b->rec[j].batch_size_counts = b->batch_counts[b->first + j];
        }
        if (rc != 0 && *b->error == 0)
            *b->error = rc;
    }
    return &b->rec[service - b->first];
}

/* ---- merged histograms parked between replications ---------------------- */

struct fs_park {
    FILE *fp;         /* the scratch file (owned) */
    int *error;       /* the results' fs_results_spill_error (borrowed) */
    bool parked;      /* the counters are in the file, not in memory */
    size_t read;      /* histograms read back so far (seal) */
};

/* What a parked histogram's counters need beside what stays in memory
 * (total, extremes and sum: fs_hist_drop_counts keeps them). */
typedef struct fs__park_head {
    uint32_t base, cap, lo, hi;
    uint32_t wide; /* carries follow the counts */
} fs__park_head;

/* Every merged histogram of the policy, in the one order both sides use. */
static size_t fs__park_count(const fs_policy_result *pol)
{
    return 3 * pol->scenario->n_services + pol->scenario->n_training;
}

static fs_hist *fs__park_hist(const fs_policy_result *pol, size_t j)
{
    size_t n = pol->scenario->n_services;
    return j < n ? &pol->latency[j] : j < 2 * n ? &pol->ttft[j - n] : j < 3 * n ? &pol->tpot[j - 2 * n] : &pol->wait[j - 3 * n];
}

bool fs_results__parked(const fs_policy_result *pol) { return pol->park && pol->park->parked; }

int fs_results__park(fs_results *r, fs_policy_result *pol)
{
    size_t n = fs__park_count(pol), bytes = 0;
    for (size_t j = 0; j < n; j++)
        bytes += fs_hist_bytes(fs__park_hist(pol, j));
    if (bytes <= r->keep_merged_max)
        return 0;
    if (!pol->park) {
        int fd;
        struct fs_park *park = calloc(1, sizeof *park);
        int rc = park ? fs_spool_scratch_fd(NULL, &fd) : ENOMEM;
        if (rc == 0 && !(park->fp = fdopen(fd, "w+b"))) {
            rc = errno;
            close(fd);
        }
        if (rc != 0) {
            free(park);
            return rc;
        }
        park->error = r->spill_error;
        pol->park = park;
    }
    FILE *fp = pol->park->fp;
    rewind(fp);
    for (size_t j = 0; j < n; j++) {
        const fs_hist *h = fs__park_hist(pol, j);
        fs__park_head head = {h->base, h->cap, h->lo, h->hi, h->carries != NULL};
        if (fwrite(&head, sizeof head, 1, fp) != 1 ||
            (h->cap && fwrite(h->counts, sizeof *h->counts, h->cap, fp) != h->cap) ||
            (h->carries && fwrite(h->carries, sizeof *h->carries, h->cap, fp) != h->cap))
            return errno ? errno : EIO; /* nothing dropped yet: they stay in memory */
    }
    if (fflush(fp) != 0)
        return errno ? errno : EIO;
    for (size_t j = 0; j < n; j++)
        fs_hist_drop_counts(fs__park_hist(pol, j));
    pol->park->parked = true;
    pol->park->read = 0;
    rewind(fp);
    return 0;
}

/* Reads the next histogram's counters into h (dropped, its summary kept).
 * 0, or errno with h left without counters. */
static int fs__unpark_one(FILE *fp, fs_hist *h)
{
    fs__park_head head;
    if (fread(&head, sizeof head, 1, fp) != 1)
        return EIO; /* a short read or a read error: the file is ours, either is I/O */
    uint16_t *counts = head.cap ? malloc((size_t)head.cap * sizeof *counts) : NULL;
    uint64_t *carries = head.cap && head.wide ? malloc((size_t)head.cap * sizeof *carries) : NULL;
    if ((head.cap && !counts) || (head.cap && head.wide && !carries)) {
        free(counts);
        free(carries);
        return ENOMEM;
    }
    if ((head.cap && fread(counts, sizeof *counts, head.cap, fp) != head.cap) ||
        (carries && fread(carries, sizeof *carries, head.cap, fp) != head.cap)) {
        free(counts);
        free(carries);
        return EIO;
    }
    h->counts = counts;
    h->carries = carries;
    h->base = head.base;
    h->cap = head.cap;
    h->lo = head.lo;
    h->hi = head.hi;
    return 0;
}

int fs_results__unpark_next(fs_policy_result *pol, fs_hist *h)
{
    struct fs_park *park = pol->park;
    int rc = fs__unpark_one(park->fp, h);
    if (++park->read == fs__park_count(pol))
        park->parked = false;
    return rc;
}

void fs_policy_result_unpark(const fs_policy_result *pol)
{
    struct fs_park *park = pol->park;
    if (!park || !park->parked)
        return;
    rewind(park->fp);
    for (size_t j = 0; j < fs__park_count(pol); j++) {
        int rc = fs__unpark_one(park->fp, fs__park_hist(pol, j));
        if (rc != 0 && *park->error == 0)
            *park->error = rc;
    }
    park->parked = false;
}

void fs_results__park_free(fs_policy_result *pol)
{
    if (pol->park && pol->park->fp)
        fclose(pol->park->fp);
    free(pol->park);
    pol->park = NULL;
}
