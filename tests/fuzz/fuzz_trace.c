/*
 * fuzz_trace — the trace readers (models/traces/trace.c): the input is a
 * CSV file, read as each preset's format (a request trace with datetimes,
 * two job traces: one with durations, one with end times and text
 * priorities), first strictly, then lenient with repeat, as a replay reads
 * it; the request trace once more with prefix columns (identities interned,
 * token counts parsed) on its two size columns; and each preset once as
 * JSON Lines (lenient, repeating), so the same bytes reach the line
 * splitter and jansson.  Shipped traces are seeds
 * for their own preset; for the others their header lacks a column, which
 * the reader must refuse cleanly.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "trace.h"

/* A repeating trace never ends: the bound stops it.  256 rows wrap a short
 * trace many times; a longer input still crosses the reader's 4 KiB parse
 * slices.  (4,096 rows made each input cost 40 ms under the sanitizers:
 * rewinding a one-row trace 4,096 times, for no new coverage.) */
enum { FS_FUZZ_MAX_ROWS = 256 };

static void fs__read(const char *preset, const char *path, bool lenient_repeat, bool prefixed, fs_trace_format format)
{
    fs_trace_spec spec;
    fs_error err = {0};
    if (fs_trace_preset(preset, path, &spec, &err) != FS_OK)
        return;
    spec.format = format;
    if (prefixed && (spec.kind != FS_TRACE_REQUESTS || !(spec.prefix_col = strdup(spec.size_cols[1])) ||
                     !(spec.prefix_tokens_col = strdup(spec.size_cols[0])))) {
        fs_trace_spec_fini(&spec);
        return;
    }
    spec.lenient = lenient_repeat;
    spec.repeat = lenient_repeat;
    fs_trace *t = NULL;
    if (fs_trace_open(&spec, &t, &err) == FS_OK) {
        fs_trace_row row;
        for (int i = 0; i < FS_FUZZ_MAX_ROWS && fs_trace_next(t, &row, &err) == 1; i++)
            (void)fs_trace_origin(t);
        (void)fs_trace_rows(t);
        (void)fs_trace_skipped(t);
        fs_trace_close(t);
    }
    fs_trace_spec_fini(&spec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fs_fuzz_file(data, size, ".csv");
    if (!path)
        return 0;
    for (const char *const *p = fs_trace_preset_names; *p; p++) {
        fs__read(*p, path, false, false, FS_TRACE_FORMAT_AUTO);
        fs__read(*p, path, true, false, FS_TRACE_FORMAT_AUTO);
        fs__read(*p, path, true, true, FS_TRACE_FORMAT_AUTO);
        fs__read(*p, path, true, false, FS_TRACE_FORMAT_JSONL);
    }
    return 0;
}
