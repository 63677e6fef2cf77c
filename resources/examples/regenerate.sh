#!/bin/sh
# Regenerates the example projects bundled with libra-studio (gpt3-3d.json and
# gpt3-4d.json, compiled into the GUI's resources) with the project's own
# command line: GPT-3 175B (TP 16, data parallel over the remaining 256 NPUs) on
# an H100, on the two 4,096-NPU networks of the LIBRA paper (networks/*.yml),
# priced with the paper's reference unit prices. Its published global batch of
# 1536 sequences of 2048 tokens is the work of an iteration. So that the design
# fits the H100's 80 GB (without them it needs 214.5 GB per GPU), it uses ZeRO
# stage 1 (Megatron-LM's distributed optimizer), sequence parallelism and
# selective recomputation (Korthikanti et al., arXiv:2205.05198): 49 GB per GPU. Run it after a change to the
# presets, the generator or the project format, then rebuild the GUI.
#
# Usage: resources/examples/regenerate.sh [LIBRA [DIRECTORY]]
#   LIBRA      the libra program (default: $LIBRA, else 'libra' on the PATH),
#              e.g. build/app/libra/libra
#   DIRECTORY  where to write the projects (default: next to this script)
#
# The CLI test BundledExamplesAreMadeByLibraNew runs this script into a scratch
# directory and checks that the bundled files are byte for byte what it writes.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
libra=${1:-${LIBRA:-libra}}
out=${2:-$here}

"$libra" new --execution given --preset gpt3-175b --device h100 --tp 16 \
  --zero 1 --sequence-parallel --selective-recompute \
  --network "$here/networks/gpt3-3d.yml" \
  --constraint 'total == 500' \
  -o "$out/gpt3-3d.json"

"$libra" new --execution given --preset gpt3-175b --device h100 --tp 16 \
  --zero 1 --sequence-parallel --selective-recompute \
  --network "$here/networks/gpt3-4d.yml" \
  --constraint 'total == 1000' --constraint 'bw[chiplet] >= bw[package]' \
  -o "$out/gpt3-4d.json"
