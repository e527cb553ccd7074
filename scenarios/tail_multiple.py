#!/usr/bin/env python3
"""The morning tail as a multiple of the baseline p99, from a run's windows.

Usage: tail_multiple.py RESULTS_DIR [--service chat] [--tail 09:30-11:00]
                        [--baseline 14:00-17:00]

Reads RESULTS_DIR/timeseries.csv (written by `fleetsim run -o` or
`fleetsim compare -o`). For each policy and replication, and each measured
day, it takes the mean of the per-window p99 over the tail span and over
the baseline span of the same day, and their ratio; a replication's
multiple is the mean of its days' ratios. It prints, per policy, the mean
multiple over replications with a 95% interval (Student t), and the mean
p99 of the tail and baseline spans. Windows with no completion (an empty
p99 cell) are left out of a span; a span with none is "no data".

Seed 003 reports "the first ninety minutes of the morning run at roughly
four times the baseline p99": --tail is those ninety minutes from the
first traffic, --baseline an afternoon span of the same day.
"""
import argparse
import csv
import math
import os
import statistics
import sys

# Two-sided 95% Student t quantiles for 1..30 degrees of freedom.
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
       2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
       2.052, 2.048, 2.045, 2.042]


def clock(text):
    h, m = text.split(":")
    return int(h) * 3600 + int(m) * 60


def span(text):
    a, b = text.split("-")
    return clock(a), clock(b)


def ci95(values):
    if len(values) < 2:
        return float("nan")
    df = len(values) - 1
    t = T95[df - 1] if df <= len(T95) else 1.96
    return t * statistics.stdev(values) / math.sqrt(len(values))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--service", default="chat")
    ap.add_argument("--tail", default="09:30-11:00")
    ap.add_argument("--baseline", default="14:00-17:00")
    a = ap.parse_args()
    tail, base = span(a.tail), span(a.baseline)
    path = os.path.join(a.dir, "timeseries.csv")
    try:
        rows = list(csv.DictReader(open(path, newline="")))
    except OSError as e:
        sys.exit(f"tail_multiple.py: {path}: {e.strerror}")
    # (policy, rep, day) -> {"tail": [p99...], "base": [p99...]}
    days = {}
    for r in rows:
        if r["service"] != a.service or r["p99_ms"] == "":
            continue
        t0 = float(r["window_start_s"])
        day, tod = int(t0 // 86400), t0 % 86400
        key = (r["policy"], int(r["replication"]), day)
        slot = days.setdefault(key, {"tail": [], "base": []})
        if tail[0] <= tod < tail[1]:
            slot["tail"].append(float(r["p99_ms"]))
        elif base[0] <= tod < base[1]:
            slot["base"].append(float(r["p99_ms"]))
    if not days:
        sys.exit(f"tail_multiple.py: {path}: no window of service {a.service!r} with a p99")
    policies = list(dict.fromkeys(k[0] for k in days))
    print(f"service {a.service}: mean window p99 over {a.tail} against {a.baseline}, per measured day")
    print(f"{'policy':<16}{'multiple':>10}{'95% CI':>10}{'tail p99 ms':>14}{'base p99 ms':>14}  days x reps")
    for p in policies:
        per_rep, tails, bases, n = {}, [], [], 0
        for (pol, rep, day), s in sorted(days.items()):
            if pol != p or not s["tail"] or not s["base"]:
                continue
            t, b = statistics.mean(s["tail"]), statistics.mean(s["base"])
            per_rep.setdefault(rep, []).append(t / b)
            tails.append(t)
            bases.append(b)
            n += 1
        if not per_rep:
            print(f"{p:<16}{'no data':>10}")
            continue
        mult = [statistics.mean(v) for v in per_rep.values()]
        print(f"{p:<16}{statistics.mean(mult):>10.2f}{ci95(mult):>10.2f}{statistics.mean(tails):>14.1f}"
              f"{statistics.mean(bases):>14.1f}  {n // len(per_rep)} x {len(per_rep)}")


if __name__ == "__main__":
    main()
