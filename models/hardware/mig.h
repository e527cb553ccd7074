/*
 * mig — NVIDIA MIG geometry: does a layout fit a GPU, and where.
 *
 * A GPU's memory is 8 slices (slots 0-7) and its compute 7 slices.  An
 * instance of a profile occupies `memory_slices` contiguous memory slots
 * starting at one of the profile's valid start slots; instances may not
 * overlap in memory, their compute slices add up to at most 7, a GPU holds
 * at most 7 instances, and each profile has a maximum count.
 *
 * A layout is a list of profile names in creation order, each optionally
 * pinned with "@slot" ("3g.40gb@4").  Like `nvidia-smi mig -cgi` without
 * explicit placements, instances are created in the order given, each at the
 * lowest valid free start slot (or at its pinned slot).  So the order
 * matters: "3g.40gb, 2g.20gb, 2g.20gb" fails (3g takes slots 0-3, 2g at 4,
 * no start left for the second 2g) while "2g.20gb, 2g.20gb, 3g.40gb" fits.
 * When a layout fails, the reason says why (unknown profile, no MIG on this
 * type, too many compute slices / memory slices / instances, a profile over
 * its maximum count, no free placement for X after Y), and when another
 * order of the same profiles would fit, the message gives that order.
 *
 * Ownership: pure functions over caller memory; nothing allocated.
 */
#ifndef FS_MIG_H
#define FS_MIG_H

#include <stddef.h>

#include "gpu.h"

typedef struct fs_mig_layout {
    const fs_mig_profile *profiles[FS_MIG_MAX_INSTANCES];
    unsigned starts[FS_MIG_MAX_INSTANCES]; /* memory slot where each instance starts */
    size_t n;
} fs_mig_layout;

/* Places the n entries of `layout` ("3g.40gb" or "3g.40gb@4") on `gpu`.
 * Returns 0 and fills *out, or -1 with one readable line in why (no trailing
 * period), e.g. "no free placement for 2g.20gb after 3g.40gb, 2g.20gb
 * (2g.20gb starts only at slots 0, 2, 4; slots 0-5 are taken); this order
 * fits: 2g.20gb, 2g.20gb, 3g.40gb". */
int fs_mig_place(const fs_gpu_type *gpu, const char *const *layout, size_t n, fs_mig_layout *out,
                 char *why, size_t why_size);

/* Compute slices of the layout's instances that no instance uses (7 - sum). */
unsigned fs_mig_unused_compute(const fs_mig_layout *layout);

#endif
