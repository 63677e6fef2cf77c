#!/usr/bin/env bash
# Runs clang-tidy (checks in .clang-tidy) on every source of engine/, app/ and ui/
# with the compile commands of a configured build. Usage: check-tidy.sh [BUILD_DIR]
# (default build/ci). Every finding is an error.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/ci}"
if [[ ! -f "$build/compile_commands.json" ]]; then
  echo "tidy: $build/compile_commands.json is missing; configure first (cmake --preset ci)" >&2
  exit 2
fi
mapfile -t files < <(git ls-files 'engine/*.cpp' 'report/*.cpp' 'app/*.cpp' 'ui/*.cpp')
jobs=$(nproc 2>/dev/null || echo 2)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s)
# GCC-only flags in the compile commands (-Wno-restrict) are unknown to clang.
if run-clang-tidy -p "$build" -quiet -j "$jobs" -extra-arg=-Wno-unknown-warning-option "${files[@]}" >"$log" 2>&1; then
  echo "tidy: ${#files[@]} files clean in $(($(date +%s) - start)) s"
else
  grep -E "(warning|error):" "$log" | sort -u >&2 || cat "$log" >&2
  echo "tidy: clang-tidy found the problems above" >&2
  exit 1
fi
