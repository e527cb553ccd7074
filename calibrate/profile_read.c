/* profile_read — recorded samples read back from a profile (profile_read.h). */
#include "profile_read.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

typedef struct reader {
    const char *path;
    char *err;
    size_t cap;
} reader;

static int fail(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(reader *r, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(r->err, r->cap, "%s: %s", r->path, what);
    return -1;
}

/* An array of numbers into a caller's buffer-growing callback's hands: each
 * element must be a number (JSON null, a non-finite value, is refused: raw
 * samples are always finite). */
static int numbers(reader *r, const json_t *a, const char *where, size_t *n)
{
    if (!json_is_array(a))
        return fail(r, "%s: expected an array of numbers", where);
    for (size_t i = 0; i < json_array_size(a); i++)
        if (!json_is_number(json_array_get(a, i)))
            return fail(r, "%s[%zu]: expected a number", where, i);
    *n = json_array_size(a);
    return 0;
}

static int read_series(reader *r, const json_t *series, fs_calib_samples *out)
{
    const char *name;
    json_t *v;
    json_object_foreach ((json_t *)series, name, v) {
        char where[128];
        size_t nb, ns;
        snprintf(where, sizeof where, "samples.series.%s", name);
        if (!json_is_object(v))
            return fail(r, "%s: expected an object with \"bytes\" and \"seconds\"", where);
        json_t *b = json_object_get(v, "bytes"), *t = json_object_get(v, "seconds");
        if (numbers(r, b, where, &nb) != 0 || numbers(r, t, where, &ns) != 0)
            return -1;
        if (nb != ns)
            return fail(r, "%s: %zu bytes against %zu seconds", where, nb, ns);
        fs_calib_series *se = fs_calib_series_get(out, name);
        if (!se)
            return fail(r, "%s: too many series, or a name over 47 bytes", where);
        for (size_t i = 0; i < nb; i++)
            if (fs_calib_series_add(se, json_number_value(json_array_get(b, i)),
                                    json_number_value(json_array_get(t, i))) != 0)
                return fail(r, "out of memory");
    }
    return 0;
}

static int read_scalars(reader *r, const json_t *scalars, fs_calib_samples *out)
{
    const char *name;
    json_t *v;
    json_object_foreach ((json_t *)scalars, name, v) {
        char where[128];
        size_t n;
        snprintf(where, sizeof where, "samples.scalars.%s", name);
        if (numbers(r, v, where, &n) != 0)
            return -1;
        fs_calib_scalar *sc = fs_calib_scalar_get(out, name);
        if (!sc)
            return fail(r, "%s: too many scalars, or a name over 47 bytes", where);
        for (size_t i = 0; i < n; i++)
            if (fs_calib_scalar_add(sc, json_number_value(json_array_get(v, i))) != 0)
                return fail(r, "out of memory");
    }
    return 0;
}

static int read_tables(reader *r, const json_t *tables, fs_calib_samples *out)
{
    const char *name;
    json_t *v;
    json_object_foreach ((json_t *)tables, name, v) {
        char where[128], columns[FS_CALIB_MAX_COLUMNS * 32 + 1] = "";
        double row[FS_CALIB_MAX_COLUMNS];
        snprintf(where, sizeof where, "samples.tables.%s", name);
        json_t *cols = json_object_get(v, "columns"), *rows = json_object_get(v, "rows");
        if (!json_is_array(cols) || !json_is_array(rows) || json_array_size(cols) == 0 ||
            json_array_size(cols) > FS_CALIB_MAX_COLUMNS)
            return fail(r, "%s: expected {\"columns\": [1 to %d names], \"rows\": [...]}", where,
                        FS_CALIB_MAX_COLUMNS);
        for (size_t c = 0; c < json_array_size(cols); c++) {
            const char *cn = json_string_value(json_array_get(cols, c));
            if (!cn || strchr(cn, ','))
                return fail(r, "%s.columns[%zu]: expected a column name", where, c);
            if (c > 0)
                strcat(columns, ",");
            strncat(columns, cn, 31);
        }
        fs_calib_table *t = fs_calib_table_get(out, name, columns);
        if (!t)
            return fail(r, "%s: too many tables, or a name or column too long", where);
        for (size_t i = 0; i < json_array_size(rows); i++) {
            char rw[160];
            size_t n;
            snprintf(rw, sizeof rw, "%s.rows[%zu]", where, i);
            if (numbers(r, json_array_get(rows, i), rw, &n) != 0)
                return -1;
            if (n != t->n_columns)
                return fail(r, "%s: %zu numbers for %zu columns", rw, n, t->n_columns);
            for (size_t c = 0; c < n; c++)
                row[c] = json_number_value(json_array_get(json_array_get(rows, i), c));
            if (fs_calib_table_add(t, row) != 0)
                return fail(r, "out of memory");
        }
    }
    return 0;
}

static int read_device(reader *r, const json_t *dev, fs_calib_samples *out)
{
    const char *name = json_string_value(json_object_get(dev, "name"));
    const char *date = json_string_value(json_object_get(dev, "date"));
    json_t *mem = json_object_get(dev, "memory_gb");
    if (!json_is_object(dev))
        return fail(r, "device: expected an object");
    snprintf(out->device, sizeof out->device, "%s", name ? name : "");
    snprintf(out->date, sizeof out->date, "%s", date ? date : "");
    out->memory_gb = json_is_number(mem) ? json_number_value(mem) : NAN;
    out->driver_version = (int)json_integer_value(json_object_get(dev, "driver_version"));
    out->runtime_version = (int)json_integer_value(json_object_get(dev, "runtime_version"));
    return 0;
}

int fs_calib_profile_read(const char *path, fs_calib_samples *out, char *err, size_t err_cap)
{
    reader r = {path, err, err_cap};
    json_error_t je;
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    int rc = -1;
    memset(out, 0, sizeof *out);
    if (!doc) {
        if (je.line <= 0)
            return fail(&r, "%s", je.text);
        snprintf(err, err_cap, "%s:%d:%d: %s", path, je.line, je.column, je.text);
        return -1;
    }
    json_t *dev = json_object_get(doc, "device"), *samples = json_object_get(doc, "samples");
    if (!json_is_object(doc)) {
        fail(&r, "expected a calibration profile (a JSON object)");
        goto done;
    }
    if (!json_is_object(samples)) {
        fail(&r, "samples: expected an object (a profile the measuring tool wrote)");
        goto done;
    }
    if (dev && read_device(&r, dev, out) != 0)
        goto done;
    json_t *series = json_object_get(samples, "series"), *scalars = json_object_get(samples, "scalars");
    json_t *tables = json_object_get(samples, "tables"), *notes = json_object_get(samples, "notes");
    if ((series && !json_is_object(series)) || (scalars && !json_is_object(scalars)) ||
        (tables && !json_is_object(tables)) || (notes && !json_is_array(notes))) {
        fail(&r, "samples: series, scalars and tables are objects, notes an array");
        goto done;
    }
    if ((series && read_series(&r, series, out) != 0) || (scalars && read_scalars(&r, scalars, out) != 0) ||
        (tables && read_tables(&r, tables, out) != 0))
        goto done;
    for (size_t i = 0; notes && i < json_array_size(notes); i++) {
        const char *note = json_string_value(json_array_get(notes, i));
        if (!note) {
            fail(&r, "samples.notes[%zu]: expected a string", i);
            goto done;
        }
        fs_calib_note(out, "%s", note);
    }
    rc = 0;
done:
    if (rc != 0)
        fs_calib_samples_fini(out);
    json_decref(doc);
    return rc;
}
