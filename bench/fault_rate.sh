#!/bin/sh
# Builds bench/fault_rate.c with cc and runs it: the independent check of
# `pretouch calibrate` (shared layout). Usage: bench/fault_rate.sh [THREADS [SIZE_MIB [PASSES]]]
# Defaults match `pretouch calibrate`: the online CPUs, 1024 MiB, 5 passes.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${CARGO_TARGET_DIR:-$here/../target}/fault_rate
mkdir -p "$(dirname "$out")"
# Built once per source change, into a temporary name first, so a run never starts a
# half-written binary.
if [ ! -x "$out" ] || [ "$here/fault_rate.c" -nt "$out" ]; then
    cc -O2 -Wall -Wextra -pthread -o "$out.tmp.$$" "$here/fault_rate.c"
    mv -f "$out.tmp.$$" "$out"
fi
exec "$out" "${1:-$(nproc)}" "${2:-1024}" "${3:-5}"
