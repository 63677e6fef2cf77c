# Debian package of Libra Studio: `cpack -G DEB` in the build directory (or the
# build's `package` target) writes libra-studio_<version>_<arch>.deb with what
# `cmake --install` installs: libra, libra-studio, the .desktop file, the icon
# and the AppStream metainfo. Included from the top-level CMakeLists.txt.
#
# Run-time dependencies: dpkg-shlibdeps (package dpkg-dev) reads the programs'
# linked libraries (Qt, IPOPT, yaml-cpp, libstdc++...; with LIBRA_WITH_MPI, on
# in the default preset, Open MPI's libopenmpi3 for `mpirun ... libra codesign`:
# plain runs never start MPI, and start as fast). What Qt loads as a plugin
# is not a linked library:
#   qt6-qpa-plugins  Qt's platform plugin package, listed by hand. (In Debian 12
#                    libqt6gui6 itself carries the xcb, offscreen and minimal
#                    platforms and only recommends this package, which adds vnc.)
#   libqt6svg6       the SVG icon engine and image plugins (the window icon is an
#                    SVG). It comes from dpkg-shlibdeps, as libra_ui links Qt6::Svg
#                    for SVG export; tests/packaging checks that it is there.
set(LIBRA_PACKAGE_MAINTAINER
    "Libra Studio maintainers <maintainers@users.noreply.a-seed-17439282.example>"
    CACHE STRING "Maintainer field of the Debian package")

set(CPACK_PACKAGE_NAME libra-studio)
set(CPACK_PACKAGE_VENDOR "Libra Studio")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
"Libra Studio finds how to split each NPU's network bandwidth across the
dimensions of a multi-dimensional network (rings, fully connected groups,
switches) so that a training workload runs fastest, or best per dollar, and
draws the Pareto front of iteration time against network cost. It implements
the LIBRA model (ISPASS 2024).

This package holds the command line libra and the desktop GUI libra-studio.")
set(CPACK_PACKAGE_CONTACT "${LIBRA_PACKAGE_MAINTAINER}")
if(NOT CPACK_GENERATOR)
  set(CPACK_GENERATOR DEB)
endif()
# Release-type builds carry debug info; the package does not.
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${LIBRA_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(LIBRA_BUILD_GUI)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS qt6-qpa-plugins)
endif()

include(CPack)
