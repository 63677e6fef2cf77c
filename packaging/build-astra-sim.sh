#!/usr/bin/env bash
# Builds ASTRA-sim 2 (analytical backend) and its Chakra submodule at the commits
# Libra Studio's export was checked with (tests/data/astra-sim/README.md,
# docs/validation.md), with the local fixes in packaging/astra-sim/local-fixes.patch
# (yaml-cpp from Debian instead of a download; Chakra::FeederV3::ETFeeder spelled
# out); neither touches timing code.
#
# usage: packaging/build-astra-sim.sh [DIR]      (default DIR: ./astra-sim)
#
# Environment:
#   ASTRA_SIM_GIT_BASE  where the repositories are cloned from (default
#                       https://github.com); DIR/<owner>/<name> or a base URL under
#                       which <owner>/<name> (or <owner>+<name>/repo, the layout of
#                       a local mirror) are found
#   ASTRA_SIM_NO_APT=1  do not install the Debian build dependencies
#   ASTRA_SIM_JOBS      parallel compile jobs (default: the number of cores)
#
# Afterwards: DIR/build/astra_analytical/build/bin/AstraSim_Analytical_Congestion_Unaware
# and DIR/extern/graph_frontend/chakra/schema/protobuf/et_def_pb2.py exist; the
# README of an export names what to run with them. Running it again reuses the
# checkout (it is reset to the commits and patched again) and the build.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
DIR=${1:-astra-sim}
BASE=${ASTRA_SIM_GIT_BASE:-https://github.com}
JOBS=${ASTRA_SIM_JOBS:-$(nproc)}

# The commits (ASTRA-sim's own pins of Chakra, the analytical network backend and
# spdlog were not available; these are the ones every validation used).
ASTRA_SIM_COMMIT=518bd513ae110428cd62eb60efc0f3993fd53c70
declare -A SUBMODULES=(
  [extern/graph_frontend/chakra]="astra-sim/chakra f37c2bb50afa8b0e99b32ba9921662ab77502e85"
  [extern/network_backend/analytical]="astra-sim/astra-network-analytical 599a0473a9a74f5383f73b3cea5a12b9bc5ebaef"
  [extern/remote_memory_backend/analytical]="astra-sim/astra-memory-analytical 641cce854d256bfd288b1de9607b6757313363f9"
  [extern/helper/fmt]="fmtlib/fmt 7e73566ce7bd3617cd4b14a2e3a19a2a30b524c7"
  [extern/helper/spdlog]="gabime/spdlog 62302019babd8fdf63c1c6dc4c9faa48d441a7f0"
)

say() { printf 'build-astra-sim: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# The clone URL of owner/name under BASE.
url() {
  local repo=$1
  if [[ -d "$BASE/${repo/\//+}/repo" ]]; then
    echo "$BASE/${repo/\//+}/repo"
  elif [[ -d "$BASE/$repo" ]]; then
    echo "$BASE/$repo"
  else
    echo "$BASE/$repo.git"
  fi
}

install_deps() {
  [[ ${ASTRA_SIM_NO_APT:-0} == 1 ]] && return
  local pkgs=(git cmake g++ make protobuf-compiler libprotobuf-dev libyaml-cpp-dev
              python3 python3-protobuf)
  local missing=()
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
      missing+=("$p")
  done
  [[ ${#missing[@]} -eq 0 ]] && return
  command -v apt-get >/dev/null || die "missing packages ${missing[*]} and no apt-get; install them or set ASTRA_SIM_NO_APT=1"
  local sudo=()
  [[ $(id -u) -ne 0 ]] && sudo=(sudo)
  say "installing ${missing[*]}"
  "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
}

# Clones (or reuses) DIR at SRC and checks out COMMIT detached, clean; with a
# fourth argument "sparse", without the repository's tests/ (the build needs
# none, and some snapshots lack their test data; git may still print "invalid
# object" for such a skipped file, which is harmless).
checkout() {
  local dir=$1 src=$2 commit=$3 sparse=${4:-}
  if [[ ! -d "$dir/.git" && ! -f "$dir/.git" ]]; then
    rm -rf "$dir"
    git clone --quiet --no-checkout "$src" "$dir"
  fi
  if [[ $sparse == sparse ]]; then
    git -C "$dir" config core.sparseCheckout true
    printf '/*\n!/tests/\n' >"$(git -C "$dir" rev-parse --absolute-git-dir)/info/sparse-checkout"
  fi
  if ! git -C "$dir" cat-file -e "$commit^{commit}" 2>/dev/null; then
    git -C "$dir" fetch --quiet "$src" || true
  fi
  git -C "$dir" cat-file -e "$commit^{commit}" 2>/dev/null ||
    die "$src has no commit $commit"
  git -C "$dir" checkout --quiet --force --detach "$commit"
  git -C "$dir" clean --quiet -fdx -e build/
}

install_deps
say "ASTRA-sim $ASTRA_SIM_COMMIT into $DIR (from $BASE)"
checkout "$DIR" "$(url astra-sim/astra-sim)" "$ASTRA_SIM_COMMIT"
for path in "${!SUBMODULES[@]}"; do
  read -r repo commit <<<"${SUBMODULES[$path]}"
  say "$path: $repo $commit"
  # Plain clones, not `git submodule update`: the pinned commits of three of them
  # are not the ones used here.
  rm -rf "${DIR:?}/$path"
  checkout "$DIR/$path" "$(url "$repo")" "$commit" sparse
done

say "applying packaging/astra-sim/local-fixes.patch"
patch -d "$DIR" -p1 --forward --quiet <"$HERE/astra-sim/local-fixes.patch" ||
  die "local-fixes.patch does not apply to $DIR"

say "building the analytical backend ($JOBS jobs)"
NUM_THREADS=$JOBS
(cd "$DIR" && sed -i "s/^  NUM_THREADS=\$(nproc)$/  NUM_THREADS=$NUM_THREADS/" \
   build/astra_analytical/build.sh && bash build/astra_analytical/build.sh)

BIN="$DIR/build/astra_analytical/build/bin/AstraSim_Analytical_Congestion_Unaware"
[[ -x "$BIN" ]] || die "the build did not make $BIN"
[[ -f "$DIR/extern/graph_frontend/chakra/schema/protobuf/et_def_pb2.py" ]] ||
  die "the build did not generate Chakra's et_def_pb2.py"
say "done: $BIN"
