/*
 * grow — the one way fleetsim grows an array: doubling, so n appends cost
 * O(n) copies in all.  A failed grow leaves the array and its capacity as
 * they were.
 */
#ifndef FS_GROW_H
#define FS_GROW_H

#include <stdlib.h>

/* Returns `items` (capacity *cap, in items of `size` bytes) grown to hold at
 * least `need` items, starting from `first` when empty, and updates *cap; or
 * NULL when out of memory, with items and *cap unchanged.  Returning the
 * pointer (rather than taking a void **) keeps callers free of type punning. */
static inline void *fs_grow(void *items, size_t *cap, size_t need, size_t size, size_t first)
{
    if (need <= *cap)
        return items;
    size_t new_cap = *cap ? *cap : first;
    while (new_cap < need)
        new_cap *= 2;
    void *grown = realloc(items, new_cap * size);
    if (grown)
        *cap = new_cap;
    return grown;
}

#endif
