#!/usr/bin/env bash
# Labels run in turn, as the cover-letter workflow runs kernels: for each repeat,
# RUNS passes of (matrix A as label a, matrix B as label b), each pass A then B, each
# repeat's files in OUT/<repeat>/. Waits while THP is not at the mode the first run
# saw (other users of a shared machine may switch it for a while), so that every run
# of a campaign sees one THP mode. Extra arguments go to `pretouch run`.
#
#   bench/in-turn.sh OUT REPEATS RUNS matrix-a.yaml matrix-b.yaml [pretouch run args]
set -euo pipefail
out=$1 repeats=$2 runs=$3 a=$4 b=$5
shift 5
bin=${PRETOUCH:-target/debug/pretouch}
thp=/sys/kernel/mm/transparent_hugepage/enabled
want=${THP_MODE:-$(sed 's/.*\[\(.*\)\].*/\1/' "$thp")}
wait_thp() {
    while [ "$(sed 's/.*\[\(.*\)\].*/\1/' "$thp")" != "$want" ]; do
        echo "$(date -u +%T) THP is $(cat "$thp"), waiting for [$want]" >&2
        sleep 20
    done
}
for r in $(seq 1 "$repeats"); do
    mkdir -p "$out/$r"
    for i in $(seq 1 "$runs"); do
        for side in a b; do
            m=$a; [ "$side" = b ] && m=$b
            wait_thp
            echo "$(date -u +%T) repeat $r pass $i label $side load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
            "$bin" run --label "$side" --results "$out/$r" "$@" "$m" >/dev/null
        done
    done
done
