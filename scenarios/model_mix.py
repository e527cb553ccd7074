"""Shared inputs of the generated seed-001 scenarios (fragmentation.py,
fractional.py, seed001.py): the business-day profile, the three model
classes of seed 001, the H100's MIG slice sizes and the calibration's
measured share curves.  Imported, never copied.
"""
import math

# Business-day shape: trough 0.35 at night, peak 1.0 mid-afternoon.
DIURNAL = [0.4, 0.37, 0.35, 0.35, 0.37, 0.42, 0.5, 0.62, 0.78, 0.9, 0.97, 1.0,
           1.0, 1.0, 1.0, 0.98, 0.93, 0.85, 0.75, 0.65, 0.57, 0.5, 0.45, 0.42]
# Seed 001: "a lightweight speech model using 2 GB of VRAM and a large
# Transformer requiring 40 GB".  The rest is assumed (fragmentation.py).
CLASSES = [  # name, count, memory GB range, median ms range, peak rps range, sm_exponent, pool
    ("speech", 50, (2, 4), (30, 60), (0.3, 5.0), 0.3, "small"),
    ("mid", 40, (6, 16), (40, 120), (0.3, 4.0), 0.6, "mid"),
    ("transformer", 30, (20, 38), (150, 400), (0.1, 1.2), 1.0, "large"),
]

# The H100 SXM and its MIG slices (reference/mig.md).
H100_SMS = 132
SLICE_SMS = {"1g.10gb": 16, "1g.20gb": 26, "2g.20gb": 32, "3g.40gb": 60}

# The measured share curves (models/hardware/mps.c, calibrate/README.md).
SHARES = [1.0, 0.75, 0.5, 0.25, 0.1]
CURVES = {
    "compute": [1.00, 1.35, 2.00, 4.12, 10.97],
    "memory": [1.00, 1.00, 1.00, 1.77, 3.25],
    "prefill": [1.00, 1.30, 1.63, 3.15, 8.28],
    "decode": [1.00, 1.09, 1.32, 1.96, 4.46],
}


def slowdown(kind, share):
    """Log-log between measured shares, as fs_mps_slowdown."""
    row = CURVES[kind]
    if share >= 1:
        return row[0]
    for i in range(1, len(SHARES)):
        if share >= SHARES[i]:
            t = math.log(share / SHARES[i]) / math.log(SHARES[i - 1] / SHARES[i])
            return math.exp(math.log(row[i]) + t * math.log(row[i - 1] / row[i]))
    return row[-1]


def mig_exponent(kind, slice_name):
    """The sm_exponent that gives `kind`'s measured curve at the slice's share of the SMs."""
    share = SLICE_SMS[slice_name] / H100_SMS
    return round(math.log(slowdown(kind, share)) / math.log(1 / share), 4)


def scenario_header(name, description, replications, ci):
    """A generated scenario's first keys: one day from midnight UTC, a one-hour
    warm-up, 15-minute windows, seed 1."""
    return {"schema": "fleetsim/1", "name": name, "description": description, "horizon": "1d",
            "warmup": "1h", "window": "15m", "seed": 1, "replications": replications, "ci": ci}
