/*
 * scenario_release — a training stream's "release" window (a "polite"
 * tenant): {"daily_at": "09:00", "until": "18:00"}, clock times of the
 * stream's region, and the clock-time reader it shares with "submit"'s
 * daily_at.  What a window does at run time is training_release.h's.
 */
#include "scenario_parse.h"

#include <math.h>

#include "duration.h"

#define FS__DAY_S 86400.0

int fs__scenario_clock(fs_jpath *p, const json_t *v, double *out)
{
    char why[128], got[128];
    *out = 0;
    if (!json_is_string(v))
        return fs_jpath_expected(p, v, "a clock time like \"02:00\"");
    if (fs_duration_parse(json_string_value(v), out, why, sizeof why) != 0) {
        fs_jpath_describe(v, got, sizeof got);
        return fs_jpath_fail(p, "expected a clock time like \"02:00\", got %s (%s)", got, why);
    }
    if (*out >= FS__DAY_S)
        return fs_jpath_expected(p, v, "a clock time before 24:00");
    return FS_OK;
}

/* obj[key], a required clock time; the cursor on obj. */
static int get_clock(fs_jpath *p, const json_t *obj, const char *key, double *out)
{
    const json_t *v = json_object_get(obj, key);
    if (v == NULL)
        return fs_jpath_fail(p, "missing required key \"%s\" (a clock time like \"09:00\")", key);
    size_t mark = fs_jpath_push_key(p, key);
    int rc = fs__scenario_clock(p, v, out);
    fs_jpath_pop(p, mark);
    return rc;
}

int fs__scenario_parse_release(fs_jpath *p, const json_t *job, const fs_scenario *s, fs_training_spec *out)
{
    static const char *const keys[] = {"daily_at", "until"};
    out->has_release = false;
    out->release_at_s = out->release_s = 0;
    json_t *obj = NULL;
    int rc = fs_jpath_get_object(p, job, "release", false, &obj);
    if (rc != FS_OK || obj == NULL)
        return rc;
    size_t mark = fs_jpath_push_key(p, "release");
    double at = 0, until = 0;
    rc = fs_jpath_check_keys(p, obj, keys, COUNT(keys));
    if (rc == FS_OK)
        rc = get_clock(p, obj, "daily_at", &at);
    if (rc == FS_OK)
        rc = get_clock(p, obj, "until", &until);
    if (rc == FS_OK && until == at) {
        size_t m = fs_jpath_push_key(p, "until");
        rc = fs_jpath_fail(p, "the window ends when it starts (%s): give a later or earlier clock time",
                           json_string_value(json_object_get(obj, "until")));
        fs_jpath_pop(p, m);
    }
    /* The work a released job keeps is its last checkpoint: without one it
     * would lose everything since its start at each window, which no owner
     * would choose to do. */
    if (rc == FS_OK && out->checkpoint_every_s <= 0)
        rc = fs_jpath_fail(p, "needs \"checkpoint\" on the stream: a released job keeps what its checkpoint "
                              "holds (without one it would lose all its compute at every window)");
    fs_jpath_pop(p, mark);
    if (rc != FS_OK)
        return rc;
    /* Local clock times of the stream's region, to UTC as submit's are;
     * a window past midnight (22:00 to 06:00) ends the next day. */
    double offset = out->region != SIZE_MAX ? s->regions[out->region].utc_offset_s : 0;
    double start = fmod(at - offset, FS__DAY_S);
    out->release_at_s = start < 0 ? start + FS__DAY_S : start;
    out->release_s = fmod(until - at + FS__DAY_S, FS__DAY_S);
    out->has_release = true;
    return FS_OK;
}
