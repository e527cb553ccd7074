/*
 * fleetsim calibrate — a calibration profile refitted from its recorded
 * samples.
 *
 *   fleetsim calibrate PROFILE.json [--out FILE]
 *
 * Reads the raw samples a fleetsim-calibrate run recorded (profile_read.h),
 * fits them again with the tool's own code (profile.h, profile_fit.h: the
 * figures the simulator uses, every fit, the validation table, the LLM step
 * model, graph capture and the mixed-workload check) and writes the whole
 * profile to --out (a temporary file renamed into place) or stdout.  A
 * profile measured before a fit existed gains it this way, and anyone can
 * check that a profile's fits are what its samples give.  The validation
 * table and the mixed check are printed on stderr.
 *
 * Exit status: 0 written, 1 runtime failure, 2 usage or input error (the
 * message names the file and the line and column, or the JSON path).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "error.h"
#include "help.h"
#include "options.h"
#include "profile.h"
#include "profile_fit.h"
#include "profile_read.h"
#include "terminal.h"

enum { CAL_EXIT_OK = 0, CAL_EXIT_RUNTIME = 1, CAL_EXIT_USAGE = 2 };

enum { CAL_OUT, CAL_HELP };
static const fs_cli_option calibrate_options[] = {
    [CAL_OUT] = {"out", 'o', "FILE", "write the refitted profile here (default: stdout)"},
    [CAL_HELP] = {"help", 'h', NULL, "show this help"},
};
const fs_cli_table fs_cli_calibrate_options = {calibrate_options, 2, NULL};

/* The validation table and the mixed check, for a person. */
static void calibrate_report(FILE *fp, const fs_calib_samples *s)
{
    fs_calib_check *checks = malloc(FS_CALIB_MAX_CHECKS * sizeof *checks);
    fs_calib_trial trials[FS_CALIB_MAX_TRIALS];
    size_t n = checks ? fs_calib_validate(s, checks, FS_CALIB_MAX_CHECKS) : 0;
    fprintf(fp, "validation (fitted without the point, then predicting it):\n");
    fprintf(fp, "  %-28s %-22s %12s %12s %8s\n", "what", "at", "measured", "predicted", "error");
    for (size_t i = 0; i < n; i++)
        fprintf(fp, "  %-28s %-22s %10.4g s %10.4g s %7.1f%%\n", checks[i].what, checks[i].input, checks[i].measured_s,
                checks[i].predicted_s, checks[i].error_pct);
    if (n == 0)
        fprintf(fp, "  (nothing to validate: no series of 3 sizes, no mixed LLM steps)\n");
    free(checks);
    size_t nt = fs_calib_mixed_trials(s, trials, FS_CALIB_MAX_TRIALS);
    if (nt > 0)
        fprintf(fp, "mixed-workload check (request latency, seconds):\n");
    for (size_t i = 0; i < nt; i++)
        fprintf(fp, "  trial %d: %zu requests, replica ready at %.3f s, p50 %.4f, p99 %.4f, max %.4f\n",
                trials[i].trial, trials[i].requests, trials[i].ready_s, trials[i].p50_s, trials[i].p99_s,
                trials[i].max_s);
}

static int calibrate_write(FILE *fp, const void *what, fs_error *err)
{
    return fs_calib_profile_write(what, fp) == 0 ? FS_OK
                                                : fs_error_set(err, FS_ERR_RUNTIME, "the profile could not be written");
}

int fs_cli_calibrate(int argc, char **argv)
{
    fs_cli_parsed opt;
    int status = fs_cli_help_parse("calibrate", argc, argv, &opt);
    if (status >= 0)
        return status;
    if (opt.n_positional != 1) {
        fs_terminal_say(stderr, "fleetsim calibrate: expected one PROFILE.json (see 'fleetsim calibrate --help')");
        return CAL_EXIT_USAGE;
    }
    const char *out = opt.values[CAL_OUT];
    if (out && (out[0] == '\0' || out[strlen(out) - 1] == '/')) {
        fs_terminal_say(stderr, "fleetsim calibrate: --out: expected a file name, got \"%s\"", out);
        return CAL_EXIT_USAGE;
    }
    fs_calib_samples samples;
    char why[1024];
    if (fs_calib_profile_read(opt.positional[0], &samples, why, sizeof why) != 0) {
        fs_terminal_say(stderr, "fleetsim: %s", why);
        return CAL_EXIT_USAGE;
    }
    status = CAL_EXIT_OK;
    if (!out) {
        if (fs_calib_profile_write(&samples, stdout) != 0)
            status = CAL_EXIT_RUNTIME;
        calibrate_report(stderr, &samples);
    } else {
        fs_error err = {0};
        if (fs_cli_write_file(out, calibrate_write, &samples, &err) != FS_OK) {
            fs_terminal_say(stderr, "fleetsim: %s", err.msg);
            status = CAL_EXIT_RUNTIME;
        } else {
            calibrate_report(stdout, &samples);
            printf("profile written to %s\n", out);
        }
    }
    fs_calib_samples_fini(&samples);
    return status;
}
