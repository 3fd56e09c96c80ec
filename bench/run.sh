#!/usr/bin/env bash
# Benchmarks of pretouch itself, side by side in one run: agent overhead, runner
# overhead, time to a trusted result against hyperfine, scaling over heap sizes.
# Usage: bench/run.sh [--jdk JAVA_HOME]     (about 5 minutes on a 2-core machine)
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v hyperfine >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -q && apt-get install -y -q hyperfine
    else
        echo "bench/run.sh needs hyperfine: sudo apt-get install -y hyperfine" >&2
        exit 2
    fi
fi
cargo build --release --quiet
# As root, the hyperfine comparison stops free page reporting (on VMs that have it)
# for its duration, both tools alike, and restores it: launches then start from the
# same guest-memory state (see docs/measuring.md, "The tool's own cost and accuracy").
extra=()
if [ "$(id -u)" = 0 ]; then
    extra+=(--comparable-memory)
fi
exec target/release/pretouch-bench all "${extra[@]}" "$@"
