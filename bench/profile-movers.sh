#!/usr/bin/env bash
# A/A pairs for the profile's movers: PAIRS times, two labels with the same settings
# (a, then b), each one small profiled run of bench/profile-movers.yaml, one after the
# other and niced. Then each pair's report, and how many pairs name any mover. With
# the same settings on both sides, a mover is a false alarm, so at 95% about one pair
# in twenty should name one.
#
#   bench/profile-movers.sh OUT [PAIRS] [PROFILE_ROUNDS]     (needs jq)
#
# A pair whose folder holds `done` is not run again, so a second call only counts,
# with the pretouch binary given in PRETOUCH (default target/debug/pretouch). The
# script never writes to /sys. Every pair must see one THP mode, THP_MODE (default
# madvise), because other users of a shared machine may switch it for a while. So it
# waits while THP is at another mode, and runs a pair again when the mode changed
# during it.
set -euo pipefail
out=$1 pairs=${2:-10} rounds=${3:-5}
bin=${PRETOUCH:-target/debug/pretouch}
matrix=$(dirname "$0")/profile-movers.yaml
thp=/sys/kernel/mm/transparent_hugepage/enabled
mode() { sed 's/.*\[\(.*\)\].*/\1/' "$thp"; }
want=${THP_MODE:-madvise}
mkdir -p "$out"
for i in $(seq 1 "$pairs"); do
    dir=$out/pair-$i
    while [ ! -e "$dir/done" ]; do
        rm -rf "$dir"
        same=yes
        for label in a b; do
            while [ "$(mode)" != "$want" ]; do
                echo "$(date -u +%T) THP is $(mode), waiting for $want" >&2
                sleep 20
            done
            echo "$(date -u +%T) pair $i label $label load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
            nice -n 10 "$bin" run --label "$label" --results "$dir" --profile \
                --profile-rounds "$rounds" "$matrix" >/dev/null 2>"$dir.$label.log"
            if [ "$(mode)" != "$want" ]; then
                echo "$(date -u +%T) THP changed to $(mode) during pair $i: running it again" >&2
                same=no
                break
            fi
        done
        [ "$same" = yes ] && touch "$dir/done"
    done
done
marked=0
for i in $(seq 1 "$pairs"); do
    dir=$out/pair-$i
    "$bin" report "$dir" --labels a,b --profile --format json >"$dir/report.json"
    movers=$(jq '[.profile.shifts[] | (.categories + .functions)[] | select(.mover)] | length' \
        "$dir/report.json")
    names=$(jq -r '[.profile.shifts[] | (.categories + .functions)[] | select(.mover) | .name] | join(", ")' \
        "$dir/report.json")
    echo "pair $i: $movers movers ${names:+($names)}"
    [ "$movers" -gt 0 ] && marked=$((marked + 1))
done
echo "$marked of $pairs A/A pairs name any mover"
