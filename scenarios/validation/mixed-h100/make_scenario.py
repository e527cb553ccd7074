#!/usr/bin/env python3
"""Write mixed-h100.json, fleetsim's form of the mixed-workload check that
fleetsim-calibrate ran on an H100 (calibrate/cal_mixed.h), from the measured
profile calibrate/profiles/h100-sxm-80gb.json.

The measured experiment, one trial: a training process holds its state on
the only GPU; at t0 requests start arriving (Poisson) for a serving replica
that does not exist yet, and the training process is told to go.  It saves
its state device-to-host and frees it; a fresh serving process creates its
CUDA context, reads its weights from a cold file to the GPU, runs a first
kernel and serves the queue first come first served, one request at a time.

Every figure the scenario holds is read or computed here from the profile;
none is typed in:

  rate, duration, state and weight sizes   samples.tables.mixed_phases
                                           (the same in every trial)
  service time (deterministic)             median of end - start of the
                                           requests of samples.tables.
                                           mixed_requests that waited (they
                                           arrived before the one ahead of
                                           them ended): the backlog the p99
                                           comes from is served back to back
  context_s, module_s, storage_gbps,       the profile's own top-level
  d2h_gbps                                 figures, named by path (printed
                                           here beside a recomputation:
                                           storage_gbps is the bandwidth of
                                           the least-squares line
                                           time = a + bytes / B through
                                           samples.series.load_cold_pinned,
                                           cold file -> pinned buffer -> GPU,
                                           as the serving process loads; a
                                           profile without storage_gbps gets
                                           it inline)

framework_s and inference_warmup_s are 0: the measured serving process has
no framework (no PyTorch) and captures no graph.

How fleetsim expresses it (scenarios/README.md, "validation/mixed-h100/:
the mixed-workload check on one H100", says why each choice):

  - one H100 pool of 1 GPU, policy partitioned with borrowing: the
    preemptible training job (gang 1, on_eviction "save") borrows the idle
    serving GPU at t = 0 and is evicted when the service asks for a replica;
  - the service starts with no replica ("count": 0, scale from zero); its
    autoscaler asks for one at its first tick that finds a request;
  - t0 = 01:00 (hour 0's multiplier is 0, so nothing arrives before t0);
    arrivals stop at t0 + duration (a burst of multiplier 1e-9 to the
    horizon), and statistics start at t0, so the run's latency histogram
    holds exactly the requests that arrived in [t0, t0 + duration);
  - the autoscaler ticks every `interval` from t = interval; interval is
    (t0 + d) / 3600 (about 1 s, the floor), so a tick falls at t0 + d.  The
    replica is asked for at the first tick after the first arrival: at
    t0 + d unless nothing arrived by then (probability exp(-rate d)), then a
    second later.  d = ln(rate x 1 s) / rate minimises the mean of that
    delay, d + exp(-rate d) x 1 s (the construction's cost, reported).

Usage: make_scenario.py [PROFILE [OUT]]; standard library only;
deterministic.  Prints the figures it computed.
"""
import json
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
PROFILE = os.path.join(ROOT, "calibrate", "profiles", "h100-sxm-80gb.json")
OUT = os.path.join(HERE, "mixed-h100.json")

T0_S = 3600.0          # arrivals start at 01:00: hour 0's multiplier is 0
TAIL_S = 40.0          # simulated after the arrivals stop, for the queue to drain
MIN_INTERVAL_S = 1.0   # the autoscaler's floor (scenarios/README.md, Limits)
QUIET = 1e-9           # a burst multiplier that stops arrivals (bursts must be > 0)


def table(profile, name):
    t = profile["samples"]["tables"][name]
    cols = t["columns"]
    return [dict(zip(cols, row)) for row in t["rows"]]


def ols_bandwidth_gbps(series):
    """Bandwidth (1e9 bytes/s) of the least-squares line time = a + bytes * b."""
    x, y = series["bytes"], series["seconds"]
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxx = sum((v - mx) ** 2 for v in x)
    sxy = sum((u - mx) * (v - my) for u, v in zip(x, y))
    return 1e-9 / (sxy / sxx), my - (sxy / sxx) * mx


def the_same(rows, key):
    values = {r[key] for r in rows}
    if len(values) != 1:
        sys.exit("make_scenario: trials differ in %s: %s" % (key, sorted(values)))
    return values.pop()


def duration(seconds):
    """A duration string of whole hours, minutes and seconds ("1h1m")."""
    whole = int(round(seconds))
    assert whole == seconds, seconds
    h, rest = divmod(whole, 3600)
    m, sec = divmod(rest, 60)
    return "".join("%d%s" % (v, u) for v, u in ((h, "h"), (m, "m"), (sec, "s")) if v) or "0s"


def memory(nbytes):
    """A memsize string, exact: whole GiB as GiB, otherwise bytes."""
    nbytes = int(nbytes)
    return "%dGiB" % (nbytes >> 30) if nbytes % (1 << 30) == 0 else "%dB" % nbytes


