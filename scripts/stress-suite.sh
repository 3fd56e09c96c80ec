#!/usr/bin/env bash
# Runs the whole suite (`cargo test --workspace --no-fail-fast`, the README's test command) N times
# beside a real load, `stress-ng --cpu 2 --vm 1 --vm-bytes 2g`, and prints how many runs
# passed and failed. A suite that fails by chance under load blocks landings and teaches
# people to rerun instead of read; this is how to tell. stress-ng is installed when
# missing (Debian, as root). Each run's output is kept in $STRESS_LOGS (default: a new
# folder under /tmp), named in the summary.
#
# Usage: scripts/stress-suite.sh [N]   (default 5)
# Exit status: 0 when every run passed.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive

runs=${1:-5}
case $runs in
    '' | *[!0-9]* | 0) echo "usage: $0 [N]   (N: how many suite runs, at least 1)" >&2; exit 2 ;;
esac

if ! command -v stress-ng >/dev/null 2>&1; then
    echo "stress-suite: installing stress-ng"
    apt-get -o DPkg::Lock::Timeout=600 update -q
    apt-get -o DPkg::Lock::Timeout=600 install -y -q stress-ng ||
        { echo "stress-suite: error: installing stress-ng failed" >&2; exit 1; }
fi

logs=${STRESS_LOGS:-$(mktemp -d /tmp/stress-suite.XXXXXX)}
mkdir -p "$logs"
# Built before the load starts: the load is for the tests, not the compiler.
cargo test --workspace --no-run -q

stress-ng --cpu 2 --vm 1 --vm-bytes 2g --timeout 0 --quiet &
stress=$!
trap 'kill "$stress" 2>/dev/null || true; wait "$stress" 2>/dev/null || true' EXIT
sleep 2
kill -0 "$stress" 2>/dev/null || { echo "stress-suite: error: stress-ng did not start" >&2; exit 1; }
echo "stress-suite: load: stress-ng --cpu 2 --vm 1 --vm-bytes 2g (pid $stress); logs in $logs"

passed=0
failed=0
for i in $(seq 1 "$runs"); do
    start=$(date +%s)
    # --no-fail-fast: a failed test binary does not hide the later ones' results.
    if cargo test --workspace --no-fail-fast >"$logs/run-$i.log" 2>&1; then
        passed=$((passed + 1))
        result=passed
    else
        failed=$((failed + 1))
        names=$(sed -n 's/^test \(.*\) \.\.\. FAILED$/\1/p' "$logs/run-$i.log" | sort -u | paste -sd, -)
        result="FAILED: ${names:-see the log}"
    fi
    echo "stress-suite: run $i of $runs: $result in $(( $(date +%s) - start )) s ($logs/run-$i.log)"
done
echo "stress-suite: $passed of $runs passed, $failed failed, beside stress-ng --cpu 2 --vm 1 --vm-bytes 2g"
[ "$failed" -eq 0 ]
