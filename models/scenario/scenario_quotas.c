/*
 * scenario_quotas — the top-level "quotas" (each team's nominal quota,
 * borrowing and lending limits, cohort and fair-sharing weight: Kueue
 * ClusterQueues in cohorts), "fair_sharing" (how teams' waiting jobs are
 * ordered) and "reserve_after" (starvation protection); read after
 * "training", whose streams' tenants each need an entry.
 */
#include "scenario_parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t fs_scenario_quota_of(const fs_scenario *s, const char *tenant)
{
    for (size_t k = 0; k < s->n_quotas; k++)
        if (strcmp(s->quotas[k].tenant, tenant) == 0)
            return (uint32_t)(k + 1);
    return 0;
}

/* The cohort named `name`: its index (k for s->cohorts[k - 1]), added in
 * order of first mention. */
static int cohort_index(fs_jpath *p, fs_scenario *s, const char *name, uint32_t *out)
{
    for (size_t k = 0; k < s->n_cohorts; k++)
        if (strcmp(s->cohorts[k], name) == 0) {
            *out = (uint32_t)(k + 1);
            return FS_OK;
        }
    char **grown = realloc(s->cohorts, (s->n_cohorts + 1) * sizeof *grown);
    if (!grown)
        return fs_jpath_oom(p);
    s->cohorts = grown;
    int rc = fs__scenario_dup_into(p, &s->cohorts[s->n_cohorts], name);
    if (rc == FS_OK)
        *out = (uint32_t)++s->n_cohorts;
    return rc;
}

/* quotas.TEAM: {"gpus", "borrow", "lend", "cohort", "weight"}; the cursor on it. */
static int parse_quota(fs_jpath *p, const json_t *obj, fs_scenario *s, fs_quota_spec *out)
{
    static const char *const keys[] = {"gpus", "borrow", "lend", "cohort", "weight"};
    if (!json_is_object(obj))
        return fs_jpath_expected(p, obj, "an object {\"gpus\": N, \"borrow\": B, \"lend\": L}");
    int rc = fs_jpath_check_keys(p, obj, keys, COUNT(keys));
    const char *cohort = NULL;
    out->weight = 1;
    if (rc == FS_OK)
        rc = fs__scenario_get_capped(p, obj, "weight", false, FS_JPATH_NONNEG, FS_SCENARIO_MAX_WEIGHT, "", &out->weight);
    if (rc == FS_OK)
        rc = fs_jpath_get_string(p, obj, "cohort", false, true, &cohort);
    if (rc == FS_OK && cohort) {
        size_t mark = fs_jpath_push_key(p, "cohort");
        rc = cohort_index(p, s, cohort, &out->cohort);
        fs_jpath_pop(p, mark);
    }
    uint64_t gpus = 0, borrow = FS_QUOTA_UNLIMITED, lend = 0;
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, obj, "gpus", true, 0, FS_SCENARIO_MAX_GPUS, &gpus);
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, obj, "borrow", false, 0, FS_SCENARIO_MAX_GPUS, &borrow);
    lend = gpus;
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, obj, "lend", false, 0, FS_SCENARIO_MAX_GPUS, &lend);
    if (rc == FS_OK && lend > gpus) {
        size_t mark = fs_jpath_push_key(p, "lend");
        rc = fs_jpath_fail(p, "a team lends at most its own quota: expected at most %llu (\"gpus\"), got %llu",
                           (unsigned long long)gpus, (unsigned long long)lend);
        fs_jpath_pop(p, mark);
    }
    out->gpus = (uint32_t)gpus;
    out->borrow = (uint32_t)borrow;
    out->lend = (uint32_t)lend;
    return rc;
}

uint64_t fs_scenario_quota_ceiling(const fs_scenario *s, uint32_t k)
{
    uint32_t cohort = k > s->n_quotas ? 0 : s->quotas[k - 1].cohort;
    uint64_t lent = 0;
    for (size_t j = 0; j < s->n_quotas; j++)
        if (j + 1 != k && s->quotas[j].cohort == cohort)
            lent += s->quotas[j].lend;
    if (k > s->n_quotas) /* "unlisted": nothing of its own, borrows what the default cohort lends */
        return lent;
    const fs_quota_spec *q = &s->quotas[k - 1];
    return q->gpus + (q->borrow < lent ? q->borrow : lent);
}

/* Every training stream's tenant must have an entry, and its gang must fit
 * under its team's ceiling: else its jobs could never start. */
