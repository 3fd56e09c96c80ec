#!/bin/sh
# bench/passes_test.sh A.json B.json
#
# What `report --calibrate` marked before it tested rounds: for every row the two
# calibration files share, R's wilcox.test on ALL their passes at 95%, row by row, with
# no correction over the table. Prints each shared row and whether that test marks it,
# then the count. The "rows marked by passes" column of bench/results/2026-11-30-calibrate.md comes from this script.
# Needs jq and R (Debian: jq r-base-core).
set -eu
[ $# -eq 2 ] || { echo "usage: $0 A.json B.json (two pretouch calibrate files)" >&2; exit 2; }
for tool in jq Rscript; do
    command -v "$tool" >/dev/null || { echo "$0: needs $tool (Debian: apt-get install jq r-base-core)" >&2; exit 2; }
done
# One line per row: `set|test<TAB>comma-separated passes`.
rows() {
    jq -r '.results[] | "\(.placement.set // "\(.workers) workers") \(.variant // "zap") \(.layout)\t\(.faults_per_s | map(tostring) | join(","))"' "$1"
}
{
    echo 'marked <- 0; rows <- 0'
    rows "$1" | while IFS="$(printf '\t')" read -r key a; do
        b=$(rows "$2" | awk -F '\t' -v k="$key" '$1 == k { print $2 }')
        [ -n "$b" ] || continue
        echo "x <- c($a); y <- c($b)"
        echo 'ci <- suppressWarnings(wilcox.test(y, x, conf.int = TRUE))$conf.int'
        echo 'm <- ci[1] > 0 || ci[2] < 0; rows <- rows + 1; marked <- marked + m'
        echo "cat(sprintf('%-28s %s\n', '$key', if (m) 'marked' else '-'))"
    done
    echo 'cat(sprintf("%d of %d rows marked by a 95%% test of all passes\n", marked, rows))'
} | Rscript -
