#!/usr/bin/env python3
"""How a cell's per-round costs drift over a run, from raw result files.

usage: bench/round-drift.py FILE.jsonl...

For each cell of the files (counted launches, rounds with both a launch without and
one with pretouch, in round order): the 20% trimmed mean and median of the per-round
costs (with - without, time to main()), the sd of each side and of the costs, their
lag-1 autocorrelation, the trimmed means of ten batches of consecutive rounds, and the
correlation of the with-pretouch time with its system CPU time; then the costs in
round order. What docs/statistics.md ("What it does not cover") reads from two quiet
runs. Needs python3 only.
"""
import json
import math
import statistics as st
import sys


def tmean(x, p=0.2):
    s = sorted(x)
    c = int(p * len(s))
    k = s[c:len(s) - c]
    return sum(k) / len(k)


def lag1(x):
    m = st.mean(x)
    v = sum((a - m) ** 2 for a in x)
    return sum((x[i] - m) * (x[i + 1] - m) for i in range(len(x) - 1)) / v if v else 0.0


def corr(x, y):
    mx, my = st.mean(x), st.mean(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    return sxy / math.sqrt(sum((a - mx) ** 2 for a in x) * sum((b - my) ** 2 for b in y))


cells = {}
for path in sys.argv[1:]:
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if r.get("record") != "launch" or r["warmup"] or not r.get("time_to_main_ns"):
                continue
            key = (r["jdk"], r["gc"], r["heap"], r["variant"])
            cells.setdefault(key, {}).setdefault((path, r["round"]), {})[r["pretouch"]] = r
if not cells:
    sys.exit("round-drift.py: no counted launches in " + " ".join(sys.argv[1:]))
for key, rounds in cells.items():
    order = sorted(k for k, v in rounds.items() if True in v and False in v)
    on = [rounds[k][True]["time_to_main_ns"] / 1e6 for k in order]
    off = [rounds[k][False]["time_to_main_ns"] / 1e6 for k in order]
    sys_on = [rounds[k][True]["rusage"]["stime_ns"] / 1e6 for k in order]
    d = [a - b for a, b in zip(on, off)]
    n = len(d)
    print(" ".join(key), f"{n} rounds")
    if n < 10:
        print("  fewer than 10 rounds")
        continue
    print(f"  cost: 20% trimmed mean {tmean(d):.1f} ms, median {st.median(d):.1f} ms")
    print(f"  sd: with {st.stdev(on):.1f}, without {st.stdev(off):.1f}, cost {st.stdev(d):.1f} ms")
    print(f"  lag-1 autocorrelation: with {lag1(on):.2f}, without {lag1(off):.2f}, cost {lag1(d):.2f}")
    b = 10
    size = n // b
    means = [tmean(d[i * size:(i + 1) * size]) for i in range(b)]
    print(f"  ten batch trimmed means: {' '.join(f'{m:.0f}' for m in means)} (sd {st.stdev(means):.1f} ms)")
    print(f"  with pretouch: correlation of time to main() with system CPU {corr(on, sys_on):.2f}, "
          f"system CPU {min(sys_on):.0f}-{max(sys_on):.0f} ms")
    print("  costs in round order:", " ".join(f"{v:.0f}" for v in d))