static int resolve_streams(fs_jpath *p, fs_scenario *s)
{
    int rc = FS_OK;
    for (size_t i = 0; rc == FS_OK && i < s->n_training; i++) {
        fs_training_spec *t = &s->training[i];
        t->quota = fs_scenario_quota_of(s, t->tenant);
        size_t mark = fs_jpath_push_key(p, "training");
        fs_jpath_push_index(p, i);
        if (t->quota == 0) {
            fs_jpath_push_key(p, "tenant");
            rc = fs_jpath_fail(p, "tenant \"%s\" has no entry in \"quotas\" (with quotas, every training stream's "
                                  "tenant needs one; a stream without \"tenant\" is its own, named after it)",
                               t->tenant);
        } else if (t->trace == NULL && t->gang > fs_scenario_quota_ceiling(s, t->quota)) {
            fs_jpath_push_key(p, "gang");
            rc = fs_jpath_fail(p, "a gang of %u units can never start: team \"%s\" may hold at most %llu (its "
                                  "quota and what it may borrow of what the others in its cohort lend)",
                               t->gang, t->tenant, (unsigned long long)fs_scenario_quota_ceiling(s, t->quota));
        }
        fs_jpath_pop(p, mark);
    }
    return rc;
}

int fs__scenario_parse_fair_sharing(fs_jpath *p, const json_t *obj, bool has_quotas, fs_scenario *s)
{
    static const char *const keys[] = {"by", "half_life"};
    static const char *const kinds[] = {"none", "borrowed", "usage"};
    json_t *fair = json_object_get(obj, "fair_sharing");
    if (fair == NULL)
        return FS_OK;
    size_t mark = fs_jpath_push_key(p, "fair_sharing");
    int rc = FS_OK, by = 0;
    if (!json_is_object(fair))
        rc = fs_jpath_expected(p, fair, "an object {\"by\": \"borrowed\"} or {\"by\": \"usage\", \"half_life\": D}");
    else if (!has_quotas)
        rc = fs_jpath_fail(p, "fair sharing orders the teams of \"quotas\": give each team an entry there "
                              "(\"gpus\": 0 for a team with no quota of its own)");
    if (rc == FS_OK)
        rc = fs_jpath_check_keys(p, fair, keys, COUNT(keys));
    if (rc == FS_OK && json_object_get(fair, "by") == NULL)
        rc = fs_jpath_fail(p, "missing required key \"by\" (\"borrowed\", \"usage\" or \"none\")");
    if (rc == FS_OK)
        rc = fs__scenario_get_choice(p, fair, "by", "a fair-sharing measure", kinds, COUNT(kinds), &by);
    if (rc == FS_OK) {
        s->fair_share = by == 1 ? FS_FAIR_BORROWED : by == 2 ? FS_FAIR_USAGE : FS_FAIR_NONE;
        s->fair_half_life_s = 0;
        rc = fs__scenario_get_capped_duration(p, fair, "half_life", by == 2, FS_JPATH_POSITIVE,
                                              FS_SCENARIO_MAX_HORIZON_S, &s->fair_half_life_s);
    }
    if (rc == FS_OK && by != 2 && json_object_get(fair, "half_life")) {
        fs_jpath_push_key(p, "half_life");
        rc = fs_jpath_fail(p, "a half-life applies to \"by\": \"usage\" only");
    }
    fs_jpath_pop(p, mark);
    return rc;
}

int fs__scenario_parse_quotas(fs_jpath *p, const json_t *root, fs_scenario *s)
{
    s->reserve_after_s = 0;
    int rc = fs__scenario_get_capped_duration(p, root, "reserve_after", false, FS_JPATH_POSITIVE,
                                              FS_SCENARIO_MAX_HORIZON_S, &s->reserve_after_s);
    if (rc == FS_OK)
        rc = fs__scenario_parse_fair_sharing(p, root, json_object_get(root, "quotas") != NULL, s);
    json_t *quotas = json_object_get(root, "quotas");
    if (rc != FS_OK || quotas == NULL)
        return rc;
    size_t mark = fs_jpath_push_key(p, "quotas");
    size_t n = json_is_object(quotas) ? json_object_size(quotas) : 0;
    if (n == 0)
        rc = fs_jpath_expected(p, quotas, "an object of teams, each {\"gpus\": N, \"borrow\": B, \"lend\": L}");
    else if (n > FS_SCENARIO_MAX_QUOTAS)
        rc = fs_jpath_fail(p, "expected at most %d teams (the limit), got %zu", FS_SCENARIO_MAX_QUOTAS, n);
    if (rc == FS_OK) {
        s->quotas = calloc(n, sizeof *s->quotas);
        rc = s->quotas == NULL ? fs_jpath_oom(p) : FS_OK;
    }
    const char *team;
    json_t *obj;
    json_object_foreach(rc == FS_OK ? quotas : NULL, team, obj) {
        size_t m = fs_jpath_push_key(p, team);
        fs_quota_spec *q = &s->quotas[s->n_quotas];
        rc = team[0] == '\0' ? fs_jpath_fail(p, "expected a team name, got \"\"") : parse_quota(p, obj, s, q);
        if (rc == FS_OK)
            rc = fs__scenario_dup_into(p, &q->tenant, team);
        if (rc == FS_OK)
            s->n_quotas++;
        fs_jpath_pop(p, m);
        if (rc != FS_OK)
            break;
    }
    fs_jpath_pop(p, mark);
    return rc == FS_OK ? resolve_streams(p, s) : rc;
}
