// Compiled by tests/layers/CMakeLists.txt in the include context of one engine layer (or of
// the engine's users) with LIBRA_CHECKED_HEADER naming a header that context must not see.
#include LIBRA_CHECKED_HEADER
