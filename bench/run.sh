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
exec target/release/pretouch-bench all "$@"
