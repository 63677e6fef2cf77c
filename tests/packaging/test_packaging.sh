#!/usr/bin/env bash
# Installing and packaging, end to end:
#  1. `cmake --install` into a temporary DESTDIR installs the programs, the
#     .desktop file, the icon and the AppStream metainfo, and they agree with
#     each other (Icon=, Exec=, launchable, provides).
#  2. `cpack -G DEB` builds the Debian package; its control fields and Depends
#     (the Qt libraries and qt6-qpa-plugins) are checked, and it holds exactly
#     the files that `cmake --install` installs.
#  3. The package is unpacked with `dpkg -x` into a temporary root and both
#     programs run from there, headless and away from the source and build trees:
#     `libra --help`, `libra presets`, and
#     `libra-studio --export-chart OUT.png` on the bundled example.
# Usage: test_packaging.sh BUILD_DIR CMAKE CPACK VERSION GUI(ON|OFF)
set -euo pipefail

build_dir=$1 cmake=$2 cpack=$3 version=$4 gui=$5
app_id=io.github.libra_studio.LibraStudio

failures=0
pass() { echo "ok: $*"; }
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
check() {  # check DESCRIPTION COMMAND...: a check that fails without stopping the rest
  local what=$1
  shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}
need() { command -v "$1" >/dev/null || { echo "FAIL: $1 not found (${2})" >&2; exit 1; }; }
need dpkg-deb "package dpkg"
need dpkg-shlibdeps "package dpkg-dev, see packaging/deps.sh"
need readelf "package binutils"

