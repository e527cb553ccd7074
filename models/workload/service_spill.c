/*
 * service_spill — a service's "spill": a request that arrives when its own
 * service is saturated is served in another region (service.h has the
 * rule).
 *
 * Saturated means no ready replica has a free slot and at least when_queue
 * requests wait: the request would have to queue.  It spills only onto
 * capacity that is free there and then (a ready replica of the other
 * service with a free slot), so a region's own traffic never queues behind
 * requests it took in at that moment, and two saturated regions do not
 * trade requests; else it queues at home as without spill.  Once spilled it
 * starts at once on the other service's replica, with that service's
 * service time (its distribution and stream, its replica's speed and
 * contention; a sized trace request keeps its demand), and holds its slot
 * while served; the network round trip (added_latency) holds no slot and is
 * added to the request's latency when it ends.
 *
 * The request stays its own service's: counted in its requests, in flight
 * (in_service) while away, completed there with latency = service time +
 * round trip, into its histograms, SLO windows and autoscaler; its spill_out
 * counts it.  The other service counts it in spill_in, and its replica's
 * busy time and units are the other region's (cost, utilization), but not
 * in its requests, latencies or in-flight count.  One event per spilled
 * request (its end on the other service's replica), of a kind registered
 * per link, so a service's own departures need no tag.
 */
#include "service_parts.h"

#include <errno.h>
#include <stdlib.h>

bool fs__spill_out(fs_service *svc, double now, double demand)
{
    const struct fs__spill *link = svc->spill;
    fs_service *to = link->to;
    if (!to->free_slots)
        return false;
    uint32_t r = fs__service_pick_replica(to);
    fs__service_occupy(to, r, now);
    /* In flight as its own service's request, not the other's. */
    to->in_service--;
    svc->in_service++;
    fs_level_add(&svc->in_system, now, +1);
    svc->rep->spill_out++;
    to->rep->spill_in++;
    fs_sim_schedule(to->sim, now + fs__service_time(to, demand, r), FS__PRIORITY_REQUEST, link->kind, r, now);
    return true;
}

/* A spilled request ends on link->to's replica ev->arg: the slot there is
 * freed, and the request completes at home, the round trip added. */
static void fs__on_spill_done(fs_sim *sim, const fs_event *ev, void *ctx)
{
    struct fs__spill *link = ctx;
    link->to->in_service++; /* fs__service_release counts one out */
    link->from->in_service--;
    fs__service_slot_freed(link->to, ev->arg, sim->now);
    fs__service_complete(link->from, sim->now, ev->data - link->added_s);
}

int fs_service_link_spill(fs_service *svc, fs_service *to)
{
    const fs_service_spec *spec = svc->spec;
    struct fs__spill *link = malloc(sizeof *link);
    if (!link)
        return ENOMEM;
    *link = (struct fs__spill){.from = svc, .to = to, .added_s = spec->spill_added_s,
                               .when_queue = spec->spill_when_queue};
    int64_t kind = fs_sim_register(svc->sim, fs__on_spill_done, link);
    if (kind < 0) {
        free(link);
        return ENOMEM;
    }
    link->kind = (uint32_t)kind;
    svc->spill = link;
    return 0;
}