def main():
    profile_path = sys.argv[1] if len(sys.argv) > 1 else PROFILE
    out_path = sys.argv[2] if len(sys.argv) > 2 else OUT
    with open(profile_path) as f:
        profile = json.load(f)

    phases = table(profile, "mixed_phases")
    rate = the_same(phases, "rate_per_s")
    window_s = the_same(phases, "duration_s")
    state = the_same(phases, "state_bytes")
    weights = the_same(phases, "weights_bytes")

    served_waiting, all_services = [], []
    requests = table(profile, "mixed_requests")
    for trial in sorted({r["trial"] for r in requests}):
        rows = sorted((r for r in requests if r["trial"] == trial), key=lambda r: r["start_s"])
        for i, r in enumerate(rows):
            all_services.append(r["end_s"] - r["start_s"])
            if i > 0 and r["arrival_s"] < rows[i - 1]["end_s"]:
                served_waiting.append(r["end_s"] - r["start_s"])
    service_s = statistics.median(served_waiting)
    alone = [r["service_kernel_s"] for r in table(profile, "mixed_load")]

    storage_gbps, storage_fixed_s = ols_bandwidth_gbps(profile["samples"]["series"]["load_cold_pinned"])
    d2h_gbps, _ = ols_bandwidth_gbps(profile["samples"]["series"]["d2h_pinned"])
    context_s = statistics.median(profile["samples"]["scalars"]["context_create"])

    delta_s = math.log(rate * MIN_INTERVAL_S) / rate
    ticks = round(T0_S / MIN_INTERVAL_S)
    interval_s = (T0_S + delta_s) / ticks
    mean_delay_s = delta_s + math.exp(-rate * delta_s) * interval_s

    # framework_s and inference_warmup_s are the scenario's (0), over the
    # built-in ones; everything the profile has comes from the profile.
    inline = {"source": "make_scenario.py: the measured serving process has no framework and captures no graph",
              "framework_s": 0, "inference_warmup_s": 0}
    if "storage_gbps" not in profile:
        inline["source"] += "; storage_gbps from the load_cold_pinned fit of " + os.path.basename(profile_path)
        inline["storage_gbps"] = round(storage_gbps, 9)

    rel = os.path.relpath(profile_path, os.path.dirname(os.path.abspath(out_path)))
    scenario = {
        "schema": "fleetsim/1",
        "name": "mixed-workload check on one H100 (calibrate/cal_mixed.h), predicted from its profile",
        "description": (
            "One H100. A preemptible training job (gang 1, %s of state, saved to host on eviction) borrows "
            "the only GPU from t = 0. At t0 = 01:00 requests start arriving at %g/s for %g s for a service "
            "with no replica; its autoscaler asks for one at its first tick that finds a request (a tick "
            "falls %.1f ms after t0), which evicts the job (state to host at the profile's D2H bandwidth); "
            "the replica then warms up for context + %s of weights at the load_cold_pinned bandwidth and "
            "serves one request at a time, FIFO, each taking the measured median service time. "
            "framework_s and inference_warmup_s are 0: the measured serving process has no framework (no "
            "PyTorch) and captures no graph. Written by make_scenario.py from %s; the comparison is "
            "tests/test_calibration_check.c." % (memory(state), rate, window_s, delta_s * 1e3, memory(weights), rel)),
        "horizon": duration(T0_S + window_s + TAIL_S),
        "warmup": duration(T0_S),
        "window": duration(window_s + TAIL_S),
        "seed": 21,
        "replications": 400,
        "gpus": {"H100-SXM-80GB": {"calibration": rel}},
        "calibration": inline,
        "policies": {
            "borrowing": {
                "kind": "partitioned", "borrowing": True,
                "pools": [{"name": "h100", "gpu": "H100-SXM-80GB", "gpus": 1, "class": "serving"}],
            }
        },
        "services": [{
            "name": "serve",
            "pool": "h100",
            "memory_gb": memory(weights),
            "arrivals": {
                "poisson_rps": rate,
                "diurnal": [0] + [1] * 23,
                "bursts": [{"at": duration(T0_S + window_s), "multiplier": QUIET, "duration": duration(TAIL_S)}],
            },
            "service_time": {"deterministic": {"value": round(service_s, 12)}},
            "replicas": {"count": 0, "min": 0, "max": 1, "concurrency": 1,
                         "autoscale": {"target_in_flight": 1, "interval": round(interval_s, 12),
                                       "cooldown": 0, "idle": "1d"}},
        }],
        "training": [{
            "name": "train", "submit": {"at": [0]}, "gang": 1, "work_gpu_hours": 100,
            "state_gb_per_gpu": memory(state), "preemptible": True, "on_eviction": "save",
        }],
    }
    with open(out_path, "w") as f:
        json.dump(scenario, f, indent=1)
        f.write("\n")

    print("profile %s" % profile_path)
    print("rate %g/s for %g s, state %d bytes, weights %d bytes" % (rate, window_s, state, weights))
    print("service time: median end - start of %d requests that waited %.6f ms (all %d: %.6f ms; "
          "alone, per trial: %s ms)" % (len(served_waiting), service_s * 1e3, len(all_services),
                                        statistics.median(all_services) * 1e3,
                                        ", ".join("%.4f" % (a * 1e3) for a in alone)))
    series = profile["samples"]["series"]["load_cold_pinned"]
    rates = [b / t / 1e9 for b, t in zip(series["bytes"], series["seconds"])]
    print("storage_gbps %.9f (load_cold_pinned fit, fixed %.4f s, samples %.2f to %.2f GB/s; the profile's: %s, %s)"
          % (storage_gbps, storage_fixed_s, min(rates), max(rates), profile.get("storage_gbps", "none"),
             "inline" if "storage_gbps" in inline else "from the profile"))
    print("module_s %s (the profile's)" % profile.get("module_s", "none"))
    print("context_s %.9f (median of context_create; the profile's: %s)" % (context_s, profile["context_s"]))
    print("d2h_gbps %.9f (d2h_pinned fit; the profile's: %s)" % (d2h_gbps, profile["d2h_gbps"]))
    print("autoscaler tick %.6f s after t0 (interval %.12f s); mean scale-up delay %.6f s" %
          (delta_s, interval_s, mean_delay_s))
    print("wrote %s" % out_path)


if __name__ == "__main__":
    main()
