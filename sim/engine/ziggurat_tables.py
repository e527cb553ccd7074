#!/usr/bin/env python3
"""Prints the layer tables of ziggurat.c (the exponential ziggurat, 256 layers).

The construction is Marsaglia & Tsang (2000), "The Ziggurat Method for
Generating Random Variables", J. Stat. Softw. 5(8), for f(x) = exp(-x):
256 layers of equal area v.  Layer 0 is the rectangle [0, r] x [0, f(r)]
plus the tail beyond r, so v = r f(r) + f(r) = (r + 1) exp(-r); X[0] = v / f(r)
is the width a rectangle of height f(r) would need to hold it.  Above it,
X[1] = r and X[i+1] = f^-1(f(X[i]) + v / X[i]); r is the root that makes the
top layer close exactly at X[256] = 0 (found here by bisection at 60 digits,
r = 7.6971174701310497...).  Computed with mpmath so the printed doubles are
correctly rounded; tests/test_sampler.c recomputes them in double precision
and checks the shipped tables against the construction.

    python3 sim/engine/ziggurat_tables.py   # paste the output into ziggurat.c
"""
from mpmath import mp, mpf, exp, log

mp.dps = 60
LAYERS = 256


def layers(r):
    """X[0..LAYERS-1] for a given r, the area v, and how far the top misses 0
    (None when the layers overshoot f(0) = 1 before the last one)."""
    v = (r + 1) * exp(-r)
    x = [v / exp(-r), r]
    for i in range(1, LAYERS - 1):
        a = exp(-x[i]) + v / x[i]
        if a >= 1:
            return x, v, None
        x.append(-log(a))
    return x, v, exp(-x[LAYERS - 1]) + v / x[LAYERS - 1] - 1


def solve():
    lo, hi = mpf(5), mpf(10)
    for _ in range(200):
        mid = (lo + hi) / 2
        x, v, miss = layers(mid)
        if miss is None or miss > 0:
            lo = mid  # r too small: the layers reach the top too soon
        else:
            hi = mid
    x, v, _ = layers(lo)
    return lo, v, x + [mpf(0)]


def block(name, values):
    out = ["static const double %s[ZIG_LAYERS + 1] = {" % name]
    for i in range(0, len(values), 3):
        out.append("    " + " ".join("%s," % repr(float(y)) for y in values[i:i + 3]))
    out.append("};")
    return "\n".join(out)


if __name__ == "__main__":
    r, v, x = solve()
    print("/* r = %s, v = %s */" % (mp.nstr(r, 20), mp.nstr(v, 20)))
    print(block("zig_x", x))
    print(block("zig_f", [exp(-y) for y in x]))
