/*
 * edits — the command line's scenario edits; see edits.h.  The path syntax
 * and its messages are the sweep's (fs_sweep_set); this file maps options
 * to paths and values.
 */
#include "edits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

int fs_edits_split(const char *text, char *path, size_t size, const char **value)
{
    const char *eq = strchr(text, '=');
    if (!eq || eq == text || (size_t)(eq - text) >= size || !eq[1])
        return -1;
    memcpy(path, text, (size_t)(eq - text));
    path[eq - text] = '\0';
    *value = eq + 1;
    return 0;
}

json_t *fs_edits_value(const char *text)
{
    json_t *v = json_loads(text, JSON_DECODE_ANY, NULL);
    return v ? v : json_string(text);
}

bool fs_edits_any(const fs_cli_parsed *opt, const fs_edits_which *which)
{
    const int options[] = {which->set, which->horizon, which->warmup, which->window, which->window_anchor};
    for (size_t k = 0; k < sizeof options / sizeof *options; k++)
        if (options[k] >= 0 && opt->values[options[k]])
            return true;
    return false;
}

/* The document path an option edits, or NULL for one that is not an edit. */
static const char *fs__path_of(const fs_edits_which *which, int option)
{
    if (option == which->horizon)
        return "horizon";
    if (option == which->warmup)
        return "warmup";
    if (option == which->window)
        return "window";
    if (option == which->window_anchor)
        return "window_anchor";
    return NULL;
}

int fs_edits_apply(fs_sweep *sw, const fs_cli_parsed *opt, const fs_edits_which *which, bool ci_yields,
                   fs_error *err)
{
    for (int k = 0; k < opt->n_given; k++) {
        int option = opt->given[k].option;
        const char *text = opt->given[k].value, *path = fs__path_of(which, option), *value = text;
        char set_path[512];
        if (option < 0 || (option != which->set && !path))
            continue;
        if (option == which->set) {
            if (fs_edits_split(text, set_path, sizeof set_path, &value) != 0)
                return fs_error_set(err, FS_ERR_INPUT, "--set: expected PATH=VALUE, got \"%s\"", text);
            path = set_path;
        }
        const char *opt_name = option == which->set ? "set" : option == which->window_anchor ? "window-anchor" : path;
        json_t *v = fs_edits_value(value);
        fs_error why = {0};
        int rc = v ? fs_sweep_set(sw, path, v, &why) : fs_error_set(&why, FS_ERR_RUNTIME, "out of memory");
        json_decref(v);
        if (rc != FS_OK)
            return fs_error_set(err, rc, "--%s %s: %s", opt_name, text, why.msg);
        json_t *ci = json_object_get(sw->doc, "ci");
        if (ci_yields && option != which->set && json_is_object(ci))
            json_object_del(ci, path);
    }
    return FS_OK;
}

int fs_edits_load(const char *path, const fs_cli_parsed *opt, const fs_edits_which *which, bool ci_yields,
                  fs_scenario **out, fs_error *err)
{
    if (!fs_edits_any(opt, which))
        return fs_scenario_load(path, out, err);
    fs_sweep *sw;
    int rc = fs_sweep_create(path, &sw, err);
    if (rc != FS_OK)
        return rc;
    rc = fs_edits_apply(sw, opt, which, ci_yields, err);
    if (rc == FS_OK && (rc = fs_scenario_parse_json(sw->doc, path, out, err)) == FS_ERR_INPUT) {
        /* The value at fault may be the command line's, not the file's. */
        fs_error parsed = *err;
        fs_error_set(err, rc, "%s (with the command line's edits applied)", parsed.msg);
    }
    fs_sweep_destroy(sw);
    return rc;
}
