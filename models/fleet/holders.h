/*
 * holders — which units each training job holds, so that giving a job's
 * units back costs the job's unit count, not the fleet's.
 *
 * A job (an owner number, dense from 0) holds a set of units named by their
 * global number (a pool's units numbered after the previous pools').  The
 * sets are doubly linked lists threaded through two arrays of one entry per
 * unit, with a head per owner grown on demand: linking, unlinking and
 * listing are O(1), O(1) and O(k log k) for k units.  The fleet keeps it in
 * step with every unit change (fleet.c, fs__set); services give their
 * replicas back one at a time and are not indexed.
 *
 * Ownership: fs_holders is caller-owned (init/fini) and owns its arrays.
 */
#ifndef FS_HOLDERS_H
#define FS_HOLDERS_H

#include <stddef.h>
#include <stdint.h>

typedef struct fs_holders {
    uint32_t *next, *prev; /* per unit: its neighbours in its owner's list */
    uint32_t *head;        /* per owner: its first unit */
    size_t n_units, n_owners;
} fs_holders;

/* Room for units 0 .. n_units - 1 and no owner yet; 0 or ENOMEM. */
int fs_holders_init(fs_holders *h, size_t n_units);
void fs_holders_fini(fs_holders *h);

/* Adds unit to owner's set (it must be in none); 0, or ENOMEM when the owner
 * table could not grow (the set is then unchanged). */
int fs_holders_link(fs_holders *h, uint32_t owner, uint32_t unit);

/* Takes unit out of owner's set (it must be in it). */
void fs_holders_unlink(fs_holders *h, uint32_t owner, uint32_t unit);

/* Owner's units into out (room for all of them), ascending; their count. */
size_t fs_holders_list(const fs_holders *h, uint32_t owner, uint32_t *out);

#endif
