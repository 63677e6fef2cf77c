#include "libra/constraints.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <vector>

#include "libra/display_text.hpp"
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

// What the parser does with the expression.
enum class Mode {
  Compile,  // parseConstraint: resolve names, `cost` through the unit prices
  Resolve,  // structure with every reference resolved against the names
  Syntax,   // structure only, names not known
};

bool isKeyChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

bool isIndexKey(std::string_view key) {
  return !key.empty() && std::all_of(key.begin(), key.end(), [](char ch) {
    return std::isdigit(static_cast<unsigned char>(ch));
  });
}

// Recursive-descent parser of
//   constraint := sum relation sum
//   sum        := ['+'|'-'] product (('+'|'-') product)*
//   product    := factor ('*' factor)*       (at most one non-number factor)
//   factor     := number | 'bw' '[' (integer | name) ']' | 'total' | 'cost'
// It records each side as its signed products (a number times at most one
// variable) and derives both the coefficient vector and the symbolic structure
// from them.
class Parser {
 public:
  Parser(std::string_view text, Mode mode, std::span<const std::string> names,
         std::span<const double> costs, double fixedCost = 0)
      : text_(text), mode_(mode), names_(names), costs_(costs), fixedCost_(fixedCost) {}

  LinearConstraint compile() {
    parseAll();
    const int dims = static_cast<int>(names_.size());
    const std::vector<double> left = coefficients(left_, dims);
    const std::vector<double> right = coefficients(right_, dims);
    LinearConstraint c;
    c.coefficients.assign(dims, 0.0);
    bool any = false;
    for (int d = 0; d < dims; ++d) {
      c.coefficients[d] = left[d] - right[d];
      if (c.coefficients[d] != 0) any = true;
      // Finite numbers whose products are checked can still add up to infinity
      // (1e308*bw[0] + 1e308*bw[0]), as can a `cost` term through the prices.
      if (!std::isfinite(c.coefficients[d])) {
        fail(1, "the coefficient of bw[" + std::to_string(d) + "] ('" +
                    text::abbreviate(names_[static_cast<std::size_t>(d)]) +
                    "') is not a finite number (an overflow)");
      }
    }
    c.relation = relation_;
    // The fixed part of `cost` is a constant: cost = fixed + sum_d costs_[d] bw_d.
    c.rhs = constant(right_) - constant(left_) -
            fixedCost_ * (costCoefficient(left_) - costCoefficient(right_));
    c.text = std::string(text::trim(text_));
    if (!any) fail(1, "it does not involve any bandwidth (bw[...], total or cost)");
    if (!std::isfinite(c.rhs)) fail(1, "the constant is not a finite number");
    return c;
  }

  ConstraintStructure structure() {
    parseAll();
    ConstraintStructure s;
    s.relation = relation_;
    s.rhs = constant(right_) - constant(left_);
    if (!std::isfinite(s.rhs)) fail(1, "the constant is not a finite number");
    s.references = references_;
    for (int side = 0; side < 2; ++side) {
      const double sideSign = side == 0 ? 1 : -1;
      for (const Product& p : side == 0 ? left_ : right_) {
        const double coefficient = sideSign * (p.sign * p.scalar);
        switch (p.kind) {
          case Kind::Constant:
            break;
          case Kind::Reference:
            s.references[p.reference].coefficient += coefficient;
            break;
          case Kind::Total:
            s.hasTotal = true;
            s.totalCoefficient += coefficient;
            break;
          case Kind::Cost:
            s.hasCost = true;
            s.costCoefficient += coefficient;
            break;
        }
      }
    }
    for (const DimensionReference& r : s.references) {
      if (!std::isfinite(r.coefficient)) {
        fail(static_cast<int>(r.offset) + 1,
             "the coefficient of bw[" + r.key + "] is not a finite number (an overflow)");
      }
    }
    if (!std::isfinite(s.totalCoefficient)) {
      fail(1, "the coefficient of total is not a finite number (an overflow)");
    }
    if (!std::isfinite(s.costCoefficient)) {
      fail(1, "the coefficient of cost is not a finite number (an overflow)");
    }
    return s;
  }

