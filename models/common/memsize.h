/*
 * memsize — the memory sizes scenario files may write with their unit.
 *
 * A size is a plain decimal number and a unit, with nothing between or
 * around them: "80GiB", "85.9GB", "512MiB".  Binary units (KiB, MiB, GiB,
 * TiB: powers of 1024) and decimal ones (kB or KB, MB, GB, TB: powers of
 * 1000) are told apart, because GPU vendors print GB where nvidia-smi and
 * fleetsim mean GiB, and an 80 GB card is 74.5 GiB.  Units are written
 * as listed ("Gb", "gib" are refused: a bit or a typo is never guessed).  Numbers
 * have no sign, exponent, hex, "inf" or "nan", as in durations.  Results are
 * bytes, as exact as a double holds them (80 GiB = 80 x 2^30 exactly).
 *
 * Scenario fields that are sizes ("memory_gb", "state_gb_per_gpu") take
 * these strings, or a plain JSON number meaning GiB, as before.
 */
#ifndef FS_MEMSIZE_H
#define FS_MEMSIZE_H

#include <stddef.h>

#define FS_GIB 1073741824.0 /* 2^30 bytes */

/* Returns 0 and *bytes, or -1 with a short reason in why (if not NULL),
 * e.g. "unknown unit \"XB\"" or "expected a number". */
int fs_memsize_parse(const char *text, double *bytes, char *why, size_t why_size);

#endif
