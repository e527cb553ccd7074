/*
 * fleetsim-calibrate built without CUDA (CMakeLists.txt builds it where no
 * CUDA toolkit, or no static GSL, is found): the same command line, but only
 * --host-only (cal_host.h) and --help; anything that would need a GPU says
 * so and exits 3, as a run that finds no CUDA device does.  The CUDA build's
 * main is fleetsim_calibrate.cu, and this file is left out of it.
 */
#include <stdio.h>

#include "cal_host.h"
#include "cal_options.h"
#include "cal_say.h" /* CAL_PROG */

/* Said by --help, first, and by every run that needs a GPU. */
static const char cal__no_cuda[] = CAL_PROG " was built without CUDA: only --host-only is available";

int main(int argc, char **argv)
{
    cal_config cfg;

    if (cal_options_parse(argc, argv, &cfg) != 0)
        return CAL_EXIT_USAGE;
    if (cfg.help) {
        printf("%s.\n\n", cal__no_cuda);
        cal_options_help(stdout);
        return CAL_EXIT_OK;
    }
    if (cfg.host_only)
        return cal_host_main(&cfg);
    /* A full run and the hidden child modes all measure a GPU.  The message
     * already starts with the program's name, so not through cal_say_error,
     * which would say it twice. */
    fprintf(stderr, "%s (see --help)\n", cal__no_cuda);
    return CAL_EXIT_NO_DEVICE;
}
