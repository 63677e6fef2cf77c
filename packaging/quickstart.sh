#!/usr/bin/env bash
# Quick start: installs what is needed, builds, and runs Libra Studio on the
# bundled example project. Without a display it runs headless instead: prints the
# optimum and writes the Pareto chart to libra-studio-chart.png.
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/deps.sh
cmake --preset default
cmake --build --preset default --target libra libra-studio
studio=build/app/studio/libra-studio
if [[ -n "${DISPLAY:-}" || -n "${WAYLAND_DISPLAY:-}" ]]; then
  exec "$studio" "$@"
fi
echo "No display found: running headless (set DISPLAY to open the window)."
exec "$studio" "$@" --export-chart libra-studio-chart.png