 private:
  enum class Kind { Constant, Reference, Total, Cost };
  // sign * scalar * variable (a number alone when kind is Constant).
  struct Product {
    double sign = 1;
    double scalar = 1;
    Kind kind = Kind::Constant;
    int reference = -1;  // into references_, for Kind::Reference
  };
  struct Factor {
    double value = 1;
    Kind kind = Kind::Constant;
    int reference = -1;
  };

  void parseAll() {
    left_ = sum();
    skipSpace();
    const int relColumn = column();
    if (consume("==")) {
      relation_ = Relation::Equal;
    } else if (consume("<=")) {
      relation_ = Relation::LessEqual;
    } else if (consume(">=")) {
      relation_ = Relation::GreaterEqual;
    } else if (atEnd()) {
      fail(relColumn, "expected a comparison (==, <= or >=) at the end");
    } else if (peek() == '=' || peek() == '<' || peek() == '>') {
      fail(relColumn,
           "expected ==, <= or >=; '" + std::string(1, peek()) + "' alone is not a comparison");
    } else {
      fail(relColumn,
           "unexpected '" + std::string(1, peek()) + "'; expected +, -, * or a comparison");
    }
    right_ = sum();
    skipSpace();
    if (!atEnd()) {
      fail(column(), "unexpected '" + std::string(text_.substr(pos_)) + "' after the expression");
    }
  }

  // The coefficient of each dimension on one side, accumulated product by product.
  std::vector<double> coefficients(const std::vector<Product>& side, int dims) const {
    std::vector<double> out(dims, 0.0);
    for (const Product& p : side) {
      for (int d = 0; d < dims; ++d) {
        double variable = 0;
        switch (p.kind) {
          case Kind::Constant:
            break;
          case Kind::Reference:
            variable = references_[p.reference].dimension == d ? 1 : 0;
            break;
          case Kind::Total:
            variable = 1;
            break;
          case Kind::Cost:
            variable = costs_[d];
            break;
        }
        out[d] += p.sign * (p.kind == Kind::Constant ? 0.0 : p.scalar * variable);
      }
    }
    return out;
  }

  static double costCoefficient(const std::vector<Product>& side) {
    double out = 0;
    for (const Product& p : side) out += p.sign * (p.kind == Kind::Cost ? p.scalar : 0.0);
    return out;
  }

  static double constant(const std::vector<Product>& side) {
    double out = 0;
    for (const Product& p : side) out += p.sign * (p.kind == Kind::Constant ? p.scalar : 0.0);
    return out;
  }

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

  std::vector<Product> sum() {
    std::vector<Product> out;
    skipSpace();
    double sign = 1;
    if (consume("+")) {
      sign = 1;
    } else if (consume("-")) {
      sign = -1;
    }
    for (;;) {
      Product p = product();
      p.sign = sign;
      out.push_back(p);
      skipSpace();
      if (consume("+")) {
        sign = 1;
      } else if (peek() == '-') {
        ++pos_;
        sign = -1;
      } else {
        return out;
      }
    }
  }

  Product product() {
    Product out;
    skipSpace();
    const int productStart = column();
    for (;;) {
      skipSpace();
      const int start = column();
      const Factor f = factor();
      if (f.kind != Kind::Constant) {
        if (out.kind != Kind::Constant)
          fail(start, "a product of two bandwidth terms is not linear");
        out.kind = f.kind;
        out.reference = f.reference;
      }
      out.scalar *= f.value;
      if (!std::isfinite(out.scalar)) {
        fail(productStart, "the product is not a finite number (an overflow)");
      }
      skipSpace();
      if (!consume("*")) break;
    }
    return out;
  }

