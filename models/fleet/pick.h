/*
 * pick — which free units a request takes: best fit within one pool, and how
 * many units of a pool could take the request at all (what a gang split
 * across pools counts before it takes anything; fleet.c, fs__try_across).
 *
 * Best fit, the order the fleet has always granted in: in a pool of alike
 * whole GPUs the lowest free units; in a mixed pool (MIG profiles of several
 * sizes, time-sliced seats) the free units that fit, by least room, then
 * fewest SMs, then lowest index.  One pass over the pool either way (the
 * fitting units sorted once), not one pass per member.
 *
 * Ownership: works on the fleet's unit states and its scratch array of
 * candidates (fs_fleet.candidates, max_pool_units long); owns nothing.
 */
#ifndef FS_PICK_H
#define FS_PICK_H

#include <stddef.h>

#include "fleet.h"

/* One unit of a gang: unit `unit` of pool `pool`. */
typedef struct fs_pick_member {
    size_t pool, unit;
} fs_pick_member;

/* A free unit that fits, with what orders it in best fit. */
typedef struct fs_pick_candidate {
    double room;
    unsigned sms;
    size_t unit;
} fs_pick_candidate;

/* Units per GPU of pool p (a GPU's units are that many consecutive ones). */
size_t fs_pick_per_gpu(const fs_fleet *f, size_t pool);

/* Picks `n` free units of pool p that fit r, best fit first, into out (as
 * members of pool p); returns how many (fewer than n: r does not fit).
 * O(pool units), and a sort of the fitting ones in a mixed pool. */
size_t fs_pick_in_pool(fs_fleet *f, const fs_request *r, size_t pool, fs_pick_member *out, size_t n);

/* Free units of pool p that fit r: O(1) in a pool of alike whole GPUs,
 * O(pool units) in a mixed one. */
size_t fs_pick_fitting(const fs_fleet *f, const fs_request *r, size_t pool);

#endif
