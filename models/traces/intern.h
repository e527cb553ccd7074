/*
 * intern — texts to dense keys 1, 2, 3, ... in the order they are first
 * seen: what the trace reader turns a request trace's prefix identities
 * into (trace.h, fs_trace_row.prefix_key).
 *
 * Equal texts get equal keys and different texts different keys.  A key is
 * a counter, never a hash of the text: two texts hashing alike would
 * otherwise share a key, and the simulation would invent a shared prefix.
 * An open-addressing table (linear probing, at most half full) of keys over
 * an arena holding each distinct text once, so memory is the distinct texts
 * plus 24 to 48 bytes each (arrays double as they grow), whatever the
 * number of lookups.  A lookup hashes the text once (FNV-1a, 64 bits) and
 * compares whole texts only where the full 64-bit hashes are equal.
 *
 * Ownership: fs_intern is caller-owned (init/fini) and owns its arrays.
 */
#ifndef FS_INTERN_H
#define FS_INTERN_H

#include <stddef.h>
#include <stdint.h>

typedef struct fs_intern {
    char *text;             /* the distinct texts, NUL-terminated, in key order */
    size_t text_len, text_cap;
    struct fs_intern_key {
        uint64_t hash;      /* of the text, kept so growing the table reads no text */
        size_t at;          /* where the text starts in `text` */
    } *keys;                /* key k is keys[k - 1] */
    size_t keys_cap;
    uint32_t *slots;        /* keys; 0: empty; a power of two of them, or none yet */
    size_t mask;            /* slots - 1 */
    unsigned shift;         /* 64 - log2(slots): a hash's top bits pick its first slot */
    uint32_t n;             /* keys given out */
    uint32_t max;           /* the most keys there may be */
} fs_intern;

/* An empty table that gives out at most max_keys (>= 1) keys; it
 * allocates nothing until the first text. */
void fs_intern_init(fs_intern *in, uint32_t max_keys);
void fs_intern_fini(fs_intern *in);

/* The key of the len bytes at s (no NUL among them), a new one if they were
 * never seen: 0 and *key (>= 1); ERANGE when they are new and max_keys
 * keys are out already, ENOMEM; either way the table is as it was. */
int fs_intern_key(fs_intern *in, const char *s, size_t len, uint32_t *key);

/* The text of key (1 .. in->n), valid until the next new key. */
static inline const char *fs_intern_text(const fs_intern *in, uint32_t key)
{
    return in->text + in->keys[key - 1].at;
}

#endif
