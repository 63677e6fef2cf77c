// The source of the target that builds tests/ui/precompiled.hpp once
// (tests/ui/CMakeLists.txt); the GUI tests reuse that header.
#include "precompiled.hpp"
