#!/usr/bin/env python3
"""Fit fleetsim's linear LLM step-time model on some stages of a public vLLM
measurement and write one scenario per stage (fit and held-out), so the
held-out stages can be predicted with `fleetsim run`.  Two splits, each
fitted on its own:

  by-load      fit on the first, lighter stage of every run (general 8 req/s,
               codegen 5, roleplay 6); hold out the heavier second stages
               (general 20, codegen 10): can a fit at light load predict
               heavier load?
  by-workload  fit on general (8 and 20 req/s) and roleplay (6), so the fit
               spans the batch sizes seen; hold out both codegen stages
               (5 and 10 req/s): can it predict a workload it has not seen?

Input: llm_measured.json (derived percentiles only; its "source" names the
repository, commit and files).  Output: llm_fitted.json (each split's
coefficients and stages) and scenarios/validation/<split>/<id>.json; the
fits on stdout.  Standard library only; deterministic.

The model (see models/hardware/llm_perf.h):
    t_step = c0 + c_prefill * prefill_tokens + c_decode * decodes
                + c_kv * kv_tokens_read

What a measured stage tells us, and the equations we fit (one pair per stage):

 1. Decode step time.  With ignore_eos every request generates its full
    max_tokens O, so between the first and the last token a request sees
    O - 1 engine steps: T = (e2e_p50 - ttft_p50) / (O - 1).  (The dataset's
    own "time_per_output_token" averages over SSE events, about two per
    token according to its ground_truth_schema.md, so it reads about T/2;
    we do not use it.)  By Little's law the mean number of sequences in the
    server is B = rate * e2e_mean; at these loads nothing queues, so all B
    are running, each step decodes B of them, and each reads on average
    P + O/2 tokens of KV.  Prompts arrive at rate * P tokens per second, so
    an average step also prefills rate * P * T tokens:
        T = c0 + c_prefill * rate*P*T + c_decode * B + c_kv * B*(P + O/2)
 2. Time to first token.  A request arriving at a random time waits on
    average half a step for the step in progress, then its prompt runs in
    the next step alongside the B decodes:
        ttft_p50 - T/2 = c0 + c_prefill * P + c_decode * B + c_kv * B*(P + O/2)
                     + api
    where api is a fixed per-request overhead the client sees and the
    engine does not (HTTP, tokenisation, the first SSE event).  Without it
    the fit must explain ~25 ms TTFTs with prefill cost alone, although
    TTFT does not grow with the prompt here (575- and 786-token prompts both
    give 26.8 ms); it then overstates prefill cost and puts the 20 req/s
    stage in overload.  fleetsim has no such term, so api is added to the
    simulated TTFT and end-to-end figures when they are compared with the
    measured ones (tests/test_llm_validation.c).

Each equation is divided by its left-hand side (relative least squares, so
TTFT and decode weigh alike) and solved by non-negative least squares:
every subset of the four coefficients is tried by plain least squares, and
the best fit with all coefficients >= 0 wins.
"""
import itertools
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = ("c0", "c_prefill", "c_decode", "c_kv", "api")
SPLITS = (
    ("by-load", ("general-s0", "codegen-s0", "roleplay-s0")),
    ("by-workload", ("general-s0", "general-s1", "roleplay-s0")),
)
STEP = NAMES[:4]


def stage_rows(s):
    """The two (features, target) rows one measured stage gives."""
    rate, p, o = s["rate"], s["prompt"]["mean"], s["output_max_tokens"]
    t = (s["e2e"]["p50"] - s["ttft"]["p50"]) / (o - 1)
    b = rate * s["e2e"]["mean"]
    kv = b * (p + o / 2)
    decode = ([1.0, rate * p * t, b, kv, 0.0], t)
    first = ([1.0, p, b, kv, 1.0], s["ttft"]["p50"] - t / 2)
    return [decode, first], t, b


