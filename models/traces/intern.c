/*
 * intern — texts to dense keys; see intern.h.  Hand-written: neither libc
 * nor GSL offers a string hash table (hsearch is one table per process).
 */
#include "intern.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { INTERN_FIRST_SLOTS = 64 };

/* FNV-1a, 64 bits. */
static uint64_t intern_hash(const char *s, size_t len)
{
    uint64_t h = UINT64_C(14695981039346656037);
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= UINT64_C(1099511628211);
    }
    return h;
}

/* The slot a hash starts probing at.  FNV-1a's low bits mix poorly (its
 * lowest is the parity of the bytes' lowest bits), so the slot is taken
 * from the top bits of a Fibonacci multiply of the whole hash. */
static inline size_t intern_home(const fs_intern *in, uint64_t hash)
{
    return (size_t)((hash * UINT64_C(0x9E3779B97F4A7C15)) >> in->shift);
}

/* The slot holding the key of s, or the empty slot where it would go. */
static size_t intern_find(const fs_intern *in, uint64_t hash, const char *s, size_t len)
{
    for (size_t i = intern_home(in, hash);; i = (i + 1) & in->mask) {
        uint32_t k = in->slots[i];
        if (k == 0)
            return i;
        const struct fs_intern_key *e = &in->keys[k - 1];
        /* strncmp stops at the stored text's NUL, so a shorter stored text
         * is never read past its end. */
        if (e->hash == hash && strncmp(in->text + e->at, s, len) == 0 && in->text[e->at + len] == '\0')
            return i;
    }
}

/* Twice the slots (the first INTERN_FIRST_SLOTS on the first call), every
 * key placed again from its kept hash.  0 or ENOMEM (nothing changed). */
static int intern_grow(fs_intern *in)
{
    size_t n = in->slots ? 2 * (in->mask + 1) : INTERN_FIRST_SLOTS;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (slots == NULL)
        return ENOMEM;
    free(in->slots);
    in->slots = slots;
    in->mask = n - 1;
    in->shift = 64;
    while (n > 1)
        n >>= 1, in->shift--;
    for (uint32_t k = 1; k <= in->n; k++) {
        size_t i = intern_home(in, in->keys[k - 1].hash);
        while (slots[i])
            i = (i + 1) & in->mask;
        slots[i] = k;
    }
    return 0;
}

/* Room for one more key and its text of len bytes and a NUL.  0 or ENOMEM
 * (what grew stays grown, which changes nothing a lookup sees). */
static int intern_room(fs_intern *in, size_t len)
{
    if (in->n == in->keys_cap) {
        size_t cap = in->keys_cap ? 2 * in->keys_cap : INTERN_FIRST_SLOTS;
        struct fs_intern_key *keys = realloc(in->keys, cap * sizeof *keys);
        if (keys == NULL)
            return ENOMEM;
        in->keys = keys;
        in->keys_cap = cap;
    }
    size_t need = in->text_len + len + 1, cap = in->text_cap ? in->text_cap : 1024;
    while (cap < need)
        cap *= 2;
    char *text = cap > in->text_cap ? realloc(in->text, cap) : in->text;
    if (text == NULL)
        return ENOMEM;
    in->text = text;
    in->text_cap = cap;
    return 0;
}

void fs_intern_init(fs_intern *in, uint32_t max_keys)
{
    memset(in, 0, sizeof *in);
    in->max = max_keys;
}

void fs_intern_fini(fs_intern *in)
{
    free(in->text);
    free(in->keys);
    free(in->slots);
    memset(in, 0, sizeof *in);
}

int fs_intern_key(fs_intern *in, const char *s, size_t len, uint32_t *key)
{
    uint64_t hash = intern_hash(s, len);
    size_t i = 0;
    if (in->slots) {
        i = intern_find(in, hash, s, len);
        if (in->slots[i]) {
            *key = in->slots[i];
            return 0;
        }
    }
    if (in->n >= in->max)
        return ERANGE;
    /* At most half full, so probes stay short and one is always empty. */
    if (in->slots == NULL || 2 * ((size_t)in->n + 1) > in->mask + 1) {
        if (intern_grow(in) != 0)
            return ENOMEM;
        i = intern_find(in, hash, s, len);
    }
    if (intern_room(in, len) != 0)
        return ENOMEM;
    memcpy(in->text + in->text_len, s, len);
    in->text[in->text_len + len] = '\0';
    in->keys[in->n] = (struct fs_intern_key){.hash = hash, .at = in->text_len};
    in->text_len += len + 1;
    in->slots[i] = ++in->n;
    *key = in->n;
    return 0;
}
