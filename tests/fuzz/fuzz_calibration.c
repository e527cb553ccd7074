/*
 * fuzz_calibration — the calibration profile reader
 * (models/scenario/scenario_calibration.c, the reader of what
 * calibrate/profile.c writes).  The input is a profile file; a fixed,
 * valid scenario names it twice: as the scenario's "calibration" and as a
 * GPU type's own, read over the first, so both paths of the reader run.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_input.h"
#include "scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fs_fuzz_file(data, size, ".json");
    if (!path)
        return 0;
    /* The path is mkstemp's (letters, digits, '/', '-', '.' and TMPDIR's):
     * no JSON escaping is needed unless TMPDIR holds a quote or backslash,
     * which makes the scenario refused, not a crash. */
    char text[8192];
    int n = snprintf(text, sizeof text,
                     "{\"schema\": \"fleetsim/1\", \"horizon\": \"1h\", \"calibration\": \"%s\","
                     " \"gpus\": {\"H100-SXM-80GB\": {\"calibration\": \"%s\"}},"
                     " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 2}],"
                     " \"services\": [{\"name\": \"s\", \"arrivals\": {\"poisson_rps\": 1},"
                     " \"service_time\": {\"exponential\": {\"mean\": \"10ms\"}}}]}",
                     path, path);
    if (n < 0 || (size_t)n >= sizeof text)
        return 0;
    fs_scenario *s = NULL;
    fs_error err = {0};
    if (fs_scenario_parse(text, "fuzz.json", &s, &err) == FS_OK) {
        for (size_t g = 0; g < s->n_gpu_types; g++)
            (void)fs_scenario_switch_costs(s, g);
        fs_scenario_destroy(s);
    }
    return 0;
}
