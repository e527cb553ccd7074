/*
 * scenario_batching — a service's "batching" member (Triton-style dynamic
 * batching): max batch size, max queue delay, preferred sizes and the batch
 * time as a function of the batch size; and that time, fs_scenario_batch_time.
 */
#include "scenario_parse.h"

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

double fs_scenario_batch_time(const fs_batching *b, uint32_t size)
{
    if (b->linear)
        return b->base_s + b->per_request_s * size;
    /* The table starts at 1 and reaches max_batch_size (the parser checks),
     * so size lies in a segment: interpolate linearly inside it. */
    size_t k = 1;
    while (k < b->n_table - 1 && b->table_size[k] < size)
        k++;
    if (b->n_table == 1)
        return b->table_s[0];
    double b0 = b->table_size[k - 1], b1 = b->table_size[k];
    double t0 = b->table_s[k - 1], t1 = b->table_s[k];
    return t0 + (t1 - t0) * ((double)size - b0) / (b1 - b0);
}

/* "linear": {"base": D, "per_request": D}, both >= 0, base + per_request > 0. */
static int parse_linear(fs_jpath *p, const json_t *obj, fs_batching *b)
{
    static const char *const keys[] = {"base", "per_request"};
    size_t mark = fs_jpath_push_key(p, "linear");
    int rc = fs_jpath_check_keys(p, obj, keys, COUNT(keys));
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, obj, "base", true, FS_JPATH_NONNEG, &b->base_s);
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, obj, "per_request", true, FS_JPATH_NONNEG, &b->per_request_s);
    if (rc == FS_OK && b->base_s + b->per_request_s <= 0)
        rc = fs_jpath_fail(p, "a batch must take some time: \"base\" + \"per_request\" must be positive, got 0");
    fs_jpath_pop(p, mark);
    b->linear = true;
    return rc;
}

/* One row [b, D] of "table" (the cursor is on it); sizes strictly increasing
 * from 1, times positive. */
static int parse_table_row(fs_jpath *p, const json_t *row, size_t i, fs_batching *b)
{
    if (!json_is_array(row) || json_array_size(row) != 2)
        return fs_jpath_expected(p, row, "a pair [batch size, duration]");
    uint64_t size = 0;
    uint64_t min = i == 0 ? 1 : (uint64_t)b->table_size[i - 1] + 1;
    size_t m = fs_jpath_push_index(p, 0);
    int rc = fs_jpath_uint(p, json_array_get(row, 0), min, FS_SCENARIO_MAX_BATCH_SIZE, &size);
    if (rc == FS_OK && i == 0 && size != 1)
        rc = fs_jpath_fail(p, "the table must start at batch size 1, got %" PRIu64, size);
    fs_jpath_pop(p, m);
    if (rc != FS_OK)
        return rc;
    m = fs_jpath_push_index(p, 1);
    rc = fs_jpath_duration(p, json_array_get(row, 1), FS_JPATH_POSITIVE, &b->table_s[i]);
    fs_jpath_pop(p, m);
    b->table_size[i] = (uint32_t)size;
    return rc;
}

/* "table": [[1, D], [b, D], ...]. */
static int parse_table(fs_jpath *p, const json_t *table, fs_batching *b)
{
    size_t mark = fs_jpath_push_key(p, "table");
    int rc = FS_OK;
    size_t n = json_is_array(table) ? json_array_size(table) : 0;
    if (n == 0 || n > FS_SCENARIO_MAX_BATCH_TABLE)
        rc = fs_jpath_expected(p, table, "an array of 1 to %d pairs [batch size, duration]",
                               FS_SCENARIO_MAX_BATCH_TABLE);
    for (size_t i = 0; rc == FS_OK && i < n; i++) {
        size_t m = fs_jpath_push_index(p, i);
        rc = parse_table_row(p, json_array_get(table, i), i, b);
        fs_jpath_pop(p, m);
    }
    b->n_table = rc == FS_OK ? n : 0;
    fs_jpath_pop(p, mark);
    b->linear = false;
    return rc;
}

