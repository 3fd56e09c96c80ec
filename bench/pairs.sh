#!/usr/bin/env bash
# Real pairs of runs for the change's interval. PAIRS times, in turn, it runs the same
# matrix twice, as labels `a` and `a2`, which make an A/A pair. Then it runs the matrix
# with every heap BIG_HEAP instead of HEAP, as label `big`, which makes a pair with a
# known effect against `a`. Each repeat's files go to OUT/<repeat>/. The load average
# before each run goes to stderr, so runs made beside other work can be told apart.
# Extra arguments go to `pretouch run`.
#
#   bench/pairs.sh OUT PAIRS [pretouch run args]
#
# The matrix is two cells, G1 and Parallel at HEAP (default 256m, and BIG_HEAP 288m),
# ROUNDS rounds (default 10), on JDK (default Temurin 25 where it is installed, else
# the `java` on PATH). bench/pairs-count.sh reads the pairs back with `pretouch report`
# and `pretouch check`.
set -euo pipefail
out=$1 pairs=$2
shift 2
bin=${PRETOUCH:-target/release/pretouch}
heap=${HEAP:-256m}
big=${BIG_HEAP:-288m}
jdk=${JDK:-}
[ -n "$jdk" ] || { [ -d /usr/lib/jvm/temurin-25-jdk-amd64 ] && jdk=/usr/lib/jvm/temurin-25-jdk-amd64; }
mkdir -p "$out"
matrix() {
    echo "name: pairs"
    [ -z "$jdk" ] || echo "jdks: [$jdk]"
    echo "gcs: [g1, parallel]"
    echo "heaps: [$1]"
    echo "repetitions: ${ROUNDS:-10}"
    echo "warmup: 1"
}
matrix "$heap" >"$out/same.yaml"
matrix "$big" >"$out/big.yaml"
for r in $(seq 1 "$pairs"); do
    mkdir -p "$out/$r"
    for side in a a2 big; do
        m=$out/same.yaml
        [ "$side" = big ] && m=$out/big.yaml
        echo "$(date -u +%T) pair $r label $side load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
        "$bin" run --label "$side" --results "$out/$r" "$@" "$m" >/dev/null
    done
done
