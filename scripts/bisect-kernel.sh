#!/usr/bin/env bash
# One step of `git bisect run` over kernel commits: build the kernel of the current
# checkout, boot it in a VM beside a known good kernel with `pretouch run --kernel`,
# and exit with `pretouch check`'s verdict on the pretouch cost.
#
#   cd ~/linux
#   git bisect start BAD GOOD
#   BISECT_MATRIX=~/pretouch/configs/quick.yaml BISECT_GOOD_KERNEL=~/good-bzImage \
#     git bisect run ~/pretouch/scripts/bisect-kernel.sh
#
# Both kernels boot in every step, in one session, so each commit is compared with the
# good kernel on the same machine in the same minutes. Copy the good kernel's image out
# of the tree before you start, because bisecting rewrites the tree. docs/comparing.md
# shows a whole bisection.
#
# Exit codes, as `git bisect run` reads them:
#   0    good: every cell's cost grew by less than BISECT_MAX_CHANGE, whole interval
#   1    bad: some cell's cost grew by more than BISECT_MAX_CHANGE, whole interval
#   125  skip: a kernel did not build or boot, the run failed, or the verdict is
#        undecided (an interval straddles the threshold, or too few rounds)
#   128  stop the bisection: the settings below are wrong (no matrix, a matrix the run
#        refuses, no good kernel image, or a check that refused its input), so every
#        later commit would fail the same way, or the run was interrupted
#
# Settings, from the environment:
#   BISECT_MATRIX         the matrix to run (required); it must not name `kernels:`
#   BISECT_GOOD_KERNEL    the good kernel's image, outside the tree (required)
#   BISECT_MAX_CHANGE     the largest change allowed, `5%` by default, or in ms (`20ms`)
#   BISECT_RESULTS        the folder that keeps every step's results, a folder a
#                         commit, /var/tmp/pretouch-bisect by default
#   BISECT_RUN_OPTIONS    more options for `pretouch run`, such as `--runs 3`
#   BISECT_CHECK_OPTIONS  more options for `pretouch check`, such as `--direction both`
#   PRETOUCH              the pretouch binary, `pretouch` on PATH by default
#   BISECT_BUILD_CMD      replaces the build: a shell command run in the tree
#   BISECT_RUN_CMD        replaces the VM run: a shell command run in the tree that
#                         writes the results of the labels `good` and `bisect` into
#                         $BISECT_RESULTS_DIR. The tests use the two to drive a real
#                         `git bisect run` with prepared results, with no kernel built.
set -uo pipefail

pretouch=${PRETOUCH:-pretouch}
max_change=${BISECT_MAX_CHANGE:-5%}
root=${BISECT_RESULTS:-/var/tmp/pretouch-bisect}

say() { echo "bisect-kernel: $*" >&2; }
skip() { say "$* (skip: exit 125)"; exit 125; }
stop() { say "$* (stop the bisection: exit 128)"; exit 128; }

commit=$(git rev-parse --short=12 HEAD) || stop "not in a git tree"
mkdir -p "$root" || stop "cannot make the results folder $root"
results=$(mktemp -d "$root/$commit.XXXXXX") || stop "cannot make a folder under $root"
export BISECT_RESULTS_DIR=$results BISECT_COMMIT=$commit
say "commit $commit, results in $results"

# Build. A commit that does not build is no answer about the cost, so it is skipped.
if [ -n "${BISECT_BUILD_CMD:-}" ]; then
  sh -c "$BISECT_BUILD_CMD" || skip "the build failed"
else
  if [ ! -f .config ]; then
    vng=${PRETOUCH_VNG:-$(command -v vng || echo /opt/virtme-ng/bin/vng)}
    "$vng" --kconfig || skip "no .config, and vng --kconfig failed"
  fi
  { make olddefconfig && make -j"$(nproc)" bzImage; } >"$results/build.log" 2>&1 ||
    skip "the build failed; $results/build.log has its output"
fi

# Run both kernels in one session. The matrix is copied beside the original, so that
# its relative paths still hold, with the two kernels and their labels added.
if [ -n "${BISECT_RUN_CMD:-}" ]; then
  sh -c "$BISECT_RUN_CMD"
  run=$?
else
  [ -n "${BISECT_MATRIX:-}" ] || stop "set BISECT_MATRIX to the matrix to run"
  [ -f "$BISECT_MATRIX" ] || stop "no matrix at $BISECT_MATRIX"
  [ -n "${BISECT_GOOD_KERNEL:-}" ] && [ -f "$BISECT_GOOD_KERNEL" ] ||
    stop "set BISECT_GOOD_KERNEL to the good kernel's image, outside the tree"
  grep -q '^kernels:' "$BISECT_MATRIX" &&
    stop "$BISECT_MATRIX names kernels: already; remove them, because this script adds its two"
  matrix="$(dirname "$BISECT_MATRIX")/.bisect-$commit-$$.yaml"
  trap 'rm -f "$matrix"' EXIT
  {
    cat "$BISECT_MATRIX"
    echo
    echo "kernels:"
    echo "  - image: $(realpath "$BISECT_GOOD_KERNEL")"
    echo "    label: good"
    echo "  - image: $(realpath arch/x86/boot/bzImage)"
    echo "    label: bisect"
  } >"$matrix" || stop "cannot write $matrix"
  # shellcheck disable=SC2086 # the options are words on purpose
  "$pretouch" run "$matrix" --results "$results" ${BISECT_RUN_OPTIONS:-}
  run=$?
fi
case $run in
  0 | 3) ;; # 3: some launches failed; they enter no median, and the check sees the rest
  2 | 130 | 143) stop "pretouch run exited $run" ;;
  *) skip "pretouch run exited $run" ;;
esac

# The labels, `-EMULATED` under QEMU's emulation (docs/comparing.md).
label() {
  for l in "$1" "$1-EMULATED"; do
    if [ -d "$results/$l" ] && ls "$results/$l"/*.jsonl >/dev/null 2>&1; then
      echo "$l"
      return 0
    fi
  done
  return 1
}
# A good kernel that left nothing failed this once (a boot that timed out, say), because
# its image was checked above, so the step is skipped rather than the bisection ended.
good=$(label good) || skip "the good kernel left no results in $results"
bisect=$(label bisect) || skip "this commit's kernel left no results (no boot?)"

# shellcheck disable=SC2086 # the options are words on purpose
"$pretouch" check "$results" --baseline "$good" --labels "$bisect" \
  --max-change "$max_change" ${BISECT_CHECK_OPTIONS:-}
verdict=$?
case $verdict in
  0 | 1 | 125) exit "$verdict" ;;
  *) stop "pretouch check exited $verdict" ;;
esac
