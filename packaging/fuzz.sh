#!/usr/bin/env bash
# Runs the libFuzzer targets of tests/fuzz (README, "Fuzzing").
#
#   packaging/fuzz.sh [-t SECONDS] [TARGET...]
#
# Builds the `fuzz` preset (clang 14, ASan + UBSan) when needed, assembles each
# target's seed corpus at run time (the reference inputs in ../shared/reference
# when present, resources/examples, tests/fuzz/seeds and the regression inputs),
# then runs each target for SECONDS (default 60) at low priority, one process,
# continuing after a crash, on inputs of at most 64 KB. Per target it prints the
# executions, exec/s and the new findings (crash-, timeout-, oom- and leak- files
# in build/fuzz/artifacts/TARGET/). The corpus grows in build/fuzz/corpus/TARGET
# from run to run; build/fuzz/runs.tsv records every run and the totals.
#
# Targets: network communicator cost workload project constraint (default: all).
# A finding replays with the GCC build: build/ci/tests/fuzz/fuzz_TARGET_replay FILE.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
all_targets=(network communicator cost workload project constraint)

seconds=60
while getopts "t:h" opt; do
  case $opt in
    t) seconds=$OPTARG ;;
    *)
      sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
      exit 2
      ;;
  esac
done
shift $((OPTIND - 1))
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  if [[ ! " ${all_targets[*]} " =~ \ $t\  ]]; then
    echo "fuzz.sh: unknown target '$t' (targets: ${all_targets[*]})" >&2
    exit 2
  fi
done
if ! [[ $seconds =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: -t expects a whole number of seconds, got '$seconds'" >&2
  exit 2
fi

# clang 14 and its libFuzzer and sanitizer runtimes (Debian 12), installed when missing.
missing=()
for p in clang-14 libfuzzer-14-dev libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "fuzz.sh: installing ${missing[*]}"
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo=sudo
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

build=$root/build/fuzz
if [[ ! -f $build/CMakeCache.txt ]]; then
  launcher=()
  command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake --preset fuzz "${launcher[@]}" > /dev/null
fi
nice -n 10 cmake --build --preset fuzz > "$build/build.log" 2>&1 ||
  { tail -30 "$build/build.log" >&2; exit 1; }

reference=$root/../shared/reference
# Copies the files matching the patterns (those that exist) into directory $1.
seed() {
  local dir=$1
  shift
  mkdir -p "$dir"
  for f in "$@"; do
    [[ -f $f ]] && cp "$f" "$dir/"
  done
  return 0
}

seed_corpus() {
  local target=$1 dir=$build/seeds/$1
  rm -rf "$dir"
  mkdir -p "$dir"
  case $target in
    network)
      seed "$dir" "$reference"/libra-inputs/network/*.yml "$reference"/sc22-inputs/network/*.json \
        resources/examples/networks/*.yml
      ;;
    communicator) seed "$dir" "$reference"/libra-inputs/communicator/*.yml ;;
    cost)
      seed "$dir" "$reference"/libra-inputs/cost_model/*.yml "$reference"/sc22-inputs/cost/*.json
      ;;
    workload)
      seed "$dir" "$reference"/libra-inputs/workload/*.txt "$reference"/sc22-inputs/workload/*.txt
      ;;
    project) seed "$dir" resources/examples/*.json tests/cli/data/*.json ;;
    constraint)
      # Every constraint of the bundled projects, one file each.
      python3 - "$dir" resources/examples/*.json tests/cli/data/*.json << 'EOF' || true
import json, sys
out, n = sys.argv[1], 0
for path in sys.argv[2:]:
    try:
        doc = json.load(open(path))
    except Exception:
        continue
    for c in doc.get("constraints", []) if isinstance(doc, dict) else []:
        if isinstance(c, str):
            n += 1
            open(f"{out}/example-{n}.txt", "w").write(c)
EOF
      ;;
  esac
  seed "$dir" tests/fuzz/seeds/"$target"/* tests/fuzz/regressions/"$target"/*
  # Inputs are cut at -max_len: a larger seed (the 550 KB example projects)
  # would only be mutated as a truncated, invalid file, each run slowly.
  find "$dir" -type f -size +64k -delete
}

dict_of() {
  case $1 in
    network | communicator | cost) echo tests/fuzz/dicts/yaml.dict ;;
    *) echo "tests/fuzz/dicts/$1.dict" ;;
  esac
}

log=$build/runs.tsv
[[ -f $log ]] || printf 'date\ttarget\tseconds\texecutions\texec_per_s\tfindings\n' > "$log"
printf '%-13s %14s %9s %9s  %s\n' target executions exec/s findings "total executions (all runs)"
for target in "${targets[@]}"; do
  seed_corpus "$target"
  corpus=$build/corpus/$target
  artifacts=$build/artifacts/$target
  mkdir -p "$corpus" "$artifacts"
  find "$artifacts" -type f | sort > "$build/$target.before"
  out=$build/$target.log
  # -fork=1 with -ignore_*: one worker at a time that is restarted after a
  # crash, timeout or OOM, so one finding does not end the run. An input that
  # runs longer than 10 s (with the sanitizers) is a timeout, one that needs
  # more than 2 GB an OOM: both are findings.
  nice -n 10 "$build/tests/fuzz/fuzz_$target" "$corpus" "$build/seeds/$target" \
    -dict="$(dict_of "$target")" -max_total_time="$seconds" -max_len=65536 -timeout=10 \
    -rss_limit_mb=2048 \
    -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -artifact_prefix="$artifacts/" > "$out" 2>&1 || true
  # Fork mode's status lines: "#1234567: cov: 812 ft: 3021 corp: 140 exec/s 9021 ...".
  last=$(grep -E '^#[0-9]+: cov' "$out" | tail -1 || true)
  execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<< "$last")
  rate=$(sed -nE 's/.*exec\/s:? ([0-9]+).*/\1/p' <<< "$last")
  new=$(find "$artifacts" -type f | sort | comm -13 "$build/$target.before" -)
  found=$(grep -c . <<< "$new" || true)
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$target" "$seconds" "${execs:-0}" \
    "${rate:-0}" "$found" >> "$log"
  total=$(awk -F'\t' -v t="$target" '$2 == t { s += $4 } END { printf "%d", s }' "$log")
  printf '%-13s %14s %9s %9s  %s\n' "$target" "${execs:-0}" "${rate:-0}" "$found" "$total"
  [[ $found -eq 0 ]] || sed 's/^/  /' <<< "$new"
done
echo "logs: $build/TARGET.log; findings: $build/artifacts/TARGET/; runs: $log"
