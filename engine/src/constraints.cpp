#include "libra/constraints.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "libra/error.hpp"
#include "text.hpp"

namespace libra {

std::string_view toString(Relation relation) {
  switch (relation) {
    case Relation::Equal:
      return "==";
    case Relation::LessEqual:
      return "<=";
    case Relation::GreaterEqual:
      return ">=";
  }
  return "==";
}

double LinearConstraint::violation(std::span<const double> bw) const {
  double lhs = 0;
  for (std::size_t d = 0; d < coefficients.size() && d < bw.size(); ++d) {
    lhs += coefficients[d] * bw[d];
  }
  switch (relation) {
    case Relation::Equal:
      return std::abs(lhs - rhs);
    case Relation::LessEqual:
      return lhs - rhs;
    case Relation::GreaterEqual:
      return rhs - lhs;
  }
  return 0;
}

bool LinearConstraint::isSatisfied(std::span<const double> bw, double relativeTolerance) const {
  double scale = std::abs(rhs);
  for (std::size_t d = 0; d < coefficients.size() && d < bw.size(); ++d) {
    scale = std::max(scale, std::abs(coefficients[d] * bw[d]));
  }
  return violation(bw) <= relativeTolerance * std::max(scale, 1e-300);
}

namespace {

// Recursive-descent parser of
//   constraint := sum relation sum
//   sum        := ['+'|'-'] product (('+'|'-') product)*
//   product    := factor ('*' factor)*       (at most one non-number factor)
//   factor     := number | 'bw' '[' (integer | name) ']' | 'total' | 'cost'
class Parser {
 public:
  Parser(std::string_view text, std::span<const std::string> names, std::span<const double> costs)
      : text_(text), names_(names), costs_(costs) {}

  LinearConstraint parse() {
    const int dims = static_cast<int>(names_.size());
    Linear left = sum(dims);
    skipSpace();
    const int relColumn = column();
    Relation rel;
    if (consume("==")) {
      rel = Relation::Equal;
    } else if (consume("<=")) {
      rel = Relation::LessEqual;
    } else if (consume(">=")) {
      rel = Relation::GreaterEqual;
    } else if (atEnd()) {
      fail(relColumn, "expected a comparison (==, <= or >=) at the end");
    } else if (peek() == '=' || peek() == '<' || peek() == '>') {
      fail(relColumn,
           "expected ==, <= or >=; '" + std::string(1, peek()) + "' alone is not a comparison");
    } else {
      fail(relColumn,
           "unexpected '" + std::string(1, peek()) + "'; expected +, -, * or a comparison");
    }
    Linear right = sum(dims);
    skipSpace();
    if (!atEnd()) {
      fail(column(), "unexpected '" + std::string(text_.substr(pos_)) + "' after the expression");
    }
    LinearConstraint c;
    c.coefficients.assign(dims, 0.0);
    bool any = false;
    for (int d = 0; d < dims; ++d) {
      c.coefficients[d] = left.coef[d] - right.coef[d];
      if (c.coefficients[d] != 0) any = true;
    }
    c.relation = rel;
    c.rhs = right.constant - left.constant;
    c.text = std::string(text::trim(text_));
    if (!any) fail(1, "it does not involve any bandwidth (bw[...], total or cost)");
    if (!std::isfinite(c.rhs)) fail(1, "the constant is not a finite number");
    return c;
  }

 private:
  struct Linear {
    std::vector<double> coef;
    double constant = 0;
  };

