/*
 * placement_frac — private to models/layout: placing a fractional pool's
 * replicas (placement_frac.c), and what it shares with placement.c.
 */
#ifndef FS_PLACEMENT_FRAC_H
#define FS_PLACEMENT_FRAC_H

#include <stddef.h>
#include <stdint.h>

#include "placement.h"

/* One replica to place. */
typedef struct fs__replica_ref {
    size_t service;
    uint32_t replica;
    double need_gb;
} fs__replica_ref;

/* The replicas placed on pool p at the start, in service then replica
 * order, in an array of *n the caller frees (NULL when out of memory). */
fs__replica_ref *fs__replica_refs(const fs_scenario *s, size_t p, size_t *n);

/* Service then replica order: the tie-break of every placement order. */
int fs__replica_ref_order(const fs__replica_ref *a, const fs__replica_ref *b);

/* FS_ERR_INPUT: `ref` fits nowhere (`need`: "needs 12 GiB", `free_desc`:
 * what the pool has left), in the message every refusal shares. */
int fs__replica_refused(const fs_scenario *s, const fs__replica_ref *ref, const char *need, const char *free_desc,
                        fs_error *err);

/* Places the replicas of fractional pool p onto its seats (made already)
 * and fills its stranded figures: FS_OK, FS_ERR_INPUT or FS_ERR_RUNTIME. */
int fs__place_fractional(const fs_scenario *s, size_t p, fs_placement *pl, fs_error *err);

#endif
