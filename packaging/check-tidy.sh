#!/usr/bin/env bash
# Runs clang-tidy (checks in .clang-tidy) on the sources of engine/, report/,
# app/ and ui/ with the compile commands of a configured build. Every finding is
# an error.
#
#   packaging/check-tidy.sh [--changed] [--record] [BUILD_DIR]   (default build/ci)
#
# Without options: every source (about 10 minutes on the 2-core machine).
# --changed (what .ci/run does): only the sources that differ from the commit in
#   packaging/tidy-baseline, the last commit at which every source was clean,
#   and the sources that include a changed header (directly or through other
#   headers). A change to .clang-tidy, or a baseline that this clone does not
#   have (a shallow clone), means every source.
# --record: after a clean run over every source, write HEAD to
#   packaging/tidy-baseline (only with no uncommitted change to a source); commit
#   it so that CI checks only what changes after it.
set -euo pipefail
cd "$(dirname "$0")/.."
changed=0
record=0
while [[ $# -gt 0 && "$1" == --* ]]; do
  case "$1" in
    --changed) changed=1 ;;
    --record) record=1 ;;
    *) sed -n '2,17p' "$0" >&2; exit 2 ;;
  esac
  shift
done
build="${1:-build/ci}"
if [[ ! -f "$build/compile_commands.json" ]]; then
  echo "tidy: $build/compile_commands.json is missing; configure first (cmake --preset ci)" >&2
  exit 2
fi
dirs=(engine report app ui)
mapfile -t all < <(git ls-files 'engine/*.cpp' 'report/*.cpp' 'app/*.cpp' 'ui/*.cpp')
files=("${all[@]}")
scope="every source"
if ((changed)); then
  baseline=$(tr -d '[:space:]' <packaging/tidy-baseline 2>/dev/null || true)
  if [[ -z "$baseline" ]] || ! git cat-file -e "$baseline^{commit}" 2>/dev/null; then
    echo "tidy: baseline '${baseline:-none}' is not in this clone; checking every source"
  elif ! git diff --quiet "$baseline" -- .clang-tidy; then
    echo "tidy: .clang-tidy changed since $baseline; checking every source"
  else
    # Changed files since the baseline (committed or not, tracked or new).
    mapfile -t touched < <({ git diff --name-only "$baseline" -- "${dirs[@]}";
                             git ls-files --others --exclude-standard -- "${dirs[@]}"; } | sort -u)
    # Headers that include a changed header, until nothing new is found.
    declare -A header=()
    for f in "${touched[@]}"; do [[ "$f" == *.hpp && -f "$f" ]] && header[$f]=1; done
    mapfile -t all_headers < <(git ls-files "${dirs[@]/%//*.hpp}")
    grown=1
    while ((grown)); do
      grown=0
      for h in "${all_headers[@]}"; do
        [[ -n "${header[$h]:-}" ]] && continue
        for c in "${!header[@]}"; do
          if grep -qE "#include [<\"](.*/)?$(basename "$c")[>\"]" "$h"; then
            header[$h]=1
            grown=1
            break
          fi
        done
      done
    done
    files=()
    for f in "${all[@]}"; do
      hit=0
      for t in "${touched[@]}"; do [[ "$f" == "$t" ]] && hit=1 && break; done
      if ((!hit)); then
        for c in "${!header[@]}"; do
          if grep -qE "#include [<\"](.*/)?$(basename "$c")[>\"]" "$f"; then hit=1 && break; fi
        done
      fi
      ((hit)) && files+=("$f")
    done
    scope="the sources changed since $(git rev-parse --short "$baseline") (packaging/tidy-baseline)"
    if ((${#files[@]} == 0)); then
      echo "tidy: nothing changed since $(git rev-parse --short "$baseline"); nothing to check"
      exit 0
    fi
  fi
fi
jobs=$(nproc 2>/dev/null || echo 2)
log=$(mktemp)
db=$(mktemp -d)
trap 'rm -rf "$log" "$db"' EXIT
# A unity build (the ci preset's) compiles each target's sources through
# generated unity_N_cxx.cxx files, and its compile commands name only those:
# each source gets its unity file's command. A source with no command at all
# is an error, never silently left out (run-clang-tidy skips such files).
python3 - "$build/compile_commands.json" "$db/compile_commands.json" "${files[@]}" <<'PY'
import json, os, re, sys
entries = json.load(open(sys.argv[1]))
out = []
for e in entries:
    f = e["file"]
    if not re.search(r"/Unity/unity_\d+_cxx\.cxx$", f):
        out.append(e)
        continue
    for line in open(f):
        m = re.match(r'#include "(.+)"', line.strip())
        if not m:
            continue
        source = m.group(1)
        c = dict(e, file=source)
        if "command" in c:
            c["command"] = c["command"].replace(f, source)
        if "arguments" in c:
            c["arguments"] = [source if a == f else a for a in c["arguments"]]
        out.append(c)
json.dump(out, open(sys.argv[2], "w"), indent=1)
known = {os.path.realpath(e["file"]) for e in out}
missing = [f for f in sys.argv[3:] if os.path.realpath(f) not in known]
if missing:
    sys.exit("tidy: no compile command for " + ", ".join(missing) + " in " + sys.argv[1])
PY
start=$(date +%s)
echo "tidy: ${#files[@]} of ${#all[@]} files: $scope"
# GCC-only flags in the compile commands (-Wno-restrict) are unknown to clang.
if run-clang-tidy -p "$db" -quiet -j "$jobs" -extra-arg=-Wno-unknown-warning-option "${files[@]}" >"$log" 2>&1; then
  echo "tidy: ${#files[@]} files clean in $(($(date +%s) - start)) s"
else
  grep -E "(warning|error):" "$log" | sort -u >&2 || cat "$log" >&2
  echo "tidy: clang-tidy found the problems above" >&2
  exit 1
fi
if ((record)); then
  if ((${#files[@]} != ${#all[@]})); then
    echo "tidy: --record needs a run over every source (leave out --changed)" >&2
    exit 2
  fi
  if ! git diff --quiet HEAD -- "${dirs[@]}" .clang-tidy; then
    echo "tidy: uncommitted changes to sources; commit them, then run --record again" >&2
    exit 2
  fi
  git rev-parse HEAD >packaging/tidy-baseline
  echo "tidy: packaging/tidy-baseline is now $(git rev-parse --short HEAD); commit it"
fi
