#!/usr/bin/env bash
# Reads back the pairs bench/pairs.sh made and counts what the report and `check` say
# of them. For each repeat it compares `a2` against `a`, an A/A pair of two runs of
# one matrix, and `big` against `a`, a pair with a known effect. `big` ran every heap
# larger, so its files are copied with the heap renamed to `a`'s, as if one kernel had
# made its pretouch dearer. Prints one line a pair and the counts.
#
#   bench/pairs-count.sh OUT [pretouch report args]
#
# The counts are: pairs with any cell marked `*`, cells marked, the median width of
# the changes' intervals in percentage points, and the exit codes of
# `check --max-change 5%`, judged both ways for the known effect.
set -euo pipefail
out=$1
shift
bin=${PRETOUCH:-target/release/pretouch}
heap=${HEAP:-256m}
big=${BIG_HEAP:-288m}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
summary() {
    # One line of a pair: each cell's change with its interval, and whether any is marked.
    python3 -c '
import json, sys
d = json.load(sys.stdin)
cells = [c for c in d["comparison"]["changes"] if not c["baseline"] and c["change_percent"] is not None]
parts, marked = [], 0
for c in cells:
    lo, hi = c["change_percent_low"], c["change_percent_high"]
    gc, change = c["gc"], c["change_percent"]
    if lo is None:
        parts.append("%s %+.1f%% no interval" % (gc, change))
        continue
    star = "*" if c["significant"] else ""
    marked += bool(c["significant"])
    parts.append("%s %+.1f%% [%+.1f, %+.1f]%s width %.1f" % (gc, change, lo, hi, star, hi - lo))
print("marked %d of %d: %s" % (marked, len(cells), "; ".join(parts)))
'
}
for dir in $(ls -d "$out"/*/ | sort -t/ -k2 -V); do
    r=$(basename "$dir")
    [ -d "$dir/a" ] && [ -d "$dir/a2" ] || continue
    aa=$("$bin" report "$dir" --labels a,a2 --baseline a --format json "$@" 2>/dev/null | summary)
    rc=0
    "$bin" check "$dir" --label a2 --baseline a --max-change 5% "$@" >/dev/null 2>&1 || rc=$?
    echo "aa $r check $rc $aa"
    [ -d "$dir/big" ] || continue
    rm -rf "$scratch/pair"
    mkdir -p "$scratch/pair/a" "$scratch/pair/big"
    cp "$dir"/a/*.jsonl "$scratch/pair/a/"
    for f in "$dir"/big/*.jsonl; do
        sed "s/\"$big\"/\"$heap\"/g; s/-Xms$big/-Xms$heap/g; s/-Xmx$big/-Xmx$heap/g; s/heaps: \[$big\]/heaps: [$heap]/" "$f" >"$scratch/pair/big/$(basename "$f")"
    done
    up=$("$bin" report "$scratch/pair" --labels a,big --baseline a --format json "$@" 2>/dev/null | summary)
    rc_up=0 rc_down=0
    "$bin" check "$scratch/pair" --label big --baseline a --max-change 5% "$@" >/dev/null 2>&1 || rc_up=$?
    # The lower judged against the higher: a fall, which `--direction both` calls.
    "$bin" check "$scratch/pair" --label a --baseline big --max-change 5% "$@" >/dev/null 2>&1 || rc_down=$?
    echo "effect $r check $rc_up reverse $rc_down $up"
done | tee "$scratch/lines"
python3 - "$scratch/lines" <<'PY'
import math, re, statistics, sys
lines = open(sys.argv[1]).read().splitlines()
for kind in ("aa", "effect"):
    rows = [l for l in lines if l.startswith(kind + " ")]
    if not rows:
        continue
    pairs_marked = sum(1 for l in rows if not re.search(r"marked 0 of", l))
    cells = sum(int(re.search(r"marked \d+ of (\d+)", l).group(1)) for l in rows)
    cells_marked = sum(int(re.search(r"marked (\d+) of", l).group(1)) for l in rows)
    widths = [float(w) for l in rows for w in re.findall(r"width ([\d.]+)", l)]
    checks = [int(re.search(r"check (\d+)", l).group(1)) for l in rows]
    width = f"{statistics.median(widths):.1f}" if widths else "-"
    # A change that scales one side's costs by r moves each end of the interval by r
    # on the log scale, and changes nothing else, so an A/A cell would be marked at a
    # rise r where ln(1 + low) + ln(r) > 0. The rise marked in 80% of the A/A cells,
    # and the fall, come from the ends of their intervals.
    found = ""
    if kind == "aa":
        lows = sorted(-math.log1p(float(lo) / 100) for l in rows for lo, hi in re.findall(r"\[([-+\d.]+), ([-+\d.]+)\]", l))
        highs = sorted(math.log1p(float(hi) / 100) for l in rows for lo, hi in re.findall(r"\[([-+\d.]+), ([-+\d.]+)\]", l))
        if lows:
            at = lambda v: v[min(len(v) - 1, int(0.8 * len(v)))]
            found = (f"; a rise of {100 * math.expm1(at(lows)):.0f}% and a fall of {100 * -math.expm1(-at(highs)):.0f}% "
                     f"would be marked in 80% of these cells")
    print(f"{kind}: {len(rows)} pairs, {pairs_marked} with a mark, {cells_marked} of {cells} cells marked, "
          f"median width {width} points; check exits " +
          ", ".join(f"{c}: {checks.count(c)}" for c in sorted(set(checks))) + found)
PY
