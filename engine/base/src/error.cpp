#include "libra/error.hpp"

namespace libra {

ConstraintError::ConstraintError(const std::string& expression, int column,
                                 const std::string& problem)
    : InputError("constraint '" + expression + "': column " + std::to_string(column) + ": " +
                 problem),
      column_(column),
      problem_(problem) {}

}  // namespace libra
