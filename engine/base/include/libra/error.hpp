// Typed errors of the engine. Every message names what is wrong and where
// (file, line, key or column) in words a user understands; the command line
// maps InputError to exit code 2.
#pragma once

#include <stdexcept>
#include <string>

namespace libra {

// Bad input: an unreadable or malformed file, an unknown key, an invalid value.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

// A constraint expression that does not parse; `column` is 1-based.
class ConstraintError : public InputError {
 public:
  ConstraintError(const std::string& expression, int column, const std::string& problem);
  int column() const { return column_; }
  const std::string& problem() const { return problem_; }

 private:
  int column_;
  std::string problem_;
};

}  // namespace libra
