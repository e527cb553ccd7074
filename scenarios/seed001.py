#!/usr/bin/env python3
"""Writes scenarios/seed001.json: seed 001 at its own operating point (issue 22
item 5).  120 inference models in three regions, each region's fleet on whole
GPUs, on MIG slices or on fractional (MPS) shares of H100s; `fleetsim plan`
sizes each fleet (scenarios/README.md, "seed001.json").  Deterministic (fixed
seed); run it again to regenerate the file:

    python3 scenarios/seed001.py > scenarios/seed001.json

The pools get the sizes `fleetsim plan` chose (PLANNED, below; the plans are
run by scenarios/seed001_plan.sh).  With --start, whole-GPU and MIG pools get
the fewest GPUs their replicas fit on, fractional pools their packing bound
(shares, memory, seats) plus FRAC_SLACK GPUs: where the plans start, not
their answer.  --sizes SIZES.json takes the sizes from a file mapping pool
paths (policies.P.pools[N].gpus) to GPU counts.  The sensitivity options
(--traffic, --busy, --max-slowdown, --oversubscription, --model-seed) change the workload
or the units, so they go with --start or --sizes, never with PLANNED.

Where each input comes from:
- Seed 001: 100+ models, "a lightweight speech model using 2 GB of VRAM and a
  large Transformer requiring 40 GB", text / speech / image models, several
  regions, each model given a whole GPU before, 40% GPU headroom at peak
  business hours (the plan's constraint, not an input).
- reference/costs.md and reference/mig.md: the H100 SXM (80 GB, 132 SMs,
  $6.88 per GPU-hour), its MIG profiles, SMs and usable memory.
- The calibration (models/hardware/mps.c, run 6): what a share of the SMs
  costs each kind of work (model_mix.CURVES); a MIG slice is treated as an MPS
  client on as many SMs (the sm_exponent that gives the curve at the slice's
  share), as scenarios/fractional.py does.
- This scenario's assumptions (not measured, not tuned to any saving):
  - the model classes, their memory, median service times and peak rates
    (model_mix.CLASSES, as fragmentation.json; lognormal, sigma 0.45), the
    business-day profile (model_mix.DIURNAL) read in each region's local time;
  - the modality labels (speech models are speech; mid-size models text or
    image, alternately; transformers text or image, alternately);
  - what each class's work resembles on a share of the GPU: speech "memory"
    (too small to fill a GPU), mid-size "decode", transformers "compute";
  - three regions (us-east -5h, eu-west +1h, ap-northeast +9h) where the
    seed has 10+: fewer keeps runs short, and each region repeats the same
    mechanism on its own pools.  Each model is served in one region (home
    regions dealt round-robin within each class);
  - SLO: p99 at most 10x the median on a whole GPU (as fragmentation.json);
  - a model's unit (MIG slice or MPS share) is the smallest that runs it at
    most MAX_SLOWDOWN (2.5x) slower than a whole GPU and holds its memory
    (the latency need: 2.5 x the lognormal's p99/median of 2.85 leaves
    room under the 10x SLO for queueing);
  - replicas per policy: the fewest that keep each replica at most BUSY
    (25%) busy at peak on its own unit (the load need; fragmentation.json's
    rule), so a slower unit gets more replicas;
  - fractional pools: MPS, 8 seats a GPU (the simulator's default), shares
    adding up to at most 1 a GPU (no oversubscription), fgd placement.
"""
import argparse
import json
import math
import random

from model_mix import CLASSES, DIURNAL, H100_SMS, SLICE_SMS, mig_exponent, scenario_header, slowdown

GPU = "H100-SXM-80GB"
GPU_GB = 80
REGIONS = [("us-east", "-5h"), ("eu-west", "+1h"), ("ap-northeast", "+9h")]
SIGMA = 0.45
BUSY = 0.25
MAX_SLOWDOWN = 2.5
SEATS = 8
FRAC_SLACK = 2
OVERSUBSCRIPTION = 1
TRAFFIC = 1.0
KIND = {"speech": "memory", "mid": "decode", "transformer": "compute"}
LABELS = {"speech": ["speech"], "mid": ["text", "image"], "transformer": ["text", "image"]}
# MIG profiles smallest first, with usable memory in GiB (reference/mig.md),
# and how many of one profile an H100 holds.
MIG_PROFILES = [("1g.10gb", 9.75, 7), ("1g.20gb", 19.62, 4), ("2g.20gb", 19.62, 3), ("3g.40gb", 39.50, 2)]
SHARE_GRID = [round(0.05 * i, 2) for i in range(2, 21)]


def smallest_slice(kind, memory_gb):
    """The smallest MIG profile that holds the model and runs it within MAX_SLOWDOWN."""
    for name, usable, _ in MIG_PROFILES:
        if memory_gb * 1e9 / 2 ** 30 <= usable and slowdown(kind, SLICE_SMS[name] / H100_SMS) <= MAX_SLOWDOWN:
            return name
    raise ValueError(f"no MIG slice for {kind} at {memory_gb} GB")