def solve(a, y):
    """Least squares by the normal equations (a few unknowns); None if singular."""
    n = len(a[0])
    m = [[sum(r[i] * r[j] for r in a) for j in range(n)] + [sum(r[i] * v for r, v in zip(a, y))] for i in range(n)]
    for c in range(n):
        piv = max(range(c, n), key=lambda k: abs(m[k][c]))
        if abs(m[piv][c]) < 1e-30:
            return None
        m[c], m[piv] = m[piv], m[c]
        for k in range(n):
            if k != c:
                f = m[k][c] / m[c][c]
                m[k] = [x - f * z for x, z in zip(m[k], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def nnls(rows):
    """Best relative-error fit with every coefficient >= 0 (subset search)."""
    best = None
    for k in range(1, len(NAMES) + 1):
        for keep in itertools.combinations(range(len(NAMES)), k):
            a = [[x[i] / y for i in keep] for x, y in rows]
            ones = [1.0] * len(rows)
            sol = solve(a, ones)
            if sol is None or min(sol) < 0:
                continue
            c = [0.0] * len(NAMES)
            for i, v in zip(keep, sol):
                c[i] = v
            sse = sum((sum(ci * xi for ci, xi in zip(c, x)) / y - 1) ** 2 for x, y in rows)
            if best is None or sse < best[0] - 1e-15:
                best = (sse, c)
    return best


def ms(seconds):
    return "%.6gms" % (seconds * 1e3)


def scenario(s, c, server, split, role):
    """A fleetsim scenario for one measured stage: one H100, the run's limits."""
    return {
        "schema": "fleetsim/1",
        "name": "validation %s, %s: Llama-2-7b on one H100, %g req/s (%s)" % (split, s["id"], s["rate"], role),
        "horizon": "70m", "warmup": "10m", "window": "10m", "seed": 16, "replications": 3,
        "pools": [{"name": "h100", "gpu": "H100-SXM-80GB", "gpus": 1}],
        "services": [{
            "name": "llm", "pool": "h100",
            "arrivals": {"poisson_rps": s["rate"]},
            "replicas": {"count": 1},
            "batching": {
                "kind": "continuous",
                "model": {"name": "Llama-2-7b", "params": 6.74e9, "bytes_per_param": 2,
                          "layers": 32, "kv_heads": 32, "head_dim": 128},
                "step_time": {"linear": {n: ms(v) for n, v in zip(STEP, c)}},
                "max_seqs": server["max_num_seqs"],
                "token_budget": server["max_num_batched_tokens"],
                "block_tokens": server["block_size"],
                "memory_utilization": 0.9,
                "prompt_tokens": {"uniform": {"min": s["prompt"]["min"], "max": s["prompt"]["max"]}},
                "output_tokens": {"deterministic": {"value": s["output_max_tokens"]}},
                "max_model_len": 4096,
            },
        }],
    }


def main():
    with open(os.path.join(HERE, "llm_measured.json")) as f:
        measured = json.load(f)
    ids = [s["id"] for s in measured["stages"]]
    fitted = {"what": "written by fit_llm_steps.py; coefficients in seconds", "splits": {}}
    for split, fit_ids in SPLITS:
        assert all(i in ids for i in fit_ids), split
        rows = []
        print("split %s" % split)
        print("stage         role      rate  B=rate*e2e  T_decode_ms  ttft_p50_ms")
        for s in measured["stages"]:
            r, t, b = stage_rows(s)
            role = "fit" if s["id"] in fit_ids else "held-out"
            print("%-13s %-9s %4g  %10.2f  %11.3f  %11.2f" % (s["id"], role, s["rate"], b, t * 1e3,
                                                              s["ttft"]["p50"] * 1e3))
            if role == "fit":
                rows += r
        sse, c = nnls(rows)
        rms = (sse / len(rows)) ** 0.5
        print("fit (relative NNLS over %d equations, rms rel. residual %.2f%%):" % (len(rows), 100 * rms))
        for n, v in zip(NAMES, c):
            print("  %-9s = %s" % (n, ms(v)))
        entry = {"fit": list(fit_ids), "rms_relative_residual": rms}
        entry.update({n: v for n, v in zip(NAMES, c)})
        fitted["splits"][split] = entry
        os.makedirs(os.path.join(HERE, split), exist_ok=True)
        for s in measured["stages"]:
            role = "fit" if s["id"] in fit_ids else "held-out"
            write(os.path.join(HERE, split, s["id"] + ".json"), scenario(s, c, measured["server"], split, role))
    write(os.path.join(HERE, "llm_fitted.json"), fitted)
    return 0


def write(path, obj):
    """Temp file then rename, so a failed run leaves the old file whole."""
    with open(path + ".tmp", "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    sys.exit(main())
