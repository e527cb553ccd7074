/*
 * fleet_share — private to models/fleet: what the fleet asks of a
 * fractional pool's seats when it grants them at run time (fleet_share.c).
 *
 * A fractional seat (placement.h) fits a request while its GPU has the
 * memory (as a time-sliced seat) and the compute: the shares of the GPU's
 * tenants (warming or held) plus the request's add up to at most the pool's
 * oversubscription.  A service replica asks its gpu_share; a training gang
 * member asks the whole GPU's compute (1), so members land on GPUs no
 * replica fills.
 */
#ifndef FS_FLEET_SHARE_H
#define FS_FLEET_SHARE_H

#include <stddef.h>

#include "fleet.h"
#include "pick.h"

/* The compute share r's holder asks of a fractional seat, and (in *kind)
 * what its work resembles. */
double fs_fleet__share(const fs_fleet *f, const fs_request *r, fs_share_kind *kind);

/* Of the candidates c[0 .. found) of fractional pool `pool` that fit r on
 * their memory, in best-fit order, the first n whose GPUs have the compute
 * too, members of one gang on one GPU counted together (memory and shares)
 * into out (members of `pool`).  Returns how many (fewer than n: r does not
 * fit). */
size_t fs_fleet__pick_together(const fs_fleet *f, const fs_request *r, size_t pool,
                               const fs_pick_candidate *c, size_t found, fs_pick_member *out, size_t n);

#endif
