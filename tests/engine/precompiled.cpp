// The source of the target that builds tests/engine/precompiled.hpp once
// (tests/CMakeLists.txt); the engine tests reuse that header.
#include "precompiled.hpp"
