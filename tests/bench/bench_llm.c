/*
 * bench_llm — how fast the simulator runs continuously batched LLM serving
 * (issue 16 point 4: one event per engine step, never per token): one day of
 * a fleet of 100 Llama-3-8B replicas on whole H100-SXM-80GB GPUs, roofline
 * step time, token counts from the Azure LLM conversation trace (the
 * lognormal fit scenarios/llm-serving.json uses; scenarios/README.md gives
 * the sources).
 *
 * The arrival rate is not a guess: the scenario is parsed once to read the
 * loader's own capacity estimate (the saturated seconds per request it puts
 * in service_time, see fs_scenario_llm_request_s), and the fleet is then
 * offered LOAD x 100 / that, so a change to the step model keeps the fleet at
 * the same share of its capacity.
 *
 * Prints simulated tokens per wall second, engine steps, events and requests
 * per wall second, the wall time and the peak RSS.  It is a measurement, not
 * a test: it fails only if the run fails, never because a machine is slow.
 *
 *   bench_llm              one day (24 simulated hours)
 *   bench_llm HOURS        a shorter or longer horizon
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "run.h"
#include "scenario.h"

#define REPLICAS 100
#define LOAD 0.65 /* share of the capacity estimate offered: a loaded, stable fleet */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The scenario at `rps` requests per second over `hours`; NULL on error. */
static fs_scenario *scenario(double hours, double rps)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{\"schema\": \"fleetsim/1\", \"name\": \"bench-llm\", \"horizon\": %.6f, \"seed\": 16,"
             " \"pools\": [{\"name\": \"p\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": %d}],"
             " \"services\": [{\"name\": \"chat\", \"arrivals\": {\"poisson_rps\": %.6f}, \"replicas\": %d,"
             "   \"batching\": {\"kind\": \"continuous\", \"model\": \"Llama-3-8B\","
             "     \"step_time\": {\"roofline\": {\"flops_eff\": 0.5, \"bw_eff\": 0.6, \"overhead\": \"2ms\"}},"
             "     \"prompt_tokens\": {\"lognormal\": {\"median\": 1020, \"sigma\": 0.77}},"
             "     \"output_tokens\": {\"lognormal\": {\"median\": 129, \"sigma\": 0.93}},"
             "     \"max_model_len\": 8192}}]}",
             hours * 3600.0, REPLICAS, rps, REPLICAS);
    fs_scenario *s = NULL;
    fs_error err = {0};
    if (fs_scenario_parse(json, "bench", &s, &err) != FS_OK) {
        fprintf(stderr, "bench_llm: %s\n", err.msg);
        return NULL;
    }
    return s;
}

int main(int argc, char **argv)
{
    double hours = argc == 2 ? strtod(argv[1], NULL) : 24.0;
    if (!(hours > 0)) {
        fprintf(stderr, "usage: bench_llm [HOURS > 0]\n");
        return 2;
    }
    fs_scenario *probe = scenario(hours, 1.0);
    if (!probe)
        return 1;
    double per_request_s = fs_dist_mean(&probe->services[0].service_time);
    fs_scenario_destroy(probe);
    double capacity_rps = REPLICAS / per_request_s;
    double rps = LOAD * capacity_rps;

    fs_scenario *s = scenario(hours, rps);
    if (!s)
        return 1;
    fs_results *r;
    fs_error err = {0};
    double t0 = now_s();
    if (fs_run_scenario(s, &r, &err) != FS_OK) {
        fprintf(stderr, "bench_llm: %s\n", err.msg);
        fs_scenario_destroy(s);
        return 1;
    }
    double wall = now_s() - t0;
    const fs_service_rep *rep = &r->policies[0].reps[0].services[0];
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double tokens = (double)rep->tokens_generated, steps = (double)rep->steps;
    printf("LLM fleet: %d x Llama-3-8B on H100-SXM-80GB, %.4g h simulated, %.1f req/s offered "
           "(%.0f%% of the capacity estimate %.1f req/s)\n",
           REPLICAS, hours, rps, 100.0 * LOAD, capacity_rps);
    printf("LLM fleet: %.0f requests, %.4g tokens, %.4g steps, %.4g events in %.2f s wall\n",
           (double)rep->requests, tokens, steps, (double)r->events, wall);
    printf("LLM fleet: %.3g simulated tokens/s, %.3g steps/s, %.3g events/s, %.3g requests/s, "
           "peak RSS %.1f MB\n",
           tokens / wall, steps / wall, (double)r->events / wall, (double)rep->requests / wall,
           (double)ru.ru_maxrss / 1024.0);
    fs_results_destroy(r);
    fs_scenario_destroy(s);
    return 0;
}
