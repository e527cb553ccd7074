#include "windows.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "grow.h"

size_t fs_windows_bound(const fs_scenario *s, double len)
{
    /* Window ends are sums of len from the warm-up instant, so rounding can
     * fit one more than the quotient says; the last shorter window is one
     * more still. */
    double n = len > 0 ? ceil((s->horizon_s - s->warmup_s) / len) + 2 : 2;
    return n < (double)SIZE_MAX / 2 ? (size_t)n : SIZE_MAX / 2;
}

/* Headroom of a window with `present` GPUs, `busy` of them busy; NaN when
 * it had none (an elastic pool at zero has no headroom to measure). */
static double fs__headroom(double busy, double present)
{
    if (!(present > 0))
        return NAN;
    /* busy never exceeds present; the clamp keeps rounding from printing -0.0% */
    return fmax(0.0, 1.0 - busy / present);
}

static void fs__least(double *least, double headroom)
{
    if (!isnan(headroom) && (isnan(*least) || headroom < *least))
        *least = headroom;
}

void fs_windows_service_seen(fs_service_rep *rep, const fs_service_window *w)
{
    double len = w->end_s - w->start_s;
    if (len > 0 && (double)w->arrivals / len > rep->peak_window_rps)
        rep->peak_window_rps = (double)w->arrivals / len;
    if (w->p99_ms > rep->worst_window_p99_ms || (isnan(rep->worst_window_p99_ms) && !isnan(w->p99_ms)))
        rep->worst_window_p99_ms = w->p99_ms;
    /* gsl_fit_linear's first pass, point by point, in its operations:
     * m += (v - m) / (i + 1.0). */
    double i1 = (double)rep->windows_closed + 1.0;
    rep->growth_mean_x += (w->end_s / 3600.0 - rep->growth_mean_x) / i1;
    rep->growth_mean_y += ((double)w->queue_end - rep->growth_mean_y) / i1;
    rep->windows_closed++;
}

void fs_windows_pool_seen(fs_pool_rep *rep, const fs_pool_window *w)
{
    fs__least(&rep->least_headroom, fs__headroom(w->busy_gpus, w->gpus));
}

void fs_windows_fleet_seen(fs_rep_result *rep, const fs_pool_window *rows, size_t n_pools)
{
    /* Every pool closes its windows at the same instants, so the fleet's
     * busy and provisioned GPUs in a window are sums over pools (elastic
     * pools change size, so the least headroom is per window). */
    double busy = 0, present = 0;
    for (size_t p = 0; p < n_pools; p++) {
        busy += rows[p].busy_gpus;
        present += rows[p].gpus;
    }
    fs__least(&rep->fleet_least_headroom, fs__headroom(busy, present));
}

/* Appends the size bytes at row to *rows (n and cap in items).  0 or ENOMEM. */
static int fs__append(void **rows, size_t *n, size_t *cap, const void *row, size_t size)
{
    unsigned char *grown = fs_grow(*rows, cap, *n + 1, size, 64);
    if (!grown)
        return ENOMEM;
    memcpy(grown + *n * size, row, size);
    *rows = grown;
    ++*n;
    return 0;
}

int fs_windows_keep_service(fs_service_rep *rep, const fs_service_window *w)
{
    void *rows = rep->windows;
    int rc = fs__append(&rows, &rep->n_windows, &rep->cap_windows, w, sizeof *w);
    rep->windows = rows;
    return rc;
}

int fs_windows_keep_pool(fs_pool_rep *rep, const fs_pool_window *w)
{
    void *rows = rep->windows;
    int rc = fs__append(&rows, &rep->n_windows, &rep->cap_windows, w, sizeof *w);
    rep->windows = rows;
    return rc;
}

int fs_windows_keep_breach(fs_service_rep *rep, double window_start_s)
{
    void *rows = rep->slo_breach_starts;
    int rc = fs__append(&rows, &rep->n_slo_breaches, &rep->cap_slo_breaches, &window_start_s,
                        sizeof window_start_s);
    rep->slo_breach_starts = rows;
    return rc;
}

/* gsl_fit_linear's second pass, one point at a time, in its operations, so
 * the slope is the one it gives bit for bit (same seed, same bytes). */
typedef struct fs__fit {
    double m_x, m_y, m_dx2, m_dxdy;
    size_t i;
} fs__fit;

static void fs__fit_add(fs__fit *f, double x, double y)
{
    const double dx = x - f->m_x;
    const double dy = y - f->m_y;
    f->m_dx2 += (dx * dx - f->m_dx2) / (f->i + 1.0);
    f->m_dxdy += (dx * dy - f->m_dxdy) / (f->i + 1.0);
    f->i++;
}

int fs_windows_growth(fs_service_rep *rep, fs_spool *growth, size_t segment)
{
    /* Growth of the queue, requests per hour: the least-squares slope of the
     * queue length at window ends.  A stable queue has a slope near zero; an
     * overloaded one grows at (arrival rate - capacity).  Fewer than three
     * points say nothing. */
    rep->queue_growth_per_h = 0;
    size_t n = rep->windows_closed;
    if (n < 3)
        return 0;
    fs__fit f = {.m_x = rep->growth_mean_x, .m_y = rep->growth_mean_y};
    if (!growth) {
        for (size_t i = 0; i < n; i++)
            fs__fit_add(&f, rep->windows[i].end_s / 3600.0, (double)rep->windows[i].queue_end);
    } else {
        fs_windows_point chunk[512];
        for (size_t i = 0; i < n; i += 512) {
            size_t m = n - i < 512 ? n - i : 512;
            int rc = fs_spool_read(growth, segment, i, m, chunk);
            if (rc != 0)
                return rc;
            for (size_t j = 0; j < m; j++)
                fs__fit_add(&f, chunk[j].x, chunk[j].y);
        }
    }
    rep->queue_growth_per_h = f.m_dxdy / f.m_dx2;
    return 0;
}
