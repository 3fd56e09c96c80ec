#!/usr/bin/env bash
# The heap's memory per cell of a `pretouch run` result folder, as docs/matrix.md's measured
# table shows it beside `pretouch report`'s cost and spread: for the counted launches with
# pretouch, the memory kind, the views, the page size and the resident heap at main()
# (min-max over the launches, MiB, each page once). Usage: bench/gcs_table.sh RESULTS_DIR
set -euo pipefail
dir=${1:?usage: bench/gcs_table.sh RESULTS_DIR}
find "$dir" -name '*.jsonl' -print0 | xargs -0 cat | jq -rs '
  [.[] | select(.record == "launch" and .pretouch == true and .warmup == false
                and .failure == null and .heap_memory != null)]
  | group_by([.jdk, .gc, .heap_bytes])
  | ["| jdk | gc | heap | memory | views | page | resident MiB |", "|---|---|---|---|---|---|---|"]
    + map(
      (map(.heap_memory.resident / 1048576 | floor) | [min, max]) as $r
      | "| \(.[0].jdk | split("-")[0]) | \(.[0].gc) | \(.[0].heap) | \(.[0].heap_memory.kind) | \(.[0].heap_memory.views) | \(.[0].heap_memory.page_size / 1024)k | \($r[0])-\($r[1]) |")
  | .[]'
