/*
 * fuzz_scenario — the scenario loader: JSON text -> fs_scenario_parse (every
 * section, every policy variant, calibration), then what `fleetsim validate`
 * does next: the CI settings and each policy's placement.  Any outcome is
 * fine (a refusal is the loader working); a crash, a sanitizer report, a
 * leak or a hang is a finding.  Nothing is run: the simulation's own limits
 * are not the loader's.
 */
#include <stdlib.h>

#include "fuzz_input.h"
#include "placement.h"
#include "scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fs_fuzz_text(data, size);
    if (!text)
        return 0;
    fs_scenario *s = NULL;
    fs_error err = {0};
    /* A relative "calibration" file or trace resolves against the origin's
     * directory: the working directory's, where no such file is expected. */
    if (fs_scenario_parse(text, "fuzz.json", &s, &err) == FS_OK) {
        for (size_t p = 0; p < s->n_policies; p++) {
            fs_placement *placement = NULL;
            if (fs_placement_compute(s->policies[p], &placement, &err) == FS_OK)
                fs_placement_destroy(placement);
        }
        fs_scenario_apply_ci(s, &err);
        fs_scenario_destroy(s);
    }
    free(text);
    return 0;
}
