#include "verdict_page.h"

#include "tradeoffs.h"

static void fs__page_raw(void *d, const char *s) { fs_page_raw(d, "%s", s); }
static void fs__page_text(void *d, const char *s) { fs_page_text(d, s); }

void fs_verdict_page_write(fs_page_doc *d, const json_t *compare, size_t n_policies)
{
    const json_t *v = json_object_get(compare, "verdict");
    if (!json_is_object(v)) {
        if (n_policies < 2)
            return;
        fs_page_para_open(d);
        fs_page_raw(d, "What each policy costs the other workloads needs the paired differences of "
                       "<code>fleetsim compare SCENARIO --out DIR</code>: report that directory.");
        fs_page_para_close(d);
        return;
    }
    fs_tradeoffs_sink sink = {fs__page_raw, fs__page_text, d};
    fs_page_para_open(d);
    fs_page_raw(d, d->html ? "<b>Overall</b>: " : "**Overall**: ");
    fs_tradeoffs_write_reason(v, &sink);
    fs_page_raw(d, ".");
    fs_page_para_close(d);
    size_t n = json_array_size(json_object_get(v, "policies"));
    if (n < 2)
        return;
    fs_page_heading(d, 3, "Trade-offs", NULL);
    fs_page_raw(d, d->html ? "<ul>\n" : "");
    for (size_t p = 1; p < n; p++) {
        fs_page_raw(d, d->html ? "<li>" : "- ");
        fs_tradeoffs_write_policy(v, p, &sink);
        fs_page_raw(d, d->html ? ".</li>\n" : ".\n");
    }
    fs_page_raw(d, d->html ? "</ul>\n" : "\n");
    fs_page_para_open(d);
    fs_page_raw(d, "Material: %s.", fs_tradeoffs_rule);
    fs_page_para_close(d);
}
