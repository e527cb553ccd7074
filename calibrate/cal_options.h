/*
 * cal_options — fleetsim-calibrate's command line: the option table that
 * gives both the parser and --help, the settings it fills, and the exit
 * statuses that the help and calibrate/README.md promise.
 *
 * Two options are hidden (no help line): --child-context and --child-hog,
 * the modes in which the tool re-executes itself (cal_child.h).
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
    CAL_EXIT_NO_DEVICE = 3 /* cudaGetDeviceCount failed or found none, or --device out of range */
};

typedef struct cal_config {
    int device;
    const char *out;
    bool quick;
    double max_gib;
    bool help;
    bool child_context;
    double child_hog_s; /* > 0: hog mode */
} cal_config;

/* The --help text. */
void cal_options_help(FILE *fp);

/* Fills *cfg from argv; 0, or -1 after a usage message on stderr (exit with
 * CAL_EXIT_USAGE). */
int cal_options_parse(int argc, char **argv, cal_config *cfg);

#endif
