/*
 * service — an inference service during one replication.
 *
 * A service owns a fixed set of replicas, each on the unit of its pool the
 * placement gave it (a whole GPU, a MIG instance or a time-sliced seat), each
 * serving up to `concurrency` requests at once.  A request's service time is
 * its draw x the replica's speed scale (reference SMs / unit SMs)^e x, on a
 * time-sliced GPU, the contention stretch at the moment it starts.  Requests arrive as a
 * non-homogeneous Poisson process (arrivals.h), wait in one FIFO queue shared
 * by all replicas (a central queue: with concurrency 1 this is exactly M/G/c),
 * and are dispatched to the least-loaded replica with a free slot.  A request
 * that finds `queue_limit` others waiting is dropped and counted.
 *
 * Service times are drawn from the stream "service/<name>" at dispatch and
 * arrivals from "arrivals/<name>", so two runs with the same seed see the same
 * draws (common random numbers).
 *
 * Per-request work is a handful of stores: no allocation, no request objects
 * (an in-service request lives in its departure event: arrival time in `data`,
 * replica in `arg`; a waiting one is its arrival time in a ring buffer).
 *
 * Ownership: fs_service is caller-owned (init/fini); it owns its generators,
 * queue, replica tables and histograms, borrows the spec, the engine and the
 * pool.  fs_service_finish moves the measured figures into a result.
 */
#ifndef FS_SERVICE_H
#define FS_SERVICE_H

#include <gsl/gsl_rng.h>
#include <stdbool.h>
#include <stdint.h>

#include "arrivals.h"
#include "error.h"
#include "hist.h"
#include "level.h"
#include "nhpp.h"
#include "placement.h"
#include "pool.h"
#include "results.h"
#include "scenario.h"
#include "sim.h"

/* Most requests a service may hold waiting before the run is stopped as
 * runaway (2^26 arrival times = 512 MiB); set queue_limit to model drops. */
#define FS_SERVICE_MAX_WAITING (UINT64_C(1) << 26)

typedef struct fs_service {
    const fs_service_spec *spec;
    fs_sim *sim;
    fs_pool *pool;
    double horizon;
    gsl_rng *arrival_rng, *service_rng;
    fs_arrival_profile profile;
    fs_nhpp arrivals;
    uint32_t kind_arrival, kind_departure, kind_slo;

    /* Replicas, bucketed by load (requests in service) so the least-loaded one
     * with a free slot is found in O(concurrency) worst case, O(1) typically:
     * bucket_head[l] starts a doubly linked list of replicas with load l. */
    uint32_t n_replicas, concurrency;
    uint32_t *load, *next, *prev, *bucket_head;
    uint64_t free_slots;
    size_t *unit;             /* per replica: its unit in the pool */
    double *scale;            /* per replica: service-time multiplier from its unit's SMs */
    bool time_sliced;         /* ask the pool for contention at each start */

    /* Waiting requests: arrival times in a power-of-two ring buffer. */
    double *ring;
    uint64_t ring_mask, head, waiting;

    /* Measured since the warm-up instant. */
    fs_service_rep *rep;      /* where the figures go (owned by the result) */
    fs_level in_system;
    fs_hist window_latency;
    uint64_t w_arrivals, w_completed, w_dropped;
    double window_start;
    double window_area_mark;  /* in_system.area when the window opened */
    size_t cap_windows;
    uint64_t slo_total, slo_bad[FS_SLO_MAX_TARGETS];
    uint64_t slo_threshold_ns[FS_SLO_MAX_TARGETS];
} fs_service;

/* Sets up the service, its streams and its first arrival.  Returns FS_OK or
 * an error (FS_ERR_RUNTIME: out of memory). */
int fs_service_init(fs_service *svc, size_t index, const fs_scenario *s,
                    const fs_placement *placement, fs_sim *sim, fs_pool *pool,
                    uint32_t replication, fs_service_rep *rep, fs_error *err);
void fs_service_fini(fs_service *svc);

/* Starts measuring at now (the warm-up instant). */
void fs_service_start_measuring(fs_service *svc, double now);

/* Closes the current time-series window at now.  0 or ENOMEM. */
int fs_service_close_window(fs_service *svc, double now);

/* Final figures at the horizon (in flight, Little's law level, growth fit). */
void fs_service_finish(fs_service *svc, double now);

#endif
