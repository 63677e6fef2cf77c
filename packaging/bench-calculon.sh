#!/usr/bin/env bash
# Measures Libra Studio's execution search against Calculon's on this machine, one
# after the other (issue 25, item 4; docs/validation.md section 7): Calculon's
# `llm-optimal-execution` of Turing-NLG 530B on 5,128 A100 (its "calculation
# rate", on 2 processes) and libra_bench's BM_Executions* rows (one thread),
# then the ratios.
#
# usage: packaging/bench-calculon.sh BUILD_DIR [CALCULON_DIR]
#
# CALCULON_DIR: a checkout of github.com/calculon-ai/calculon (the measurements
# used commit caa4b11); cloned from CALCULON_GIT (default
# https://github.com/calculon-ai/calculon) into ./calculon when not given.
# Calculon needs Debian's python3-numpy, python3-pandas and python3-psutil
# (installed here unless CALCULON_NO_APT=1); it runs with /usr/bin/python3, whose
# packages those are.
set -euo pipefail

BUILD=${1:?usage: packaging/bench-calculon.sh BUILD_DIR [CALCULON_DIR]}
CALC=${2:-calculon}
BENCH="$BUILD/tests/bench/libra_bench"
[ -x "$BENCH" ] || { echo "bench-calculon: $BENCH not found; build the project first" >&2; exit 2; }

if [ ! -d "$CALC/calculon" ]; then
  git clone -q "${CALCULON_GIT:-https://github.com/calculon-ai/calculon}" "$CALC"
  git -C "$CALC" checkout -q caa4b11
fi
if [ "${CALCULON_NO_APT:-0}" != 1 ] && [ "$(id -u)" = 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-numpy python3-pandas \
    python3-psutil >/dev/null
fi

echo "Calculon $(git -C "$CALC" rev-parse --short HEAD): llm-optimal-execution turing-530B 5128 2520 on a100_80g, 2 processes"
OUT=$(mktemp --suffix=.json)
trap 'rm -f "$OUT"' EXIT
CALC_LOG=$(cd "$CALC" && PYTHONPATH=. /usr/bin/python3 bin/calculon llm-optimal-execution \
  models/turing-530B.json 5128 2520 float16 systems/a100_80g.json "$OUT" -m -c 2 2>&1)
echo "$CALC_LOG" | sed 's/^/  /'
RATE=$(echo "$CALC_LOG" | sed -n 's/^Calculation rate: \([0-9.]*\).*/\1/p')
[ -n "$RATE" ] || { echo "bench-calculon: Calculon printed no calculation rate" >&2; exit 1; }

echo "libra_bench (one thread): MT-NLG 530B on 5,120 A100, Switch 8 x Switch 640, batch 2,560"
JSON=$("$BENCH" --benchmark_filter='BM_Executions' --benchmark_format=json 2>/dev/null)
python3 - "$RATE" "$JSON" <<'EOF'
import json, sys
rate = float(sys.argv[1])
runs = json.loads(sys.argv[2])["benchmarks"]
print(f"  Calculon: {rate:,.1f} executions/s")
for r in runs:
    name = r["name"].replace("BM_", "")
    print(f"  {name}: {r['executions']:,.0f} executions, {r['evaluated']:,.0f} timed, "
          f"{r['real_time']:.1f} {r['time_unit']} per search")
    for key in ("executions/s", "checked/s", "evaluated/s"):
        print(f"    {key:13s} {r[key]:12,.0f}   {r[key] / rate:8.1f}x Calculon")
EOF
