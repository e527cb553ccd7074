/*
 * samples — raw calibration measurements (see samples.h).
 *
 * Arrays grow by doubling, so n appends cost O(n) copies in all; a failed
 * append leaves the series exactly as it was.  Lookup by name is a linear
 * scan over at most 16 entries, which is cheaper than anything cleverer.
 */
#include "samples.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Grows *items (capacity *cap, items of `size` bytes) to hold `need` items;
 * 0, or -1 with *items and *cap unchanged. */
static int fs__calib_grow(void **items, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t new_cap = *cap ? *cap : 16;
    while (new_cap < need)
        new_cap *= 2;
    void *grown = realloc(*items, new_cap * size);
    if (!grown)
        return -1;
    *items = grown;
    *cap = new_cap;
    return 0;
}

/* Copies name into a fixed 48-byte field; names that do not fit are refused
 * rather than truncated, so two long names can never collide. */
static int fs__calib_name_set(char dst[48], const char *name)
{
    size_t len = strlen(name);
    if (len == 0 || len >= 48)
        return -1;
    memcpy(dst, name, len + 1);
    return 0;
}

fs_calib_series *fs_calib_series_get(fs_calib_samples *s, const char *name)
{
    for (size_t i = 0; i < s->n_series; i++)
        if (strcmp(s->series[i].name, name) == 0)
            return &s->series[i];
    if (s->n_series >= FS_CALIB_MAX_SERIES)
        return NULL;
    fs_calib_series *series = &s->series[s->n_series];
    memset(series, 0, sizeof *series);
    if (fs__calib_name_set(series->name, name) != 0)
        return NULL;
    s->n_series++;
    return series;
}

fs_calib_scalar *fs_calib_scalar_get(fs_calib_samples *s, const char *name)
{
    for (size_t i = 0; i < s->n_scalars; i++)
        if (strcmp(s->scalars[i].name, name) == 0)
            return &s->scalars[i];
    if (s->n_scalars >= FS_CALIB_MAX_SCALARS)
        return NULL;
    fs_calib_scalar *scalar = &s->scalars[s->n_scalars];
    memset(scalar, 0, sizeof *scalar);
    if (fs__calib_name_set(scalar->name, name) != 0)
        return NULL;
    s->n_scalars++;
    return scalar;
}

int fs_calib_series_add(fs_calib_series *series, double bytes, double seconds)
{
    /* Both arrays share one capacity, grown on local copies: when the first
     * grows and the second fails, cap stays put (bytes is merely roomier than
     * cap says, and is realloc'd again next time) and n is untouched. */
    size_t cap = series->cap;
    void *b = series->bytes, *t = series->seconds;
    if (fs__calib_grow(&b, &cap, series->n + 1, sizeof(double)) != 0)
        return -1;
    series->bytes = b;
    cap = series->cap;
    if (fs__calib_grow(&t, &cap, series->n + 1, sizeof(double)) != 0)
        return -1;
    series->seconds = t;
    series->cap = cap;
    series->bytes[series->n] = bytes;
    series->seconds[series->n] = seconds;
    series->n++;
    return 0;
}

int fs_calib_scalar_add(fs_calib_scalar *scalar, double seconds)
{
    void *t = scalar->seconds;
    if (fs__calib_grow(&t, &scalar->cap, scalar->n + 1, sizeof(double)) != 0)
        return -1;
    scalar->seconds = t;
    scalar->seconds[scalar->n++] = seconds;
    return 0;
}

/* Splits "a,b,c" into t->columns; 0, or -1 when a name is empty or too long
 * or there are too many. */
static int fs__calib_columns_set(fs_calib_table *t, const char *columns)
{
    t->n_columns = 0;
    for (const char *c = columns;;) {
        const char *end = strchr(c, ',');
        size_t len = end ? (size_t)(end - c) : strlen(c);
        if (len == 0 || len >= sizeof t->columns[0] || t->n_columns >= FS_CALIB_MAX_COLUMNS)
            return -1;
        memcpy(t->columns[t->n_columns], c, len);
        t->columns[t->n_columns][len] = '\0';
        t->n_columns++;
        if (!end)
            return 0;
        c = end + 1;
    }
}

fs_calib_table *fs_calib_table_get(fs_calib_samples *s, const char *name, const char *columns)
{
    fs_calib_table probe;
    memset(&probe, 0, sizeof probe);
    if (fs__calib_columns_set(&probe, columns) != 0)
        return NULL;
    for (size_t i = 0; i < s->n_tables; i++) {
        fs_calib_table *t = &s->tables[i];
        if (strcmp(t->name, name) != 0)
            continue;
        if (t->n_columns != probe.n_columns || memcmp(t->columns, probe.columns, sizeof probe.columns) != 0)
            return NULL;
        return t;
    }
    if (s->n_tables >= FS_CALIB_MAX_TABLES || fs__calib_name_set(probe.name, name) != 0)
        return NULL;
    s->tables[s->n_tables] = probe;
    return &s->tables[s->n_tables++];
}

int fs_calib_table_add(fs_calib_table *t, const double *row)
{
    void *v = t->values;
    size_t cap = t->cap_rows;
    /* Grown in rows of n_columns doubles. */
    if (fs__calib_grow(&v, &cap, t->n_rows + 1, t->n_columns * sizeof(double)) != 0)
        return -1;
    t->values = v;
    t->cap_rows = cap;
    memcpy(t->values + t->n_rows * t->n_columns, row, t->n_columns * sizeof(double));
    t->n_rows++;
    return 0;
}

void fs_calib_note(fs_calib_samples *s, const char *fmt, ...)
{
    if (s->n_notes >= FS_CALIB_MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->notes[s->n_notes], sizeof s->notes[0], fmt, ap);
    va_end(ap);
    s->n_notes++;
}

void fs_calib_samples_fini(fs_calib_samples *s)
{
    for (size_t i = 0; i < s->n_tables; i++) {
        free(s->tables[i].values);
        s->tables[i].values = NULL;
        s->tables[i].n_rows = s->tables[i].cap_rows = 0;
    }
    s->n_tables = 0;
    s->n_notes = 0;
    for (size_t i = 0; i < s->n_series; i++) {
        free(s->series[i].bytes);
        free(s->series[i].seconds);
        s->series[i].bytes = s->series[i].seconds = NULL;
        s->series[i].n = s->series[i].cap = 0;
    }
    for (size_t i = 0; i < s->n_scalars; i++) {
        free(s->scalars[i].seconds);
        s->scalars[i].seconds = NULL;
        s->scalars[i].n = s->scalars[i].cap = 0;
    }
    s->n_series = 0;
    s->n_scalars = 0;
}
