/*
 * cal_options — fleetsim-calibrate's command line: the option table that
 * gives both the parser and --help, the settings it fills, and the exit
 * statuses that the help and calibrate/README.md promise.
 *
 * Hidden options (no help line) are the modes in which the tool re-executes
 * itself (cal_child.h): --child-context, --child-hog, --child-train,
 * --child-serve (with --child-file), --child-slice and --child-work.
 *
 * cal_config owns nothing: its strings point into argv or are literals.
 */
#ifndef FS_CALIB_OPTIONS_H
#define FS_CALIB_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

enum cal_exit {
    CAL_EXIT_OK = 0,
    CAL_EXIT_FAILURE = 1,  /* a CUDA call, a child process, a write */
    CAL_EXIT_USAGE = 2,
    CAL_EXIT_NO_DEVICE = 3 /* cudaGetDeviceCount failed or found none, or --device out of range;
                            * in a build without CUDA, anything but --host-only and --help */
};

typedef struct cal_config {
    int device;
    const char *out;
    bool quick;
    double max_gib;
    double storage_gib;  /* largest storage read; 0: the mode's default */
    const char *scratch; /* directory for the files the storage and mixed steps write */
    const char *steps;   /* comma-separated step names; NULL: all */
    bool host_only;      /* storage alone, no CUDA call (cal_host.h); --steps is then NULL or "storage" */
    bool help;
    bool child_context;
    double child_hog_s;       /* > 0: hog mode */
    const char *child_train;  /* hidden modes of the mixed-workload check (cal_mixed.h) */
    const char *child_serve;
    const char *child_file;
    const char *child_slice;  /* "COUNT,ITERS": kernel latencies of a fresh process (MPS) */
    const char *child_work;   /* "KIND,COUNT,WORK": units of work timed, or run until killed (share) */
} cal_config;

/* The measuring steps, in the order they run, with --help's words for each:
 * name, what it measures, its unit(s), and how long it takes on an H100 in
 * the full and the quick mode.  The times are the "done in X s" of the
 * step's progress lines in calibrate/profiles/runs/2026-11-26-h100-run3
 * (full.log, quick.log), summed over the copies step's five lines, and for
 * `share` in runs/2026-11-26-h100-run6 (share.log, share-quick.log): a user
 * planning a run on a GPU host needs them before the first run, not after. */
typedef struct cal_step_info {
    const char *name;
    const char *what;
    double h100_full_s, h100_quick_s;
} cal_step_info;
extern const cal_step_info cal_steps[];
extern const int cal_step_count;

/* Whether step `name` runs under cfg->steps. */
bool cal_options_step_on(const cal_config *cfg, const char *name);

/* The --help text. */
void cal_options_help(FILE *fp);

/* Fills *cfg from argv; 0, or -1 after a usage message on stderr (exit with
 * CAL_EXIT_USAGE). */
int cal_options_parse(int argc, char **argv, cal_config *cfg);

#endif
