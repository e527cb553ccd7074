/*
 * progress — estimate, terminal progress and event limit of a run; see
 * progress.h.
 */
#include "progress.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "duration.h"
#include "options.h"
#include "run.h"
#include "terminal.h"

/* The line is first drawn after this long (a short run shows nothing) and
 * redrawn at most this often. */
#define FS__FIRST_S 1.0
#define FS__EVERY_S 0.25

typedef struct fs__shown {
    struct timespec start, last;
    bool drawn;
} fs__shown;

double fs_progress_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

void fs_progress_eta(double s, char *buf, size_t size)
{
    if (s < 90)
        snprintf(buf, size, "%.0fs", s);
    else if (s < 5400)
        snprintf(buf, size, "%ldm%02lds", (long)s / 60, (long)s % 60);
    else
        snprintf(buf, size, "%.1fh", s / 3600);
}

static void fs__draw(void *ctx, const fs_run_progress *p)
{
    fs__shown *shown = ctx;
    double elapsed = fs_progress_since(&shown->start);
    if (elapsed < FS__FIRST_S || (shown->drawn && fs_progress_since(&shown->last) < FS__EVERY_S))
        return;
    clock_gettime(CLOCK_MONOTONIC, &shown->last);
    /* The share done: whole replications plus the running one's simulated time. */
    double done = ((double)p->done + (p->horizon_s > 0 ? p->now_s / p->horizon_s : 0)) / (double)p->total;
    char now[32], horizon[32], eta[32] = "?";
    /* Whole minutes: seconds would flicker past unread. */
    fs_duration_format(floor(p->now_s / 60) * 60, now, sizeof now);
    fs_duration_format(p->horizon_s, horizon, sizeof horizon);
    if (done > 0)
        fs_progress_eta(elapsed / done * (1 - done), eta, sizeof eta);
    fprintf(stderr, "\r\033[Kfleetsim: replication %zu of %zu, simulated %s of %s, %.3g events/s, ETA %s",
            p->done + 1, p->total, now, horizon, (double)p->events / elapsed, eta);
    fflush(stderr);
    shown->drawn = true;
}

int fs_progress_run(const fs_scenario *s, const char *const *names, size_t n_names, uint64_t max_events,
                    const fs_window_sink *windows, fs_results **out, fs_error *err)
{
    size_t policies = names ? n_names : s->policies ? s->n_policies : 1;
    double estimate = fs_run_estimate_events(s) * (double)policies * s->replications;
    if (estimate >= FS_PROGRESS_LARGE_EVENTS)
        fprintf(stderr, "fleetsim: about %.2g events to simulate (%zu polic%s x %u replication%s)%s\n", estimate,
                policies, policies == 1 ? "y" : "ies", s->replications, s->replications == 1 ? "" : "s",
                max_events ? "" : "; --max-events N stops the run sooner");
    fs__shown shown = {0};
    clock_gettime(CLOCK_MONOTONIC, &shown.start);
    /* Only a terminal gets the line: in a file or a pipe it would be noise. */
    bool tty = isatty(STDERR_FILENO) == 1;
    fs_run_watch watch = {
        .max_events = max_events, .progress = tty ? fs__draw : NULL, .ctx = &shown, .windows = windows};
    int rc = fs_run_watched(s, names, n_names, &watch, out, err);
    if (shown.drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    return rc;
}

int fs_progress_parse_max(const char *cmd, const char *text, uint64_t *out)
{
    *out = 0;
    if (text && fs_cli_parse_count(text, 1, UINT64_MAX, out) != 0) {
        fs_terminal_say(stderr, "fleetsim %s: --max-events: expected a positive integer, got \"%s\"", cmd, text);
        return -1;
    }
    return 0;
}
