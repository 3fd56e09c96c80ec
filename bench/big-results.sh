#!/usr/bin/env bash
# A campaign-sized data set, and how long `pretouch report` takes on it and how much
# memory: ten labels of 120,000 launch records each (about 2.9 GB), generated from the
# records of one real short run, so that they follow this version's format. Nothing is
# committed: the data goes to DIR (default target/big-results).
#
# usage: bench/big-results.sh [--labels N] [--launches N] [--dir DIR] [--keep]
#                              [--mem-limit-mb N] [--pretouch BIN] [JAVA_HOME]
# --keep reuses the data already in DIR. --pretouch times another build (default
# target/release/pretouch), so that two versions are timed on the same data: run the
# script once per build with the same --dir and --keep, alternating them. Each report
# runs under `ulimit -v` of --mem-limit-mb (default 10000): on 2026-12-01 the ten-label
# report of the code then grew past 22 GB and was killed by the kernel's OOM killer, on
# a machine shared with others; the limit makes it fail alone instead (the line says so).
# needs: a release build (cargo build --release), python3, GNU time (/usr/bin/time -v).
# Prints, for one label and for all labels: the wall time, CPU time and max RSS of
# `pretouch report --format text` (output to /dev/null), and of --format json.
set -euo pipefail
start=$PWD
cd "$(dirname "$0")/.."

labels=10
launches=120000
dir=target/big-results
keep=0
mem_limit_mb=10000
java_home=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
pretouch=target/release/pretouch
while [ $# -gt 0 ]; do
    case "$1" in
        --labels) labels=$2; shift 2 ;;
        --launches) launches=$2; shift 2 ;;
        --dir) dir=$2; shift 2 ;;
        --keep) keep=1; shift ;;
        --mem-limit-mb) mem_limit_mb=$2; shift 2 ;;
        --pretouch) case $2 in /*) pretouch=$2 ;; *) pretouch=$start/$2 ;; esac; shift 2 ;;
        -h|--help) sed -n 2,17p "$0"; exit 0 ;;
        -*) echo "big-results.sh: unknown option $1" >&2; exit 2 ;;
        *) java_home=$1; shift ;;
    esac
done
[ -x "$pretouch" ] || { echo "big-results.sh: no $pretouch; fix: cargo build --release" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "big-results.sh: no /usr/bin/time; fix: apt-get install time" >&2; exit 2; }

mkdir -p "$dir"
seed="$dir/seed"
if [ ! -s "$seed/records.jsonl" ]; then
    rm -rf "$seed"
    mkdir -p "$seed"
    printf 'name: big\njdks: ["%s"]\ngcs: [g1]\nheaps: [64m]\nrepetitions: 2\nwarmup: 1\n' \
        "$java_home" > "$seed/matrix.yaml"
    "$pretouch" run --label seed --results "$seed/results" "$seed/matrix.yaml" >/dev/null
    cat "$seed"/results/seed/*.jsonl > "$seed/records.jsonl"
fi

data="$dir/data"
if [ "$keep" = 0 ] || [ ! -d "$data" ]; then
    rm -rf "$data"
    mkdir -p "$data"
    # One body of $launches counted launch records (one cell, rounds of a launch without
    # and one with pretouch, times drawn around the seed's with a few slow ones), shared
    # by every label's file; each label its own header and end record.
    python3 - "$seed/records.jsonl" "$data" "$labels" "$launches" <<'PY'
import json, random, sys
seed_file, data, labels, launches = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
records = [json.loads(l) for l in open(seed_file)]
header = next(r for r in records if r["record"] == "run")
counted = [r for r in records if r["record"] == "launch" and not r["warmup"]]
template = {False: next(r for r in counted if not r["pretouch"]),
            True: next(r for r in counted if r["pretouch"])}
rng = random.Random(24)
body = open(f"{data}/body.jsonl", "w")
clock = template[False]["spawn_ns"]
for seq in range(launches):
    on = seq % 2 == 1
    r = dict(template[on])
    base = r["time_to_main_ns"]
    t = int(base * (1 + 0.03 * rng.gauss(0, 1)) * (3 if rng.random() < 0.01 else 1))
    stamps = json.loads(json.dumps(r["stamps"]))
    shift = clock - r["spawn_ns"]
    for k in ("agent_load", "vm_init", "main"):
        if stamps.get(k):
            stamps[k]["ns"] += shift
    stamps["main"]["ns"] = clock + t
    r.update(seq=seq, round=seq // 2, warmup=False, spawn_ns=clock,
             reaped_ns=clock + t + 20_000_000, time_to_main_ns=t, stamps=stamps)
    body.write(json.dumps(r, separators=(",", ":")) + "\n")
    clock += t + 25_000_000
body.close()
for i in range(labels):
    h = dict(header, label=f"label{i:02}", planned_launches=launches,
             started_at=f"2026-12-01T{i:02}:00:00Z")
    with open(f"{data}/label{i:02}.header", "w") as f:
        f.write(json.dumps(h, separators=(",", ":")) + "\n")
end = {"record": "end", "finished_at": "2026-12-01T23:00:00.000Z", "launches": launches,
       "failed": 0, "runner_max_rss": None}
open(f"{data}/end.jsonl", "w").write(json.dumps(end) + "\n")
PY
    for i in $(seq 0 $((labels - 1))); do
        l=$(printf 'label%02d' "$i")
        mkdir -p "$data/results/$l"
        cat "$data/$l.header" "$data/body.jsonl" "$data/end.jsonl" > "$data/results/$l/big.jsonl"
        rm "$data/$l.header"
    done
    rm "$data/body.jsonl" "$data/end.jsonl"
fi
echo "data: $(du -sh "$data/results" | cut -f1) in $labels label(s) of $launches launch records, $data/results"

measure() { # what, paths...
    local what=$1; shift
    local out rc=0
    out=$( { (ulimit -v $((mem_limit_mb * 1024)); exec /usr/bin/time -v "$pretouch" report "$@") > /dev/null; } 2>&1 ) || rc=$?
    local wall rss cpu
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' <<<"$out")
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' <<<"$out")
    # CPU time (user + system): on a machine shared with other work the wall time is
    # mostly the wait for a CPU; this is what the report itself costs.
    cpu=$(awk -F': ' '/User time \(seconds\)|System time \(seconds\)/ {s += $2} END {printf "%.2f", s}' <<<"$out")
    printf '%-22s wall %8s  cpu %6s s  max RSS %6d MB' "$what" "$wall" "$cpu" $((${rss:-0} / 1024))
    if [ "$rc" != 0 ]; then
        printf '  FAILED (exit %s; limit %d MB): %s' "$rc" "$mem_limit_mb" \
            "$(grep -m1 -iE 'memory|signal|error' <<<"$out" | tr -s ' ')"
    fi
    printf '\n'
}
measure "one label, text" "$data/results/label00"
measure "one label, json" --format json "$data/results/label00"
if [ "$labels" -gt 1 ]; then
    measure "$labels labels, text" "$data/results"
    measure "$labels labels, json" --format json "$data/results"
fi