  Factor factor() {
    skipSpace();
    const int start = column();
    if (atEnd()) fail(start, "expected a number, bw[...], total or cost at the end");
    const char c = peek();
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return {number()};
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t wordOffset = pos_;
      const std::string word = identifier();
      if (word == "total") return {1, Kind::Total};
      if (word == "cost") {
        if (mode_ == Mode::Compile && costs_.size() != names_.size()) {
          fail(start, "'cost' needs the unit prices of every dimension, which are not known here");
        }
        return {1, Kind::Cost};
      }
      if (word == "bw") return {1, Kind::Reference, reference(wordOffset)};
      fail(start, "unknown term '" + word + "'; use a number, bw[i], bw[name], total or cost");
    }
    fail(start,
         "unexpected '" + std::string(1, c) + "'; expected a number, bw[...], total or cost");
  }

  // After `bw`: '[' key ']'. Returns its index in references_.
  int reference(std::size_t wordOffset) {
    const int dims = static_cast<int>(names_.size());
    skipSpace();
    if (!consume("[")) fail(column(), "expected '[' after bw");
    skipSpace();
    const int at = column();
    // A key is a dimension index or name: letters, digits, '_', '-', '.'.
    std::size_t end = pos_;
    while (end < text_.size() && isKeyChar(text_[end])) ++end;
    DimensionReference ref;
    ref.offset = wordOffset;
    ref.keyOffset = pos_;
    ref.keyLength = end - pos_;
    ref.key = std::string(text_.substr(pos_, end - pos_));
    const std::string& key = ref.key;
    pos_ = end;
    skipSpace();
    if (!consume("]")) fail(at, "missing ']' after bw[" + key);
    if (key.empty()) fail(at, "empty dimension in bw[]");
    ref.length = pos_ - wordOffset;
    ref.byName = !isIndexKey(key);
    if (mode_ == Mode::Syntax) {
      if (!ref.byName && key.size() <= 6) ref.dimension = std::atoi(key.c_str());
    } else if (!ref.byName) {
      const int index = key.size() > 6 ? dims : std::atoi(key.c_str());
      if (index >= dims) {
        fail(at, "no dimension " + key + " (the network has " + std::to_string(dims) + ": 0.." +
                     std::to_string(dims - 1) + ")");
      }
      ref.dimension = index;
    } else {
      for (int d = 0; d < dims; ++d) {
        if (names_[d] == key) ref.dimension = d;
      }
      if (ref.dimension < 0) {
        std::string known;
        for (const auto& n : names_) known += (known.empty() ? "" : ", ") + n;
        fail(at, "no dimension named '" + key + "' (known: " + known + ")");
      }
    }
    references_.push_back(std::move(ref));
    return static_cast<int>(references_.size()) - 1;
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
    // from_chars, not strtod: strtod reads the C library's numeric locale, and
    // Qt sets that from the environment (a decimal comma under de_DE: "1.5"
    // read as 1 and then refused at the '.').
    double value = 0;
    const auto [stop, error] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (token.empty() || stop != token.data() + token.size() ||
        (error != std::errc() && error != std::errc::result_out_of_range)) {
      fail(column(), "'" + token + "' is not a number");
    }
    // Out of range: too large (strtod's infinity) or too small to be a double.
    if (error == std::errc::result_out_of_range || !std::isfinite(value)) {
      fail(column(), "'" + token + "' is not a finite number");
    }
    pos_ = end;
    return value;
  }

  std::string identifier() {
    const std::size_t start = pos_;
    while (!atEnd() && (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_')) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  std::string_view text_;
  Mode mode_;
  std::span<const std::string> names_;
  std::span<const double> costs_;
  double fixedCost_ = 0;
  std::size_t pos_ = 0;
  std::vector<Product> left_, right_;
  Relation relation_ = Relation::Equal;
  std::vector<DimensionReference> references_;
};

void rejectEmpty(std::string_view text) {
  if (text::trim(text).empty())
    throw ConstraintError(std::string(text), 1, "the expression is empty");
}

}  // namespace

LinearConstraint parseConstraint(std::string_view text, std::span<const std::string> dimNames,
                                 std::span<const double> costPerBandwidth, double fixedCostUsd) {
  rejectEmpty(text);
  return Parser(text, Mode::Compile, dimNames, costPerBandwidth, fixedCostUsd).compile();
}

ConstraintStructure analyzeConstraint(std::string_view text) {
  rejectEmpty(text);
  return Parser(text, Mode::Syntax, {}, {}).structure();
}

ConstraintStructure analyzeConstraint(std::string_view text,
                                      std::span<const std::string> dimNames) {
  rejectEmpty(text);
  return Parser(text, Mode::Resolve, dimNames, {}).structure();
}

DimensionMapping DimensionMapping::identity(const std::vector<std::string>& names) {
  DimensionMapping m;
  m.oldNames = names;
  m.newNames = names;
  for (int d = 0; d < static_cast<int>(names.size()); ++d) m.newIndex.emplace_back(d);
  return m;
}

namespace {

// The dimension `key` refers to among `names`, as the parser resolves it; -1 when none.
int resolveKey(std::string_view key, std::span<const std::string> names) {
  const int dims = static_cast<int>(names.size());
  if (isIndexKey(key)) {
    const int index = key.size() > 6 ? dims : std::atoi(std::string(key).c_str());
    return index < dims ? index : -1;
  }
  int found = -1;
  for (int d = 0; d < dims; ++d) {
    if (names[d] == key) found = d;
  }
  return found;
}

// The key that refers to dimension `index` of `names`: its name when it can be
// written in bw[...] and no other dimension has it, else the index.
std::string keyFor(int index, std::span<const std::string> names) {
  const std::string& name = names[index];
  const bool nameWorks = !name.empty() && !isIndexKey(name) &&
                         std::all_of(name.begin(), name.end(), isKeyChar) &&
                         std::count(names.begin(), names.end(), name) == 1;
  return nameWorks ? name : std::to_string(index);
}

}  // namespace

RewrittenConstraint rewriteDimensionReferences(std::string_view text,
                                               const DimensionMapping& mapping) {
  const ConstraintStructure s = analyzeConstraint(text);
  RewrittenConstraint out;
  std::string rewritten;
  std::size_t copied = 0;
  for (const DimensionReference& ref : s.references) {
    const int old = resolveKey(ref.key, mapping.oldNames);
    if (old < 0 || old >= static_cast<int>(mapping.newIndex.size())) continue;
    const std::optional<int> now = mapping.newIndex[old];
    if (!now || *now < 0 || *now >= static_cast<int>(mapping.newNames.size())) {
      out.removedDimensions.push_back(old);
      continue;
    }
    // An index that does not change stays as written ("bw[02]" is not made "bw[2]").
    const std::string key = ref.byName    ? keyFor(*now, mapping.newNames)
                            : *now == old ? ref.key
                                          : std::to_string(*now);
    rewritten.append(text.substr(copied, ref.keyOffset - copied));
    rewritten.append(key);
    copied = ref.keyOffset + ref.keyLength;
  }
  if (!out.removedDimensions.empty()) {
    std::sort(out.removedDimensions.begin(), out.removedDimensions.end());
    out.removedDimensions.erase(
        std::unique(out.removedDimensions.begin(), out.removedDimensions.end()),
        out.removedDimensions.end());
    out.text = std::string(text);
    return out;
  }
  rewritten.append(text.substr(copied));
  out.text = std::move(rewritten);
  return out;
}

std::string constraintDisplayText(std::string_view text) {
  std::string out;
  std::size_t i = 0;
  const auto digit = [&](std::size_t k) {
    return k < text.size() && std::isdigit(static_cast<unsigned char>(text[k])) != 0;
  };
  while (i < text.size()) {
    // A number: digits, a point, digits, an optional exponent (names such as
    // bw[pod2] hold no point, so they are left alone).
    const bool startsNumber =
        digit(i) && (i == 0 || (std::isalnum(static_cast<unsigned char>(text[i - 1])) == 0 &&
                                text[i - 1] != '_'));
    if (!startsNumber) {
      out += text[i++];
      continue;
    }
    std::size_t end = i;
    while (digit(end)) ++end;
    if (end < text.size() && text[end] == '.' && digit(end + 1)) {
      ++end;
      while (digit(end)) ++end;
      if (end < text.size() && (text[end] == 'e' || text[end] == 'E')) {
        std::size_t e = end + 1;
        if (e < text.size() && (text[e] == '+' || text[e] == '-')) ++e;
        if (digit(e)) {
          end = e;
          while (digit(end)) ++end;
        }
      }
    }
    const std::string_view number = text.substr(i, end - i);
    std::size_t significant = 0;
    bool leading = true;
    for (const char c : number) {
      if (c == 'e' || c == 'E') break;
      if (std::isdigit(static_cast<unsigned char>(c)) == 0) continue;
      if (leading && c == '0') continue;
      leading = false;
      ++significant;
    }
    if (significant > 10) {
      char buffer[32];
      std::snprintf(buffer, sizeof buffer, "%.10g",
                    std::strtod(std::string(number).c_str(), nullptr));
      out += buffer;
    } else {
      out += number;
    }
    i = end;
  }
  return displayText(out);
}

}  // namespace libra
