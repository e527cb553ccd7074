#include "testutil.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>

fs_scenario *test_scenario(const char *fmt, ...)
{
    char json[16384];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(json, sizeof json, fmt, ap);
    va_end(ap);
    assert_true(n > 0 && (size_t)n < sizeof json);
    fs_scenario *s = NULL;
    fs_error err = {0};
    if (fs_scenario_parse(json, "test", &s, &err) != FS_OK)
        fail_msg("scenario: %s", err.msg);
    return s;
}

fs_results *test_run(const fs_scenario *s)
{
    fs_results *r = NULL;
    fs_error err = {0};
    if (fs_run_scenario(s, &r, &err) != FS_OK)
        fail_msg("run: %s", err.msg);
    return r;
}
