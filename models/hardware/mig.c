/*
 * mig — MIG layout placement; see mig.h.
 *
 * Memory occupancy is an 8-bit mask (bit s: memory slot s taken), so placing
 * an instance is a mask test.  Checks run cheapest and most general first
 * (no MIG, unknown names, totals, per-profile counts) so that the reason a
 * user reads names the real problem rather than a symptom of it: "3g + 3g +
 * 2g" is over the compute budget, which is a better answer than "no slot
 * for 2g".
 *
 * When sequential placement fails, a depth-first search over distinct orders
 * of the same instances looks for one that places.  At most 7 instances, and
 * identical instances are tried once per depth, so the search visits at most
 * 7! = 5040 leaves and usually a few dozen nodes; no need to be clever.
 * test_mig checks every layout of every built-in table against a brute-force
 * search over start slots: without pins, every layout within the totals and
 * maximum counts has a placement, so an unpinned failure always comes with
 * an order that fits; pins are what make a layout impossible.
 */
#include "mig.h"

#include <assert.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define NO_PIN (-1)

/* One parsed layout entry. */
typedef struct mig_item {
    const fs_mig_profile *profile;
    int pin; /* memory slot, or NO_PIN */
} mig_item;

/* Appends to a caller's buffer, truncating quietly: a long reason is cut, never overrun. */
typedef struct msg {
    char *buf;
    size_t size;
    size_t len;
} msg;

static void msg_init(msg *m, char *buf, size_t size)
{
    m->buf = size > 0 ? buf : NULL;
    m->size = size;
    m->len = 0;
    if (m->buf)
        m->buf[0] = '\0';
}

