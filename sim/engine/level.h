/*
 * level — a time-weighted level: how many of something, integrated over time.
 *
 * Tracks a quantity that changes at events (requests in system, busy GPUs,
 * queue length) and its integral, so the time average over any interval is
 * exact (Little's law, utilization).  Changes cost one multiply-add.
 *
 * Ownership: a plain value; nothing allocated.
 */
#ifndef FS_LEVEL_H
#define FS_LEVEL_H

typedef struct fs_level {
    double value;    /* current level */
    double area;     /* integral of value dt since `since` */
    double last;     /* time of the last change or flush */
    double since;    /* start of the integration interval */
    double peak;     /* largest value since `since` */
} fs_level;

static inline void fs_level_init(fs_level *l, double now, double value)
{
    *l = (fs_level){.value = value, .area = 0, .last = now, .since = now, .peak = value};
}

/* Adds delta at time now (now >= last). */
static inline void fs_level_add(fs_level *l, double now, double delta)
{
    l->area += l->value * (now - l->last);
    l->last = now;
    l->value += delta;
    if (l->value > l->peak)
        l->peak = l->value;
}

/* Integrates up to now without changing the level. */
static inline void fs_level_flush(fs_level *l, double now)
{
    l->area += l->value * (now - l->last);
    l->last = now;
}

/* Time average over [since, now]; flushes first.  The current value when the
 * interval is empty. */
static inline double fs_level_mean(fs_level *l, double now)
{
    fs_level_flush(l, now);
    return now > l->since ? l->area / (now - l->since) : l->value;
}

/* Starts a new integration interval at now, keeping the level. */
static inline void fs_level_restart(fs_level *l, double now)
{
    fs_level_flush(l, now);
    l->area = 0;
    l->since = now;
    l->peak = l->value;
}

#endif
