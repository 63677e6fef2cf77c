#!/usr/bin/env bash
# Runs a GUI test binary on its own X server (Xvfb, a 1366x768 laptop screen)
# under a window manager (openbox), with the xcb platform: the window gets a
# frame, focus and real pointer events from the server. Used by ctest for
# tests/ui/test_hover_x11.cpp; packaging/deps.sh installs xvfb and openbox.
# Usage: tests/ui/run_with_window_manager.sh TEST_BINARY [ARGS...]
set -euo pipefail
for tool in xvfb-run openbox xprop; do
  if ! command -v "$tool" >/dev/null; then
    echo "run_with_window_manager: '$tool' is missing: install xvfb, openbox and x11-utils" \
      "(packaging/deps.sh does)" >&2
    exit 1
  fi
done
exec xvfb-run -a -s "-screen 0 1366x768x24" bash -c '
  openbox >/dev/null 2>&1 &
  wm=$!
  # Until the window manager has taken the screen (EWMH: its check window).
  for _ in $(seq 100); do
    if xprop -root _NET_SUPPORTING_WM_CHECK 2>/dev/null | grep -q "window id"; then break; fi
    sleep 0.1
  done
  status=0
  QT_QPA_PLATFORM=xcb "$0" "$@" || status=$?
  kill "$wm" 2>/dev/null || true
  exit "$status"' "$@"