  [[noreturn]] void fail(int column, const std::string& problem) const {
    throw ConstraintError(std::string(text_), column, problem);
  }
  int column() const { return static_cast<int>(pos_) + 1; }
  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return atEnd() ? '\0' : text_[pos_]; }
  void skipSpace() {
    while (!atEnd() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool consume(std::string_view token) {
    skipSpace();
    if (text_.substr(pos_, token.size()) == token) {
      pos_ += token.size();
      return true;
    }
    return false;
  }

  Linear sum(int dims) {
    Linear total{std::vector<double>(dims, 0.0), 0};
    skipSpace();
    double sign = 1;
    if (consume("+")) {
      sign = 1;
    } else if (consume("-")) {
      sign = -1;
    }
    for (;;) {
      Linear p = product(dims);
      for (int d = 0; d < dims; ++d) total.coef[d] += sign * p.coef[d];
      total.constant += sign * p.constant;
      skipSpace();
      if (consume("+")) {
        sign = 1;
      } else if (peek() == '-') {
        ++pos_;
        sign = -1;
      } else {
        return total;
      }
    }
  }

  Linear product(int dims) {
    double scalar = 1;
    std::optional<std::vector<double>> variable;
    for (;;) {
      skipSpace();
      const int start = column();
      Factor f = factor(dims);
      if (f.coef) {
        if (variable) fail(start, "a product of two bandwidth terms is not linear");
        variable = std::move(f.coef);
      }
      scalar *= f.value;
      skipSpace();
      if (!consume("*")) break;
    }
    Linear out{std::vector<double>(dims, 0.0), 0};
    if (variable) {
      for (int d = 0; d < dims; ++d) out.coef[d] = scalar * (*variable)[d];
    } else {
      out.constant = scalar;
    }
    return out;
  }

  struct Factor {
    double value = 1;
    std::optional<std::vector<double>> coef;
  };

  Factor factor(int dims) {
    skipSpace();
    const int start = column();
    if (atEnd()) fail(start, "expected a number, bw[...], total or cost at the end");
    const char c = peek();
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return {number(), std::nullopt};
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::string word = identifier();
      if (word == "total") return {1, std::vector<double>(dims, 1.0)};
      if (word == "cost") {
        if (static_cast<int>(costs_.size()) != dims) {
          fail(start, "'cost' needs the unit prices of every dimension, which are not known here");
        }
        return {1, std::vector<double>(costs_.begin(), costs_.end())};
      }
      if (word == "bw") {
        skipSpace();
        if (!consume("[")) fail(column(), "expected '[' after bw");
        skipSpace();
        const int at = column();
        // A key is a dimension index or name: letters, digits, '_', '-', '.'.
        std::size_t end = pos_;
        while (end < text_.size() &&
               (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_' ||
                text_[end] == '-' || text_[end] == '.')) {
          ++end;
        }
        const std::string key(text_.substr(pos_, end - pos_));
        pos_ = end;
        skipSpace();
        if (!consume("]")) fail(at, "missing ']' after bw[" + key);
        if (key.empty()) fail(at, "empty dimension in bw[]");
        int index = -1;
        if (std::all_of(key.begin(), key.end(),
                        [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); })) {
          index = key.size() > 6 ? dims : std::atoi(key.c_str());
          if (index >= dims) {
            fail(at, "no dimension " + key + " (the network has " + std::to_string(dims) + ": 0.." +
                         std::to_string(dims - 1) + ")");
          }
        } else {
          for (int d = 0; d < dims; ++d) {
            if (names_[d] == key) index = d;
          }
          if (index < 0) {
            std::string known;
            for (const auto& n : names_) known += (known.empty() ? "" : ", ") + n;
            fail(at, "no dimension named '" + key + "' (known: " + known + ")");
          }
        }
        std::vector<double> coef(dims, 0.0);
        coef[index] = 1;
        return {1, std::move(coef)};
      }
      fail(start, "unknown term '" + word + "'; use a number, bw[i], bw[name], total or cost");
    }
    fail(start,
         "unexpected '" + std::string(1, c) + "'; expected a number, bw[...], total or cost");
  }

  double number() {
    const char* begin = text_.data() + pos_;
    // strtod needs a terminated string; copy the candidate token.
    std::size_t end = pos_;
    while (end < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[end])) ||
                                  text_[end] == '.' || text_[end] == 'e' || text_[end] == 'E' ||
                                  ((text_[end] == '+' || text_[end] == '-') && end > pos_ &&
                                   (text_[end - 1] == 'e' || text_[end - 1] == 'E')))) {
      ++end;
    }
    const std::string token(begin, end - pos_);
    char* stop = nullptr;
    const double value = std::strtod(token.c_str(), &stop);
    if (stop != token.c_str() + token.size() || token.empty()) {
      fail(column(), "'" + token + "' is not a number");
    }
    if (!std::isfinite(value)) fail(column(), "'" + token + "' is not a finite number");
    pos_ = end;
    return value;
  }

  std::string identifier() {
    const std::size_t start = pos_;
    while (!atEnd() && (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_')) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  std::string_view text_;
  std::span<const std::string> names_;
  std::span<const double> costs_;
  std::size_t pos_ = 0;
};

}  // namespace

LinearConstraint parseConstraint(std::string_view text, std::span<const std::string> dimNames,
                                 std::span<const double> costPerBandwidth) {
  if (text::trim(text).empty())
    throw ConstraintError(std::string(text), 1, "the expression is empty");
  return Parser(text, dimNames, costPerBandwidth).parse();
}

}  // namespace libra
