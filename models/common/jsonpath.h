/*
 * jsonpath — typed reads from a jansson document that know where they are.
 *
 * Private to models/: the scenario parser (and later parsers of JSON inputs)
 * walk a document with an fs_jpath cursor that holds the current path
 * ("services[2].slo") and the file name, so every failure becomes one
 * fs_error line: `scen.json: services[2].slo.p99_ms: expected a positive
 * number, got -5`.  It also refuses unknown keys with the closest valid one
 * ("did you mean"), so a typo in a scenario is never silently ignored.
 *
 * Conventions: every function returns FS_OK or an FS_ERR_* code with the
 * cursor's fs_error filled.  Member getters (fs_jpath_get_*) leave *out
 * untouched when an optional key is absent, so callers set the default first.
 * Strings handed out point into the jansson document and live as long as it.
 */
#ifndef FS_JPATH_H
#define FS_JPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "error.h"

#define FS_JPATH_MAX 256

typedef struct fs_jpath {
    const char *origin; /* file name that starts every message */
    fs_error *err;
    char buf[FS_JPATH_MAX]; /* "services[2].slo"; "" at the top level */
    size_t len;
} fs_jpath;

typedef enum fs_jpath_sign {
    FS_JPATH_ANY,
    FS_JPATH_NONNEG,  /* >= 0 */
    FS_JPATH_POSITIVE /* > 0 */
} fs_jpath_sign;

void fs_jpath_init(fs_jpath *p, const char *origin, fs_error *err);

/* Descend into a member or an element; each returns a mark for fs_jpath_pop.
 * A path longer than FS_JPATH_MAX is truncated, which only shortens messages. */
size_t fs_jpath_push_key(fs_jpath *p, const char *key);
size_t fs_jpath_push_index(fs_jpath *p, size_t index);
void fs_jpath_pop(fs_jpath *p, size_t mark);

/* FS_ERR_INPUT "<origin>: <path>: <message>" (no path part at the top level). */
int fs_jpath_fail(fs_jpath *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* FS_ERR_INPUT "<origin>: <path>: expected <what>, got <found>". */
int fs_jpath_expected(fs_jpath *p, const json_t *found, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* FS_ERR_RUNTIME "<origin>: out of memory". */
int fs_jpath_oom(fs_jpath *p);

/* A value as a message shows it: numbers as written (integers exactly, reals
 * with %g), strings quoted and cut at 48 characters, "an object", "an empty
 * array", "true", "null". */
void fs_jpath_describe(const json_t *v, char *buf, size_t size);

/* Levenshtein edit distance, ASCII case-insensitive.  Written here because no
 * packaged library provides it; strings beyond 128 bytes count as "far". */
size_t fs_jpath_distance(const char *a, const char *b);

/* Whether candidate is nearer to word than *best (at *best_d edits; start
 * with NULL and SIZE_MAX), and if so makes it the best.  Equal distances go
 * to the longer common prefix ("A100-80GB" -> "A100-SXM4-80GB", not
 * "H100-SXM-80GB"), then to the earlier candidate. */
bool fs_jpath_nearer(const char *word, const char *candidate, size_t *best_d, const char **best);

/* The nearest candidate (as fs_jpath_nearer ranks them) if it is within
 * max(2, strlen(word) / 3) edits, else NULL. */
const char *fs_jpath_closest(const char *word, const char *const *candidates, size_t n);

/* Refuses the first key of obj (in document order) that is not in keys[n]:
 * `unknown key "poison_rps" (did you mean "poisson_rps"?)`, or the list of
 * valid keys when none is close. */
int fs_jpath_check_keys(fs_jpath *p, const json_t *obj, const char *const *keys, size_t n);

/* Writes `"a", "b", "c"` into buf (truncated to fit). */
void fs_jpath_list(const char *const *words, size_t n, char *buf, size_t size);

/* Value readers: v is the value at the cursor's current path. */
int fs_jpath_string(fs_jpath *p, const json_t *v, bool nonempty, const char **out);
int fs_jpath_number(fs_jpath *p, const json_t *v, fs_jpath_sign sign, double *out);
/* Integers in [min, max]; a real with an integral value (3.0, 1e3) counts. */
int fs_jpath_uint(fs_jpath *p, const json_t *v, uint64_t min, uint64_t max, uint64_t *out);
/* A duration string (duration.h) or a JSON number of seconds. */
int fs_jpath_duration(fs_jpath *p, const json_t *v, fs_jpath_sign sign, double *out);

/* Member getters: obj[key] read as above.  An absent required key fails with
 * `<path>: missing required key "key"`; an absent optional one returns FS_OK
 * and leaves *out as it was. */
int fs_jpath_get(fs_jpath *p, const json_t *obj, const char *key, bool required, json_t **out);
int fs_jpath_get_string(fs_jpath *p, const json_t *obj, const char *key, bool required,
                        bool nonempty, const char **out);
int fs_jpath_get_number(fs_jpath *p, const json_t *obj, const char *key, bool required,
                        fs_jpath_sign sign, double *out);
int fs_jpath_get_uint(fs_jpath *p, const json_t *obj, const char *key, bool required, uint64_t min,
                      uint64_t max, uint64_t *out);
int fs_jpath_get_duration(fs_jpath *p, const json_t *obj, const char *key, bool required,
                          fs_jpath_sign sign, double *out);
/* An object, or an array (non-empty when nonempty is set). */
int fs_jpath_get_object(fs_jpath *p, const json_t *obj, const char *key, bool required,
                        json_t **out);
int fs_jpath_get_array(fs_jpath *p, const json_t *obj, const char *key, bool required,
                       bool nonempty, json_t **out);

#endif
