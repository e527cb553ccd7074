/* cal_say — progress lines and error messages on stderr (cal_say.h). */
#include "cal_say.h"

#include <stdbool.h>
#include <stdio.h>

#include "cal_clock.h"

static int cal__n_steps = 0;
static int cal__step = 0;
static double cal__step_t0 = 0.0;
static bool cal__line_open = false;

void cal_say_steps(int n_steps) { cal__n_steps = n_steps; }

void cal_say_step(const char *fmt, ...)
{
    va_list ap;
    cal__step++;
    fprintf(stderr, "[%d/%d] ", cal__step, cal__n_steps);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" ... ", stderr);
    cal__line_open = true;
    cal__step_t0 = cal_clock_now();
}

void cal_say_done(void)
{
    fprintf(stderr, "done in %.1f s\n", cal_clock_now() - cal__step_t0);
    cal__line_open = false;
}

void cal_say_verror(const char *fmt, va_list ap)
{
    if (cal__line_open) {
        fputs("failed\n", stderr);
        cal__line_open = false;
    }
    fprintf(stderr, "%s: ", CAL_PROG);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cal_say_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cal_say_verror(fmt, ap);
    va_end(ap);
}