work=$(mktemp -d "${TMPDIR:-/tmp}/libra-packaging.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/runtime" "$work/out"
chmod 700 "$work/runtime"

programs=(libra)
if [[ $gui == ON ]]; then programs+=(libra-studio); fi

# ---- 1. cmake --install into a DESTDIR ----------------------------------------------------
stage=$work/destdir
DESTDIR=$stage "$cmake" --install "$build_dir" --prefix /usr >"$work/install.log" 2>&1 ||
  { cat "$work/install.log" >&2; echo "FAIL: cmake --install" >&2; exit 1; }
pass "cmake --install into DESTDIR ($(grep -c '^-- Installing' "$work/install.log") files)"

# No RPATH/RUNPATH: nothing of ours is a shared library, and nothing may point
# back into the build tree.
no_rpath() { ! readelf -d "$1" | grep -Eq '\((RPATH|RUNPATH)\)'; }
for p in "${programs[@]}"; do
  check "installs usr/bin/$p" test -x "$stage/usr/bin/$p"
  check "usr/bin/$p has no RPATH or RUNPATH" no_rpath "$stage/usr/bin/$p"
done

if [[ $gui == ON ]]; then
  desktop=$stage/usr/share/applications/$app_id.desktop
  metainfo=$stage/usr/share/metainfo/$app_id.metainfo.xml
  check "installs the .desktop file" test -f "$desktop"
  check "installs the AppStream metainfo" test -f "$metainfo"
  icon=$(sed -n 's/^Icon=//p' "$desktop")
  exec_line=$(sed -n 's/^Exec=//p' "$desktop")
  exec_program=${exec_line%% *}
  check "the .desktop Icon= ($icon) is the installed scalable icon" \
    test -f "$stage/usr/share/icons/hicolor/scalable/apps/$icon.svg"
  check "the installed icon is an SVG" grep -q "<svg" "$stage/usr/share/icons/hicolor/scalable/apps/$icon.svg"
  exec_ok() { [[ $exec_program != */* && -x $stage/usr/bin/$exec_program ]]; }
  check "the .desktop Exec= ($exec_program) is an installed program, by name not path" exec_ok
  check "the metainfo launches the installed .desktop file" \
    grep -q "<launchable type=\"desktop-id\">$app_id.desktop</launchable>" "$metainfo"
  check "the metainfo names the installed program" grep -q "<binary>libra-studio</binary>" "$metainfo"
  check "the metainfo id is the application id" grep -q "<id>$app_id</id>" "$metainfo"
  if command -v appstreamcli >/dev/null; then
    check "appstreamcli validate --no-net" appstreamcli validate --no-net "$metainfo"
  else
    echo "skip: appstreamcli not installed (package appstream)"
  fi
  if command -v desktop-file-validate >/dev/null; then
    check "desktop-file-validate" desktop-file-validate "$desktop"
  else
    echo "skip: desktop-file-validate not installed (package desktop-file-utils)"
  fi
fi

# ---- 2. the Debian package ----------------------------------------------------------------
# -B keeps CPack's staging tree and the package in the temporary directory.
"$cmake" -E chdir "$build_dir" "$cpack" -G DEB -B "$work/cpack" >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log" >&2; echo "FAIL: cpack -G DEB" >&2; exit 1; }
debs=("$work"/cpack/*.deb)
[[ ${#debs[@]} -eq 1 && -f ${debs[0]} ]] || { cat "$work/cpack.log" >&2; echo "FAIL: no .deb" >&2; exit 1; }
deb=${debs[0]}
arch=$(dpkg --print-architecture)
check "the package file is libra-studio_${version}_$arch.deb" \
  test "$(basename "$deb")" = "libra-studio_${version}_$arch.deb"
echo "package: $(basename "$deb"), $(du -k "$deb" | cut -f1) KiB"

field() { dpkg-deb -f "$deb" "$1"; }
check "Package: libra-studio" test "$(field Package)" = libra-studio
check "Version: $version" test "$(field Version)" = "$version"
check "Section: science" test "$(field Section)" = science
check "Maintainer is set" test -n "$(field Maintainer)"
check "Description is set" test -n "$(field Description)"
depends=$(field Depends)
echo "Depends: $depends"
# The package names in Depends, one a line (versions and alternatives dropped).
dep_names=$(tr ',' '\n' <<<"$depends" | sed 's/(.*)//; s/|.*//; s/ //g')
has_dep() { grep -qxF "$1" <<<"$dep_names"; }
wanted=(libc6 libstdc++6)
if [[ $gui == ON ]]; then
  wanted+=(libqt6core6 libqt6gui6 libqt6widgets6 libqt6charts6 libqt6svg6 qt6-qpa-plugins)
fi
for p in "${wanted[@]}"; do check "Depends lists $p" has_dep "$p"; done
# Every dependency names a real package: here, one that is installed (the
# programs were linked against them), and none is listed twice.
check "no dependency is listed twice" test -z "$(sort <<<"$dep_names" | uniq -d)"
known_package() { dpkg-query -W "$1" >/dev/null 2>&1; }
for alt in $dep_names; do
  check "dependency $alt is a known package" known_package "$alt"
done

# The package holds exactly what cmake --install installs.
(cd "$stage" && find . -type f -o -type l | sort) >"$work/installed.txt"
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print $6}' | sort >"$work/packaged.txt"
if cmp -s "$work/installed.txt" "$work/packaged.txt"; then
  pass "the package holds the installed files ($(wc -l <"$work/packaged.txt"))"
else
  fail "the package holds the installed files (< installed, > packaged)"
  diff "$work/installed.txt" "$work/packaged.txt" >&2 || true
fi

# ---- 3. run the unpacked programs -------------------------------------------------------
root=$work/root
dpkg -x "$deb" "$root"
finds_libraries() { ! ldd "$1" | grep -q 'not found'; }
for p in "${programs[@]}"; do
  check "the package's usr/bin/$p finds every library it needs" finds_libraries "$root/usr/bin/$p"
done

# A clean environment: no display, no library or plugin path, a fresh HOME, and
# the working directory outside the source and build trees.
run() {
  (cd "$work/out" && env -i PATH=/usr/bin:/bin HOME="$work/home" XDG_RUNTIME_DIR="$work/runtime" \
    LANG=C.UTF-8 QT_QPA_PLATFORM=offscreen "$@")
}
libra() { run "$root/usr/bin/libra" "$@"; }
libra_help() { libra --help >"$work/help.txt"; }
libra_version() { libra --version >"$work/version.txt"; }
libra_presets() { libra presets >"$work/presets.txt"; }
check "libra --help exits 0" libra_help
check "libra --help prints the usage" grep -qi "usage" "$work/help.txt"
check "libra --version exits 0" libra_version
check "libra --version prints $version" grep -qF "$version" "$work/version.txt"
check "libra presets exits 0" libra_presets
check "libra presets lists presets" test -s "$work/presets.txt"

if [[ $gui == ON ]]; then
  png=$work/out/chart.png
  if run "$root/usr/bin/libra-studio" --export-chart "$png" >"$work/studio.out" 2>"$work/studio.err"; then
    pass "libra-studio --export-chart exits 0"
  else
    fail "libra-studio --export-chart exits 0 (stderr follows)"
    cat "$work/studio.err" >&2
  fi
  check "libra-studio reports the optimum" grep -q "status: optimal" "$work/studio.out"
  is_png() { [[ -s $1 && $(head -c 8 "$1" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]]; }
  check "libra-studio writes a PNG" is_png "$png"
  if [[ -s $work/studio.err ]]; then
    echo "libra-studio stderr:"
    sed 's/^/  /' "$work/studio.err"
  fi
fi

if [[ $failures -ne 0 ]]; then
  echo "packaging: $failures check(s) failed" >&2
  exit 1
fi
echo "packaging: all checks passed"
