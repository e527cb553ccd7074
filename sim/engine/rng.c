/*
 * rng — stream seeds from (seed, replication, name); see rng.h.
 */
#include "rng.h"

#include <assert.h>
#include <stddef.h>
#include <string.h>

#define FNV64_PRIME UINT64_C(0x100000001b3)

/* Offsets the replication number before mixing so that replication 0 does not
 * feed splitmix64 a zero input that other terms could cancel trivially. */
#define REPLICATION_SALT UINT64_C(0x2545f4914f6cdd1d)

/* taus2 in GSL replaces seed 0 with 1; map a zero fold to a constant of our
 * own so the stream that folds to 0 does not share the one that folds to 1. */
#define ZERO_FOLD_SEED UINT32_C(0x6a09e667)

static uint64_t splitmix64(uint64_t x)
{
    uint64_t z = x + UINT64_C(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* FNV-1a over n more bytes. */
uint64_t fs_rng_hash_piece(uint64_t h, const char *piece, size_t n)
{
    assert(piece != NULL || n == 0);
    for (const unsigned char *p = (const unsigned char *)piece, *end = p + n; p < end; p++) {
        h ^= *p;
        h *= FNV64_PRIME;
    }
    return h;
}

uint64_t fs_rng_seed_of_hash(uint64_t seed, uint32_t replication, uint64_t h)
{
    /* FNV-1a alone mixes poorly in its high bits; the outer splitmix64 makes
     * every input bit reach every output bit before the 32-bit fold. */
    uint64_t rep = splitmix64((uint64_t)replication + REPLICATION_SALT);
    return splitmix64(seed ^ rep ^ h);
}

uint64_t fs_rng_stream_seed(uint64_t seed, uint32_t replication, const char *name)
{
    assert(name != NULL);
    return fs_rng_seed_of_hash(seed, replication, fs_rng_hash_piece(FS_RNG_HASH_START, name, strlen(name)));
}

gsl_rng *fs_rng_create(uint64_t seed, uint32_t replication, const char *name)
{
    /* gsl_rng_alloc reports failure through GSL's error handler, which aborts
     * by default; it returns NULL only if the program has turned the handler
     * off (gsl_set_error_handler_off), which is a process-wide choice left to
     * the application. */
    gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);
    if (r == NULL)
        return NULL;

    /* taus2 reads only the low 32 bits of its seed: fold the high ones in
     * rather than drop them. */
    uint64_t x = fs_rng_stream_seed(seed, replication, name);
    uint32_t folded = (uint32_t)(x ^ (x >> 32));
    if (folded == 0)
        folded = ZERO_FOLD_SEED;
    gsl_rng_set(r, (unsigned long)folded);
    return r;
}

void fs_rng_destroy(gsl_rng *r)
{
    if (r != NULL)
        gsl_rng_free(r);
}
