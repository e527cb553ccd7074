/*
 * test_duration — the duration grammar of duration.h, accepted and refused,
 * with the reason a refusal gives, and format/parse round trips.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "duration.h"

static const struct good {
    const char *text;
    double seconds;
} goods[] = {
    {"7d", 7 * 86400.0},
    {"1w", 604800.0},
    {"90m", 5400.0},
    {"1h30m", 5400.0},
    {"1h 30m", 5400.0},
    {"250ms", 0.25},
    {"1.5s", 1.5},
    {".5s", 0.5},
    {"2.s", 2.0},
    {"0s", 0.0},
    {"100us", 1e-4},
    {"20ns", 2e-8},
    {"2d 09:30", 207000.0},
    {"2d09:30", 207000.0},
    {"09:30", 34200.0},
    {"1w 00:00:30", 604830.0},
    {"1d 23:59:59", 86400.0 + 86399.0},
    {"00:00:01.5", 1.5},
    {"36:00", 129600.0},
    {"  5m  ", 300.0},
    {"30m1h", 5400.0},
    {"1h1h", 7200.0},
};

static void test_good(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof goods / sizeof goods[0]; i++) {
        double s = -1;
        char why[128] = "";
        int rc = fs_duration_parse(goods[i].text, &s, why, sizeof why);
        if (rc != 0)
            fail_msg("\"%s\": refused (%s)", goods[i].text, why);
        if (fabs(s - goods[i].seconds) > 1e-9 * fmax(1.0, goods[i].seconds))
            fail_msg("\"%s\": got %.17g, want %.17g", goods[i].text, s, goods[i].seconds);
    }
}

static const struct bad {
    const char *text;
    const char *why; /* a substring of the reason */
} bads[] = {
    {"", "empty duration"},
    {"   ", "empty duration"},
    {"7x", "unknown unit \"x\""},
    {"5sec", "unknown unit \"sec\""},
    {"1H", "unknown unit \"H\""},
    {"-5s", "negative"},
    {"1h -5m", "negative"},
    {"+5s", "expected a number"},
    {"inf", "expected a number"},
    {"nan", "expected a number"},
    {"infs", "expected a number"},
    {"0x10s", "unknown unit \"x\""},
    {"1e3s", "unknown unit \"e\""},
    {"90", "missing unit after \"90\""},
    {"1.5", "missing unit"},
    {"1 h", "missing unit after \"1\""},
    {"5s!", "unexpected \"!\" after \"5s\""},
    {"5s 7", "missing unit after \"7\""},
    {"1h .", "unexpected \".\" after \"1h\""},
    {".s", "expected a number"},
    {"09:60", "minutes 60 out of range"},
    {"09:30:60", "seconds 60 out of range"},
    {"09:75:00", "minutes 75"},
    {"9:5", "two-digit minutes"},
    {"09:305", "two-digit minutes"},
    {"09:30:5", "two-digit seconds"},
    {"09:30 1d", "the clock time must come last"},
    {"09:30 09:30", "the clock time must come last"},
    {"1h 09:30", "may follow only days or weeks"},
    {"2d 1h 09:30", "may follow only days or weeks"},
    {"99999999999999999999999999999999999999999999999999999999999999999999999999999999999999"
     "99999999999999999999999999999999999999999999999999999999999999999999999999999999999999"
     "99999999999999999999999999999999999999999999999999999999999999999999999999999999999999"
     "99999999999999999999999999999999999999999999999999999999999999999999999999999w",
     "too long"},
};

static void test_bad(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        double s = 12345.0;
        char why[128] = "";
        int rc = fs_duration_parse(bads[i].text, &s, why, sizeof why);
        if (rc != -1)
            fail_msg("\"%s\": accepted as %g s", bads[i].text, s);
        if (strstr(why, bads[i].why) == NULL)
            fail_msg("\"%.20s\": reason \"%s\" lacks \"%s\"", bads[i].text, why, bads[i].why);
        assert_true(s == 12345.0); /* left untouched */
    }
}

/* The reason is optional and is cut to the buffer it is given. */
static void test_why_optional(void **state)
{
    (void)state;
    double s;
    assert_int_equal(fs_duration_parse("7x", &s, NULL, 0), -1);
    char tiny[4] = "abc";
    assert_int_equal(fs_duration_parse("7x", &s, tiny, sizeof tiny), -1);
    assert_int_equal(strlen(tiny), 3);
    assert_string_equal(tiny, "unk");
}

static const struct fmt {
    double seconds;
    const char *text;
} fmts[] = {
    {0.0, "0s"},    {5400.0, "1h30m"}, {0.25, "250ms"},   {172800.0, "2d"}, {207000.0, "2d9h30m"},
    {1.5, "1.5s"},  {90.5, "1m30.5s"}, {1e-4, "100us"},   {2e-8, "20ns"},   {604800.0, "7d"},
    {3600.0, "1h"}, {59.0, "59s"},     {-90.0, "-1m30s"},
};

static void test_format(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
        char buf[64];
        fs_duration_format(fmts[i].seconds, buf, sizeof buf);
        if (strcmp(buf, fmts[i].text) != 0)
            fail_msg("%.17g: got \"%s\", want \"%s\"", fmts[i].seconds, buf, fmts[i].text);
    }
}

/* parse(format(x)) == x, exactly, for values a scenario file would hold. */
static void test_round_trip(void **state)
{
    (void)state;
    static const double values[] = {0.001,   0.0125, 0.08,     0.25,   1.0,     1.5,
                                    59.999,  60.0,   3599.0,   5400.0, 86399.5, 207000.0,
                                    6.048e5, 2.5e6,  3.1536e7, 1e-6,   3.3e-7,  123.456};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        char buf[64], why[128] = "";
        double back = -1;
        fs_duration_format(values[i], buf, sizeof buf);
        if (fs_duration_parse(buf, &back, why, sizeof why) != 0)
            fail_msg("%.17g -> \"%s\" refused: %s", values[i], buf, why);
        if (fabs(back - values[i]) > 1e-12 * values[i])
            fail_msg("%.17g -> \"%s\" -> %.17g", values[i], buf, back);
    }
    /* and text -> seconds -> text is stable */
    for (size_t i = 0; i < sizeof goods / sizeof goods[0]; i++) {
        char once[64], twice[64];
        double a, b;
        assert_int_equal(fs_duration_parse(goods[i].text, &a, NULL, 0), 0);
        fs_duration_format(a, once, sizeof once);
        assert_int_equal(fs_duration_parse(once, &b, NULL, 0), 0);
        fs_duration_format(b, twice, sizeof twice);
        assert_string_equal(once, twice);
    }
}

/* A small buffer truncates, never overflows, and stays terminated. */
static void test_format_truncates(void **state)
{
    (void)state;
    char buf[4] = {'x', 'x', 'x', 'x'};
    fs_duration_format(207000.0, buf, sizeof buf);
    assert_string_equal(buf, "2d9");
    char one[1] = {'x'};
    fs_duration_format(207000.0, one, sizeof one);
    assert_int_equal(one[0], '\0');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good),         cmocka_unit_test(test_bad),
        cmocka_unit_test(test_why_optional), cmocka_unit_test(test_format),
        cmocka_unit_test(test_round_trip),   cmocka_unit_test(test_format_truncates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