/* "batch_time": exactly one of {"linear": {...}} and {"table": [...]}. */
static int parse_batch_time(fs_jpath *p, const json_t *obj, fs_batching *b)
{
    static const char *const keys[] = {"linear", "table"};
    json_t *bt = NULL;
    int rc = fs_jpath_get_object(p, obj, "batch_time", true, &bt);
    if (rc != FS_OK)
        return rc;
    size_t mark = fs_jpath_push_key(p, "batch_time");
    json_t *linear = json_object_get(bt, "linear"), *table = json_object_get(bt, "table");
    rc = fs_jpath_check_keys(p, bt, keys, COUNT(keys));
    if (rc == FS_OK && (linear != NULL) == (table != NULL))
        rc = fs_jpath_fail(p, "expected exactly one of \"linear\" and \"table\", got %s",
                           linear ? "both" : "neither");
    else if (rc == FS_OK && linear && !json_is_object(linear))
        rc = fs_jpath_get_object(p, bt, "linear", true, &linear);
    if (rc == FS_OK)
        rc = linear ? parse_linear(p, linear, b) : parse_table(p, table, b);
    if (rc == FS_OK && !b->linear && b->table_size[b->n_table - 1] < b->max_batch_size) {
        size_t m = fs_jpath_push_key(p, "table");
        rc = fs_jpath_fail(p,
                           "the table ends at batch size %u, below \"max_batch_size\" (%u); "
                           "measure the time up to it (no extrapolation)",
                           b->table_size[b->n_table - 1], b->max_batch_size);
        fs_jpath_pop(p, m);
    }
    fs_jpath_pop(p, mark);
    return rc;
}

/* "preferred_batch_sizes": [..], strictly increasing, each in 1..max. */
static int parse_preferred(fs_jpath *p, const json_t *obj, fs_batching *b)
{
    json_t *arr = NULL;
    int rc = fs_jpath_get_array(p, obj, "preferred_batch_sizes", false, true, &arr);
    if (rc != FS_OK || arr == NULL)
        return rc;
    size_t mark = fs_jpath_push_key(p, "preferred_batch_sizes");
    size_t n = json_array_size(arr);
    if (n == 0 || n > FS_SCENARIO_MAX_PREFERRED_BATCHES)
        rc = fs_jpath_expected(p, arr, "an array of 1 to %d batch sizes", FS_SCENARIO_MAX_PREFERRED_BATCHES);
    for (size_t i = 0; rc == FS_OK && i < n; i++) {
        uint64_t size = 0, min = i ? (uint64_t)b->preferred[i - 1] + 1 : 1;
        size_t m = fs_jpath_push_index(p, i);
        rc = fs_jpath_uint(p, json_array_get(arr, i), min, b->max_batch_size, &size);
        fs_jpath_pop(p, m);
        b->preferred[i] = (uint32_t)size;
    }
    b->n_preferred = rc == FS_OK ? n : 0;
    fs_jpath_pop(p, mark);
    return rc;
}

int fs__scenario_parse_batching(fs_jpath *p, const json_t *svc, const parse_ctx *c, fs_service_spec *out)
{
    static const char *const keys[] = {"kind", "max_batch_size", "max_queue_delay",
                                       "preferred_batch_sizes", "batch_time"};
    static const char *const kinds[] = {"dynamic", "continuous"};
    fs_batching *b = &out->batching;
    memset(b, 0, sizeof *b);
    json_t *obj = NULL;
    int rc = fs_jpath_get_object(p, svc, "batching", false, &obj);
    if (rc != FS_OK || obj == NULL)
        return rc;
    size_t mark = fs_jpath_push_key(p, "batching");
    int kind = -1;
    uint64_t max = 0;
    json_t *kind_v = NULL;
    rc = fs_jpath_get(p, obj, "kind", true, &kind_v);
    if (rc == FS_OK)
        rc = fs__scenario_get_choice(p, obj, "kind", "a batching kind", kinds, COUNT(kinds), &kind);
    if (rc == FS_OK && kind == 1) {
        rc = fs__scenario_parse_continuous(p, obj, c, out);
        if (rc == FS_OK)
            b->kind = FS_BATCHING_CONTINUOUS;
        fs_jpath_pop(p, mark);
        return rc;
    }
    if (rc == FS_OK)
        rc = fs_jpath_check_keys(p, obj, keys, COUNT(keys));
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, obj, "max_batch_size", true, 1, FS_SCENARIO_MAX_BATCH_SIZE, &max);
    b->max_batch_size = (uint32_t)max;
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, obj, "max_queue_delay", true, FS_JPATH_NONNEG, &b->max_queue_delay_s);
    if (rc == FS_OK)
        rc = parse_preferred(p, obj, b);
    if (rc == FS_OK)
        rc = parse_batch_time(p, obj, b);
    /* A replica runs one batch at a time: slots beside it are not defined. */
    if (rc == FS_OK && out->concurrency != 1)
        rc = fs_jpath_fail(p,
                           "a batched replica runs one batch at a time: \"replicas.concurrency\" "
                           "must be 1 (got %u); raise \"max_batch_size\" instead",
                           out->concurrency);
    if (rc == FS_OK && out->arrivals.trace_sized)
        rc = fs_jpath_fail(p,
                           "a batch's time comes from \"batch_time\", not from the trace's "
                           "\"service_time\": remove one of them");
    if (rc == FS_OK)
        b->kind = FS_BATCHING_DYNAMIC;
    fs_jpath_pop(p, mark);
    return rc;
}
