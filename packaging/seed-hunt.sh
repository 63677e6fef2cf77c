#!/usr/bin/env bash
# Runs the RapidCheck property suites with N random seeds (default 1000) and
# reports every seed that fails, with the failing tests. Not part of CI (which
# runs one fixed seed): a hunt for rare counterexamples, e.g. solver stalls.
#
#   packaging/seed-hunt.sh [-n N] [-d SECONDS] [-b BUILD_DIR] [-f GTEST_FILTER] [-t SUITE,...]
#
# Each seed runs every suite once (100 or 30 cases per property, as in CI).
# -d stops starting seeds after SECONDS (the summary gives the count run).
# Failing seeds are appended to BUILD_DIR/seed-hunt-failures.txt with the test
# names, and the whole output of each is kept in BUILD_DIR/seed-hunt-SEED-SUITE.log;
# replay one with RC_PARAMS="seed=S" BUILD_DIR/tests/engine/SUITE
# --gtest_filter=TEST. Exit status: 1 when any seed failed.
set -euo pipefail
cd "$(dirname "$0")/.."
count=1000
duration=0
build=build/ci
filter='*'
suites=test_solver_properties,test_lp,test_constraints,test_model,test_edits,test_mapping,test_presets,test_project_io,test_sensitivity,test_collective_model,test_hostile,test_training_loops
while getopts "n:d:b:f:t:h" opt; do
  case "$opt" in
    n) count=$OPTARG ;;
    d) duration=$OPTARG ;;
    b) build=$OPTARG ;;
    f) filter=$OPTARG ;;
    t) suites=$OPTARG ;;
    *) sed -n '2,14p' "$0"; exit 2 ;;
  esac
done
IFS=, read -r -a names <<<"$suites"
for s in "${names[@]}"; do
  if [[ ! -x "$build/tests/engine/$s" ]]; then
    echo "seed-hunt: $build/tests/engine/$s is not built (ninja -C $build $s)" >&2
    exit 2
  fi
done
failures="$build/seed-hunt-failures.txt"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
failed=0
started=$(date +%s)
ran=0
for ((i = 1; i <= count; i++)); do
  if ((duration > 0 && $(date +%s) - started >= duration)); then break; fi
  ran=$i
  # 64-bit seeds from the kernel, as RapidCheck draws them.
  seed=$(od -An -N8 -tu8 /dev/urandom | tr -d ' ')
  for s in "${names[@]}"; do
    if ! RC_PARAMS="seed=$seed" "$build/tests/engine/$s" --gtest_filter="$filter" \
      --gtest_brief=1 >"$log" 2>&1; then
      failed=$((failed + 1))
      tests=$(grep -E '^\[  FAILED  \] [A-Za-z]' "$log" | sed 's/^\[  FAILED  \] //; s/ (.*//' |
        sort -u | tr '\n' ' ')
      echo "seed $seed: $s: ${tests:-crashed}" | tee -a "$failures"
      cp "$log" "$build/seed-hunt-$seed-$s.log"
      grep -m3 -E 'not solved|Falsifiable|stalled|did not converge|iteration limit' "$log" |
        sed 's/^/    /' | cut -c1-300 || true
    fi
  done
  if ((i % 10 == 0)); then
    echo "seed-hunt: $i/$count seeds, $failed failures, $(($(date +%s) - started)) s"
  fi
done
summary="seed-hunt: $ran seeds x ${#names[@]} suites, $failed failures ($(($(date +%s) - started)) s)"
if ((failed > 0)); then summary+="; see $failures"; fi
echo "$summary"
((failed == 0))
