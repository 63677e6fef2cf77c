#!/usr/bin/env bash
# Fails when a C++ source of the repository differs from what the checked-in
# .clang-format gives (clang-format 14, Debian 12). Fix with: clang-format -i FILE
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h')
if clang-format --dry-run --Werror "${files[@]}"; then
  echo "format: ${#files[@]} files match .clang-format"
else
  echo "format: the files above differ from .clang-format (clang-format -i them)" >&2
  exit 1
fi
