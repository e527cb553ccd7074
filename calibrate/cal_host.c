/* cal_host — the storage plan and the --host-only run (cal_host.h). */
#include "cal_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cal_output.h"
#include "cal_say.h"
#include "samples.h"

#define CAL_MIB ((size_t)1 << 20)
#define CAL_GIB ((size_t)1 << 30)

size_t cal_host_mem_available(void)
{
    FILE *fp = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kib = 0;
    if (!fp)
        return 0;
    while (fgets(line, sizeof line, fp))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            break;
    fclose(fp);
    return (size_t)kib * 1024;
}

int cal_host_storage_plan(const cal_config *cfg, cal_storage_plan *plan)
{
    double gib = cfg->storage_gib > 0 ? cfg->storage_gib : (cfg->quick ? 0.5 : 2.0);
    size_t host = cal_host_mem_available();

    plan->dir = cfg->scratch;
    /* Rounded down to whole 2 MiB, the allocation grain of the full run's device buffers. */
    plan->max_bytes = (size_t)(gib * (double)CAL_GIB) / (2 * CAL_MIB) * (2 * CAL_MIB);
    /* The pageable buffer, the full run's pinned one and the file's pages in
     * the page cache each hold the whole file: a quarter of the available
     * memory each leaves the machine a quarter. */
    if (host && plan->max_bytes > host / 4)
        plan->max_bytes = host / 4;
    plan->first_bytes = plan->max_bytes < 64 * CAL_MIB ? plan->max_bytes : 64 * CAL_MIB;
    plan->reps = cfg->quick ? 1 : 2;
    plan->budget_s = cfg->quick ? 20.0 : 90.0;
    if (plan->max_bytes < 2 * CAL_MIB) {
        cal_say_error("storage: only %zu bytes of host memory to spare", host);
        return -1;
    }
    return 0;
}

int cal_host_main(const cal_config *cfg)
{
    cal_storage_ops no_device = {NULL, NULL, NULL, NULL}; /* pageable series only */
    cal_storage_plan plan;
    fs_calib_samples *s;
    time_t now = time(NULL);
    struct tm utc;
    int rc = CAL_EXIT_FAILURE;

    if (cal_host_storage_plan(cfg, &plan) != 0 || cal_output_probe(cfg->out) != 0)
        return CAL_EXIT_FAILURE;
    s = calloc(1, sizeof *s); /* kilobytes of fixed arrays: off the stack */
    if (!s) {
        cal_say_error("out of memory");
        return CAL_EXIT_FAILURE;
    }
    /* samples.device stays empty: the profile then has no "gpu" key, so it
     * cannot be mistaken for any GPU's figures. */
    if (gmtime_r(&now, &utc))
        strftime(s->date, sizeof s->date, "%Y-%m-%dT%H:%M:%SZ", &utc);
    fs_calib_note(s, "host-only: storage only, no GPU measured");
    fs_calib_note(s, "run: %s mode, scratch %s", cfg->quick ? "quick" : "full", cfg->scratch);
    fprintf(stderr, "%s: host only: storage, no GPU%s\n", CAL_PROG, cfg->quick ? " (quick)" : "");

    cal_say_steps(1);
    cal_say_step("storage: a %.2f GiB file in %s, cold and warm, pageable", (double)plan.max_bytes / (double)CAL_GIB,
                 plan.dir);
    /* One step only: when it fails there is nothing measured worth a profile. */
    if (cal_storage_measure(&plan, &no_device, s) != 0)
        goto out;
    cal_say_done();
    if (cal_output_write(s, cfg->out) != 0)
        goto out;
    cal_output_summary(s, cfg->out);
    rc = CAL_EXIT_OK;
out:
    fs_calib_samples_fini(s);
    free(s);
    return rc;
}
