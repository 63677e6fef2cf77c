#!/usr/bin/env bash
# Installs the Debian 12 packages Libra Studio needs to build, test and run.
# Idempotent: packages already installed are skipped, and apt-get runs only when
# something is missing. Usage: packaging/deps.sh [--no-gui]
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  dpkg-dev  # dpkg-shlibdeps: the Debian package's dependencies (cpack -G DEB)
  libeigen3-dev coinor-libipopt-dev
  nlohmann-json3-dev libyaml-cpp-dev libcli11-dev
  libgtest-dev librapidcheck-dev libbenchmark-dev
  libexpat1-dev  # the report tests read the HTML and SVG back as XML
  libopenmpi-dev openmpi-bin  # mpirun -n P libra codesign (LIBRA_WITH_MPI, on in the presets)
  locales  # localedef: the decimal-comma locale of a GUI test
  clang-format clang-tidy  # .ci/run checks formatting and runs clang-tidy (both 14 on Debian 12)
  clang-14 libclang-rt-14-dev  # the ci preset's compiler (a third faster than GCC here) and its sanitizers
  lld  # the ci preset links with LLVM's linker: its 53 sanitized executables in 28 s instead of 68 s
  time  # /usr/bin/time: packaging/endurance.sh reports the sweeps' peak memory with it
)
if [[ "${1:-}" != "--no-gui" ]]; then
  packages+=(
    qt6-base-dev qt6-base-dev-tools qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libgl-dev
    qt6-qpa-plugins xvfb xauth
    openbox x11-utils  # a window manager and xprop: the hover test on Xvfb with real pointer events
    appstream desktop-file-utils  # the packaging test validates the metainfo and .desktop file
    poppler-utils  # pdftoppm: the GUI tests rasterize the PDF export and the PDF report
    librsvg2-bin  # rsvg-convert: a GUI test draws the SVG export as librsvg does
  )
fi

sudo=""
if [[ $(id -u) -ne 0 ]]; then
  sudo="sudo"
fi

# A locale with a decimal comma, for the test that the GUI reads and prints
# numbers the same under it (tests/ui/test_headless.cpp). Generated once.
ensure_test_locale() {
  if ! locale -a 2>/dev/null | grep -qix 'de_DE.utf8'; then
    echo "deps: generating the de_DE.UTF-8 locale"
    $sudo localedef -i de_DE -f UTF-8 de_DE.UTF-8
  fi
}

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "deps: all ${#packages[@]} packages are installed"
  ensure_test_locale
  exit 0
fi

echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
ensure_test_locale