static void msg_add(msg *m, const char *fmt, ...)
{
    if (!m->buf || m->len + 1 >= m->size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(m->buf + m->len, m->size - m->len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t room = m->size - m->len - 1;
    m->len += (size_t)n < room ? (size_t)n : room;
}

/* The entry as the user would write it: "3g.40gb" or "3g.40gb@4". */
static void msg_item(msg *m, const mig_item *it)
{
    if (it->pin == NO_PIN)
        msg_add(m, "%s", it->profile->name);
    else
        msg_add(m, "%s@%d", it->profile->name, it->pin);
}

/* "0, 2, 4": each slot, for a profile's valid starts. */
static void msg_slot_list(msg *m, unsigned mask)
{
    const char *sep = "";
    for (unsigned s = 0; s < FS_MIG_MEMORY_SLICES; s++)
        if (mask & (1u << s)) {
            msg_add(m, "%s%u", sep, s);
            sep = ", ";
        }
}

/* "0-5" or "0-1, 4": runs of slots, for taken memory. */
static void msg_slot_ranges(msg *m, unsigned mask)
{
    const char *sep = "";
    unsigned s = 0;
    while (s < FS_MIG_MEMORY_SLICES) {
        if (!(mask & (1u << s))) {
            s++;
            continue;
        }
        unsigned e = s;
        while (e + 1 < FS_MIG_MEMORY_SLICES && (mask & (1u << (e + 1))))
            e++;
        if (e == s)
            msg_add(m, "%s%u", sep, s);
        else
            msg_add(m, "%s%u-%u", sep, s, e);
        sep = ", ";
        s = e + 1;
    }
}

static unsigned popcount8(unsigned mask)
{
    unsigned n = 0;
    for (; mask; mask &= mask - 1)
        n++;
    return n;
}

/* The memory slots an instance of p starting at `start` occupies. */
static unsigned span(const fs_mig_profile *p, unsigned start)
{
    return ((1u << p->memory_slices) - 1u) << start;
}

static bool fits_at(const fs_mig_profile *p, unsigned start, unsigned used)
{
    return start + p->memory_slices <= FS_MIG_MEMORY_SLICES && !(span(p, start) & used);
}

/* Where `it` goes given the taken slots: its pin, or the lowest free valid
 * start, as `nvidia-smi mig -cgi` does without a placement.  False if none. */
static bool place_one(const mig_item *it, unsigned used, unsigned *start)
{
    if (it->pin != NO_PIN) {
        *start = (unsigned)it->pin;
        return fits_at(it->profile, *start, used);
    }
    for (unsigned s = 0; s < FS_MIG_MEMORY_SLICES; s++)
        if ((it->profile->starts & (1u << s)) && fits_at(it->profile, s, used)) {
            *start = s;
            return true;
        }
    return false;
}

static bool same_item(const mig_item *a, const mig_item *b)
{
    return a->profile == b->profile && a->pin == b->pin;
}

/* Depth-first search for an order of items[] that places sequentially;
 * order[] receives indices into items[].  Candidates are tried in items[]
 * order, and an instance identical to an earlier untaken one is skipped,
 * since swapping the two gives the same layout. */
static bool search_order(const mig_item *items, size_t n, bool *taken, size_t *order, size_t depth,
                         unsigned used)
{
    if (depth == n)
        return true;
    for (size_t i = 0; i < n; i++) {
        if (taken[i])
            continue;
        bool dup = false;
        for (size_t j = 0; j < i && !dup; j++)
            dup = !taken[j] && same_item(&items[j], &items[i]);
        unsigned start;
        if (dup || !place_one(&items[i], used, &start))
            continue;
        taken[i] = true;
        order[depth] = i;
        if (search_order(items, n, taken, order, depth + 1, used | span(items[i].profile, start)))
            return true;
        taken[i] = false;
    }
    return false;
}

/* Parses "name" or "name@slot" for this GPU; false with the reason in m. */
static bool parse_entry(const fs_gpu_type *gpu, const char *entry, mig_item *it, msg *m)
{
    const char *at = strchr(entry, '@');
    size_t name_len = at ? (size_t)(at - entry) : strlen(entry);

    it->profile = NULL;
    for (size_t i = 0; i < gpu->n_mig; i++)
        if (strlen(gpu->mig[i].name) == name_len &&
            strncmp(gpu->mig[i].name, entry, name_len) == 0) {
            it->profile = &gpu->mig[i];
            break;
        }
    if (!it->profile) {
        msg_add(m, "unknown MIG profile \"%.*s\" for %s (its profiles: ", (int)name_len, entry,
                gpu->name);
        for (size_t i = 0; i < gpu->n_mig; i++)
            msg_add(m, "%s%s", i ? ", " : "", gpu->mig[i].name);
        msg_add(m, ")");
        return false;
    }

    it->pin = NO_PIN;
    if (!at)
        return true;
    if (!(at[1] >= '0' && at[1] <= '7' && at[2] == '\0')) {
        msg_add(m, "bad slot in \"%s\": write %s@N with N a memory slot from 0 to 7", entry,
                it->profile->name);
        return false;
    }
    it->pin = at[1] - '0';
    if (!(it->profile->starts & (1u << it->pin))) {
        msg_add(m, "%s cannot start at slot %d (%s starts only at slot%s ", it->profile->name,
                it->pin, it->profile->name, popcount8(it->profile->starts) == 1 ? "" : "s");
        msg_slot_list(m, it->profile->starts);
        msg_add(m, ")");
        return false;
    }
    return true;
}

/* The reason for a failed sequential placement of items[fail], and another
 * order when one exists. */
static void explain_no_slot(const mig_item *items, size_t n, size_t fail, unsigned used, msg *m)
{
    const mig_item *x = &items[fail];
    msg_add(m, "no free placement for ");
    msg_item(m, x);
    for (size_t i = 0; i < fail; i++) {
        msg_add(m, "%s", i ? ", " : " after ");
        msg_item(m, &items[i]);
    }
    msg_add(m, " (");
    if (x->pin == NO_PIN) {
        msg_add(m, "%s starts only at slot%s ", x->profile->name,
                popcount8(x->profile->starts) == 1 ? "" : "s");
        msg_slot_list(m, x->profile->starts);
    } else {
        msg_item(m, x);
        msg_add(m, " needs slot%s ", x->profile->memory_slices == 1 ? "" : "s");
        msg_slot_ranges(m, span(x->profile, (unsigned)x->pin));
    }
    msg_add(m, "; slot%s ", popcount8(used) == 1 ? "" : "s");
    msg_slot_ranges(m, used);
    msg_add(m, "%s", popcount8(used) == 1 ? " is taken)" : " are taken)");

    /* Try the profile that found no slot first: it is the constrained one,
     * and "create X earlier" is the fix a user expects to read.  The rest
     * keep their given order so the suggestion stays close to the input. */
    mig_item tries[FS_MIG_MAX_INSTANCES];
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (items[i].profile == x->profile)
            tries[k++] = items[i];
    for (size_t i = 0; i < n; i++)
        if (items[i].profile != x->profile)
            tries[k++] = items[i];
    bool taken[FS_MIG_MAX_INSTANCES] = {false};
    size_t order[FS_MIG_MAX_INSTANCES];
    if (search_order(tries, n, taken, order, 0, 0u)) {
        msg_add(m, "; this order fits: ");
        for (size_t i = 0; i < n; i++) {
            msg_add(m, "%s", i ? ", " : "");
            msg_item(m, &tries[order[i]]);
        }
    }
}

int fs_mig_place(const fs_gpu_type *gpu, const char *const *layout, size_t n, fs_mig_layout *out,
                 char *why, size_t why_size)
{
    assert(gpu != NULL && out != NULL);
    assert(n == 0 || layout != NULL);
    msg m;
    msg_init(&m, why, why_size);

    if (gpu->mig == NULL || gpu->n_mig == 0) {
        msg_add(&m, "%s has no MIG", gpu->name);
        return -1;
    }
    if (n == 0) {
        msg_add(&m, "the MIG layout is empty");
        return -1;
    }

    /* Every entry is parsed before the count check so that a typo is
     * reported as a typo even in an over-long list; only the first 7 are kept. */
    mig_item items[FS_MIG_MAX_INSTANCES];
    for (size_t i = 0; i < n; i++) {
        assert(layout[i] != NULL);
        mig_item it;
        if (!parse_entry(gpu, layout[i], &it, &m))
            return -1;
        if (i < FS_MIG_MAX_INSTANCES)
            items[i] = it;
    }
    if (n > FS_MIG_MAX_INSTANCES) {
        msg_add(&m, "the layout has %zu instances; a GPU holds at most %d", n,
                FS_MIG_MAX_INSTANCES);
        return -1;
    }

    unsigned compute = 0, memory = 0;
    for (size_t i = 0; i < n; i++) {
        compute += items[i].profile->compute_slices;
        memory += items[i].profile->memory_slices;
    }
    if (compute > FS_MIG_COMPUTE_SLICES) {
        msg_add(&m, "the layout uses %u of %d compute slices: ", compute, FS_MIG_COMPUTE_SLICES);
        for (size_t i = 0; i < n; i++)
            msg_add(&m, "%s%s", i ? " + " : "", items[i].profile->name);
        return -1;
    }
    if (memory > FS_MIG_MEMORY_SLICES) {
        msg_add(&m, "the layout uses %u of %d memory slices: ", memory, FS_MIG_MEMORY_SLICES);
        for (size_t i = 0; i < n; i++)
            msg_add(&m, "%s%s (%u)", i ? " + " : "", items[i].profile->name,
                    items[i].profile->memory_slices);
        return -1;
    }

    /* Per-profile counts, reported for the first profile (in layout order) over its limit. */
    for (size_t i = 0; i < n; i++) {
        unsigned count = 0;
        for (size_t j = 0; j < n; j++)
            count += items[j].profile == items[i].profile;
        if (count > items[i].profile->max_count) {
            msg_add(&m, "%s appears %u times; a GPU holds at most %u", items[i].profile->name,
                    count, items[i].profile->max_count);
            return -1;
        }
    }

    fs_mig_layout placed = {0};
    unsigned used = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned start;
        if (!place_one(&items[i], used, &start)) {
            explain_no_slot(items, n, i, used, &m);
            return -1;
        }
        placed.profiles[i] = items[i].profile;
        placed.starts[i] = start;
        used |= span(items[i].profile, start);
    }
    placed.n = n;
    *out = placed;
    return 0;
}

unsigned fs_mig_unused_compute(const fs_mig_layout *layout)
{
    assert(layout != NULL && layout->n <= FS_MIG_MAX_INSTANCES);
    unsigned used = 0;
    for (size_t i = 0; i < layout->n; i++)
        used += layout->profiles[i]->compute_slices;
    assert(used <= FS_MIG_COMPUTE_SLICES);
    return FS_MIG_COMPUTE_SLICES - used;
}
