/*
 * rng — named, independent random streams (common random numbers).
 *
 * Every random quantity in a simulation draws from a stream named for what it
 * drives ("arrivals/chat", "service/chat").  A stream's state is derived only
 * from (base seed, replication, name), so two policies run with the same seed
 * see the same arrivals and the same service draws whatever else they do:
 * comparisons between policies are paired.  Adding a stream never shifts
 * another stream's numbers.
 *
 * Streams are GSL generators: gsl_rng_taus2, L'Ecuyer's maximally
 * equidistributed combined Tausworthe generator (Math. Comp. 65, 1996),
 * period 2^88, 32-bit output, which GSL lists among its fastest
 * simulation-quality generators.  Its state is 24 bytes; MT19937's (used
 * until issue 18) was about 5 KB, and with two streams per service that
 * was 50 MB of state at 5,000 services, for a period no run comes near.
 * The seed is a 64-bit hash (FNV-1a of the name, mixed with seed and
 * replication through splitmix64), folded to 32 bits: taus2 seeds its three
 * components from an LCG of the low 32 bits of the seed it is given, and
 * treats seed 0 as 1, so the fold is all it would read anyway.
 *
 * Ownership: fs_rng_create returns a gsl_rng the caller frees with
 * gsl_rng_free (or fs_rng_destroy).
 */
#ifndef FS_RNG_H
#define FS_RNG_H

#include <stddef.h>
#include <stdint.h>
#include <gsl/gsl_rng.h>

/* The 64-bit seed of stream `name` for (seed, replication). Pure. */
uint64_t fs_rng_stream_seed(uint64_t seed, uint32_t replication, const char *name);

/* The same for a name that arrives in pieces (a document hashed as it is
 * dumped, never held whole): h = FS_RNG_HASH_START, then
 * h = fs_rng_hash_piece(h, piece, n) for each piece in order, then
 * fs_rng_seed_of_hash(seed, replication, h) is fs_rng_stream_seed of the
 * pieces joined (a name holds no NUL byte). Pure. */
#define FS_RNG_HASH_START UINT64_C(0xcbf29ce484222325) /* FNV-1a's offset basis */
uint64_t fs_rng_hash_piece(uint64_t h, const char *piece, size_t n);
uint64_t fs_rng_seed_of_hash(uint64_t seed, uint32_t replication, uint64_t h);

/* A new generator for that stream, or NULL when out of memory (only once the
 * program has called gsl_set_error_handler_off(): GSL's default handler
 * aborts inside gsl_rng_alloc instead). */
gsl_rng *fs_rng_create(uint64_t seed, uint32_t replication, const char *name);
void fs_rng_destroy(gsl_rng *r);

#endif