def smallest_share(kind):
    """The smallest share (0.05 steps from 0.1) that runs the model within MAX_SLOWDOWN."""
    return next(s for s in SHARE_GRID if slowdown(kind, s) <= MAX_SLOWDOWN)


def replicas_for(load, stretch):
    """Fewest replicas keeping each at most BUSY busy at peak, `stretch` x slower than a whole GPU."""
    return max(1, math.ceil(load * stretch / BUSY))


# The plans' answers (scenarios/README.md, "seed001.json"), pool path -> GPUs.
PLANNED = {
    "policies.whole-gpus.pools[0].gpus": 42, "policies.whole-gpus.pools[1].gpus": 41,
    "policies.whole-gpus.pools[2].gpus": 44,
    "policies.mig.pools[0].gpus": 12, "policies.mig.pools[1].gpus": 7, "policies.mig.pools[2].gpus": 10,
    "policies.mig.pools[3].gpus": 9, "policies.mig.pools[4].gpus": 10, "policies.mig.pools[5].gpus": 11,
    "policies.fractional.pools[0].gpus": 16, "policies.fractional.pools[1].gpus": 16,
    "policies.fractional.pools[2].gpus": 18,
}


def draw_models(rng):
    models = []
    for cls, count, mem, med, rps, _, _ in CLASSES:
        for k in range(count):
            memory = round(rng.uniform(*mem), 1)
            median = round(rng.uniform(*med))
            peak = TRAFFIC * math.exp(rng.uniform(math.log(rps[0]), math.log(rps[1])))
            models.append({"cls": cls, "k": k, "memory": memory, "median": median, "peak": round(peak, 3),
                           "tenant": f"team-{rng.randrange(20):02d}", "region": REGIONS[k % len(REGIONS)][0]})
    return models


def plan_units(m):
    """Each policy's unit, slowdown and replicas for model m."""
    kind = KIND[m["cls"]]
    load = m["peak"] * m["median"] / 1000 * math.exp(SIGMA ** 2 / 2)   # busy GPUs at peak, whole GPU
    profile = smallest_slice(kind, m["memory"])
    share = smallest_share(kind)
    mig_stretch = slowdown(kind, SLICE_SMS[profile] / H100_SMS)
    return {
        "whole": replicas_for(load, 1.0),
        "profile": profile, "mig_exponent": mig_exponent(kind, profile),
        "mig": replicas_for(load, mig_stretch),
        "share": share, "frac": replicas_for(load, slowdown(kind, share)),
    }


def pool(name, region, gpus, **extra):
    return dict({"name": name, "gpu": GPU, "gpus": gpus, "region": region}, **extra)


def build(models):
    services, whole_pools, mig_pools, frac_pools = [], [], [], []
    mig_patch, frac_patch, whole_patch = {}, {}, {}
    need = {}
    for m in models:
        u = plan_units(m)
        label = LABELS[m["cls"]][m["k"] % len(LABELS[m["cls"]])]
        kind_name = m["cls"] if label == m["cls"] else f"{label}-{m['cls']}"
        name = f"{m['region']}-{kind_name}-{m['k']:02d}"
        services.append({
            "name": name, "tenant": m["tenant"], "region": m["region"], "pool": f"{m['region']}-whole",
            "memory_gb": m["memory"], "replicas": u["whole"],
            "arrivals": {"poisson_rps": m["peak"], "diurnal": DIURNAL},
            "service_time": {"lognormal": {"median": f"{m['median']}ms", "sigma": SIGMA}},
            "slo": {"p99_ms": 10 * m["median"]},
        })
        r = m["region"]
        need[("whole", r)] = need.get(("whole", r), 0) + u["whole"]
        need[("mig", r, u["profile"])] = need.get(("mig", r, u["profile"]), 0) + u["mig"]
        fr = need.setdefault(("frac", r), [0.0, 0.0, 0])
        fr[0] += u["share"] * u["frac"]
        fr[1] += m["memory"] * u["frac"]
        fr[2] += u["frac"]
        mig_patch[name] = {"pool": f"{r}-mig-{u['profile']}", "replicas": u["mig"], "sm_exponent": u["mig_exponent"]}
        frac_patch[name] = {"pool": f"{r}-frac", "replicas": u["frac"], "gpu_share": u["share"],
                            "gpu_share_kind": KIND[m["cls"]]}
    for r, _ in REGIONS:
        whole_pools.append(pool(f"{r}-whole", r, need[("whole", r)]))
        for profile, _, per_gpu in MIG_PROFILES:
            if ("mig", r, profile) in need:
                mig_pools.append(pool(f"{r}-mig-{profile}", r, math.ceil(need[("mig", r, profile)] / per_gpu),
                                      mig=[profile] * per_gpu))
        shares, memory, seats = need[("frac", r)]
        # The packing bound plus FRAC_SLACK GPUs: placement (fgd) does not reach the bound.
        fractional = {"seats": SEATS, "mode": "mps"}
        if OVERSUBSCRIPTION != 1:
            fractional["oversubscription"] = OVERSUBSCRIPTION
        bound = math.ceil(max(shares / OVERSUBSCRIPTION, memory / GPU_GB, seats / SEATS))
        frac_pools.append(pool(f"{r}-frac", r, bound + FRAC_SLACK, fractional=fractional, placement="fgd"))
    policies = {"whole-gpus": {"pools": whole_pools},
                "mig": {"pools": mig_pools, "services": mig_patch},
                "fractional": {"pools": frac_pools, "services": frac_patch}}
    return services, policies


