/*
 * holders — each training job's units as a linked list (holders.h).
 */
#include "holders.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FS__NO_UNIT UINT32_MAX

int fs_holders_init(fs_holders *h, size_t n_units)
{
    *h = (fs_holders){0};
    size_t n = n_units ? n_units : 1;
    h->next = malloc(n * sizeof *h->next);
    h->prev = malloc(n * sizeof *h->prev);
    if (!h->next || !h->prev) {
        fs_holders_fini(h);
        return ENOMEM;
    }
    h->n_units = n_units;
    return 0;
}

void fs_holders_fini(fs_holders *h)
{
    free(h->next);
    free(h->prev);
    free(h->head);
    *h = (fs_holders){0};
}

int fs_holders_link(fs_holders *h, uint32_t owner, uint32_t unit)
{
    if (owner >= h->n_owners) {
        size_t n = h->n_owners ? h->n_owners : 64;
        while (n <= owner)
            n *= 2;
        uint32_t *head = realloc(h->head, n * sizeof *head);
        if (!head)
            return ENOMEM;
        for (size_t i = h->n_owners; i < n; i++)
            head[i] = FS__NO_UNIT;
        h->head = head;
        h->n_owners = n;
    }
    h->prev[unit] = FS__NO_UNIT;
    h->next[unit] = h->head[owner];
    if (h->head[owner] != FS__NO_UNIT)
        h->prev[h->head[owner]] = unit;
    h->head[owner] = unit;
    return 0;
}

void fs_holders_unlink(fs_holders *h, uint32_t owner, uint32_t unit)
{
    uint32_t next = h->next[unit], prev = h->prev[unit];
    if (prev != FS__NO_UNIT)
        h->next[prev] = next;
    else
        h->head[owner] = next;
    if (next != FS__NO_UNIT)
        h->prev[next] = prev;
}

static int fs__ascending(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

size_t fs_holders_list(const fs_holders *h, uint32_t owner, uint32_t *out)
{
    size_t n = 0;
    if (owner < h->n_owners)
        for (uint32_t u = h->head[owner]; u != FS__NO_UNIT; u = h->next[u])
            out[n++] = u;
    qsort(out, n, sizeof *out, fs__ascending);
    return n;
}
