#!/usr/bin/env bash
# Endurance: libra-studio driven with continuous edits through its widgets for a
# minute (offscreen), and `libra sweep` over 21, 273 and 2,401 network shapes (up
# to 4,802 solves); prints memory and the solver's state and fails when a bound
# is broken. Takes about two minutes; not part of CI, whose short variants are
# ui.test_ui_headless (enduranceRunStaysWithinItsBounds: 3 s of edits, the same
# bounds) and test_sweep (MemoryGrowsOnlyWithTheShapesKept).
#
#   packaging/endurance.sh [-s SECONDS] [-b BUILD_DIR]     (defaults: 60, build/ci)
#
# Bounds. GUI (libra-studio --endurance, see ui/harness/endurance.hpp): after a
# warm-up that fills the undo history, the resident set grows at most 16 MB and
# the heap in use at most 4 MB; every checkpoint's request is answered within
# 30 s; the solver ends idle; the autosave reads back as the document. Sweeps:
# the peak resident set grows at most 8 kB per solved shape (each shape's result
# is kept for the ranking, 1.9 kB of heap; the solves leave nothing behind).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60
build=build/ci
while getopts "s:b:h" opt; do
  case "$opt" in
    s) seconds=$OPTARG ;;
    b) build=$OPTARG ;;
    *) sed -n '2,16p' "$0"; exit 2 ;;
  esac
done
studio="$build/app/studio/libra-studio"
libra="$build/app/libra/libra"
for program in "$studio" "$libra"; do
  if [[ ! -x "$program" ]]; then
    echo "endurance: $program is not built (ninja -C $build libra-studio libra)" >&2
    exit 2
  fi
done
if [[ ! -x /usr/bin/time ]]; then
  echo "endurance: /usr/bin/time is missing (packaging/deps.sh installs it: Debian package time)" >&2
  exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Settings, recent files and recovery files go to the temporary folder, not the user's.
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" XDG_CACHE_HOME="$tmp/cache"
export XDG_RUNTIME_DIR="$tmp/runtime"
mkdir -m 700 "$XDG_RUNTIME_DIR"
status=0

echo "== libra-studio --endurance $seconds (offscreen, bundled 4D GPT-3 example)"
if ! QT_QPA_PLATFORM=offscreen "$studio" --endurance "$seconds"; then
  status=1
fi

echo
echo "== libra sweep --preset gpt3-175b --tp 8 --pp 8 --ignore-memory --npus 16384"
echo "   --blocks Ring,FullyConnected --dims D  (both objectives per shape, 2 threads)"
printf '%-6s %8s %8s %10s %14s %16s\n' dims shapes solves seconds "peak RSS kB" "kB per shape"
first_shapes=""
first_rss=""
for dims in 2 2..3 2..4; do
  /usr/bin/time -f '%M %e' -o "$tmp/time" "$libra" sweep --preset gpt3-175b --tp 8 --pp 8 \
    --ignore-memory --npus 16384 --blocks Ring,FullyConnected --dims "$dims" >"$tmp/out" \
    2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  shapes=$(sed -n 's/^Shapes .* \([0-9][0-9]*\) solved.*/\1/p' "$tmp/out")
  read -r rss wall <"$tmp/time"
  if [[ -z "$first_shapes" ]]; then
    first_shapes=$shapes
    first_rss=$rss
    slope="-"
  else
    slope=$(awk -v r="$rss" -v r0="$first_rss" -v s="$shapes" -v s0="$first_shapes" \
      'BEGIN { printf "%.2f", (r - r0) / (s - s0) }')
    if awk -v x="$slope" 'BEGIN { exit !(x > 8) }'; then
      echo "FAILED: the peak resident set grew $slope kB per shape (bound 8 kB)"
      status=1
    fi
  fi
  printf '%-6s %8s %8s %10s %14s %16s\n' "$dims" "$shapes" $((2 * shapes)) "$wall" "$rss" "$slope"
done

echo
if [[ $status -eq 0 ]]; then
  echo "endurance: every bound held"
else
  echo "endurance: a bound was broken (see FAILED above)"
fi
exit $status