def plan_args(services, policies, policy, region):
    """`fleetsim plan` arguments sizing `policy` in `region` (plan takes at most
    64 options, so one region a plan): each of the region's pools over a range
    from below its placement bound, every service's p99 SLO there, 40% peak
    headroom on each of its pools and on the fleet."""
    args = [f"--vary=policy={policy}"]
    for i, p in enumerate(policies[policy]["pools"]):
        if p["region"] != region:
            continue
        low = p["gpus"] - (FRAC_SLACK if "fractional" in p else 1)
        high = p["gpus"] + (FRAC_SLACK + 2 if "fractional" in p else 0)
        args.append(f"--vary=policies.{policy}.pools[{i}].gpus={low}..{high}")
        args.append(f"--constraint=pool:{p['name']}.peak_headroom>=0.4")
    args += [f"--constraint=service:{svc['name']}.p99<={svc['slo']['p99_ms']}ms"
             for svc in services if svc["region"] == region]
    args.append("--constraint=fleet.peak_headroom>=0.4")
    return args


def planned_sizes(directory):
    """The answers of the plans in `directory` (plan-POLICY-REGION/plan.json), as --sizes takes them."""
    sizes = {}
    for policy in ("whole-gpus", "mig", "fractional"):
        for region, _ in REGIONS:
            with open(f"{directory}/plan-{policy}-{region}/plan.json") as f:
                answer = json.load(f)["answer"]
            if not answer:
                raise SystemExit(f"{directory}/plan-{policy}-{region}: no point meets every constraint")
            sizes.update({k: v for k, v in answer["values"].items() if k != "policy"})
    return sizes


def resize(policies, sizes):
    for path, gpus in sizes.items():
        _, policy, rest = path.split(".", 2)
        index = int(rest[len("pools["):rest.index("]")])
        policies[policy]["pools"][index]["gpus"] = gpus


def main():
    global TRAFFIC, BUSY, MAX_SLOWDOWN, OVERSUBSCRIPTION
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", help="JSON object: pool path -> GPUs (instead of PLANNED)")
    ap.add_argument("--start", action="store_true", help="the plans' starting sizes instead of PLANNED")
    ap.add_argument("--plan-args", nargs=2, metavar=("POLICY", "REGION"),
                    help="print the fleetsim plan arguments that size POLICY's pools in REGION")
    ap.add_argument("--sizes-from-plans", metavar="DIR", help="print the planned sizes of the plans in DIR")
    # Sensitivity (scenarios/README.md, "seed001.json"): the defaults write the shipped file.
    ap.add_argument("--traffic", type=float, default=1.0, help="multiply every model's peak rate")
    ap.add_argument("--busy", type=float, default=BUSY, help="most a replica may be busy at peak")
    ap.add_argument("--max-slowdown", type=float, default=MAX_SLOWDOWN, help="slowest unit a model may get")
    ap.add_argument("--oversubscription", type=float, default=1.0, help="fractional pools' oversubscription")
    ap.add_argument("--model-seed", type=int, default=1, help="another draw of the 120 models")
    args = ap.parse_args()
    TRAFFIC, BUSY, MAX_SLOWDOWN, OVERSUBSCRIPTION = args.traffic, args.busy, args.max_slowdown, args.oversubscription
    if args.sizes_from_plans:
        print(json.dumps(planned_sizes(args.sizes_from_plans)))
        return
    services, policies = build(draw_models(random.Random(args.model_seed)))
    if args.plan_args:
        print(" ".join(plan_args(services, policies, *args.plan_args)))
        return
    sizes = {} if args.start else PLANNED
    if args.sizes:
        with open(args.sizes) as f:
            sizes = json.load(f)
    elif not args.start and (TRAFFIC, BUSY, MAX_SLOWDOWN, OVERSUBSCRIPTION, args.model_seed) != (1.0, 0.25, 2.5, 1.0, 1):
        raise SystemExit("seed001.py: the sensitivity options go with --start or --sizes (PLANNED is the shipped file's)")
    resize(policies, sizes)
    doc = dict(
        scenario_header(
            "seed001",
            "Seed 001 at its own operating point (issue 22): 120 inference models (speech 2-4 GB, mid-size "
            "6-16 GB, transformers 20-38 GB; text, speech, image) in three regions with business-day traffic in "
            "local time, on whole H100s, MIG slices or MPS shares sized by fleetsim plan. Generated by "
            "scenarios/seed001.py.",
            3, {"horizon": "1d", "replications": 1}),
        regions={r: {"utc_offset": off} for r, off in REGIONS},
        policies=policies,
        services=services,
    )
    print(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
