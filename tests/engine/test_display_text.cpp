// displayText: what the command line, the window and the report print of text
// from files (issue 29: colour escapes, the bell, newlines and bidirectional
// overrides in names reached the terminal; a 1 MB name was printed whole).
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "libra/display_text.hpp"
#include "rc_support.hpp"

namespace libra {
namespace {

TEST(DisplayText, PlainTextIsUnchanged) {
  EXPECT_EQ(displayText("GPT-3 175B (TP 16)"), "GPT-3 175B (TP 16)");
  EXPECT_EQ(displayText("Größe ∑ 🚀"), "Größe ∑ 🚀");
  EXPECT_EQ(displayText(""), "");
}

TEST(DisplayText, ControlCharactersBecomeEscapes) {
  EXPECT_EQ(displayText("a\x1b[31mred\x07"), "a\\x1b[31mred\\x07");
  EXPECT_EQ(displayText("two\nlines\tand\r"), "two\\nlines\\tand\\r");
  EXPECT_EQ(displayText(std::string("nul\0here", 8)), "nul\\x00here");
  EXPECT_EQ(displayText("del\x7f"), "del\\x7f");
  EXPECT_EQ(displayText("c1 \xc2\x9b"), "c1 \\u009b");  // CSI as a C1 control
}

TEST(DisplayText, BidirectionalControlsBecomeEscapes) {
  EXPECT_EQ(displayText("abc\xe2\x80\xae"
                        "def"),
            "abc\\u202edef");                                              // RLO
  EXPECT_EQ(displayText("\xe2\x81\xa6x\xe2\x81\xa9"), "\\u2066x\\u2069");  // LRI, PDI
  EXPECT_EQ(displayText("line\xe2\x80\xa8sep"), "line\\u2028sep");
}

TEST(DisplayText, BytesThatAreNotUtf8BecomeEscapes) {
  EXPECT_EQ(displayText("a\xff"
                        "b"),
            "a\\xffb");
  EXPECT_EQ(displayText("\xc3"), "\\xc3");                    // cut sequence
  EXPECT_EQ(displayText("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(displayText("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
}

TEST(DisplayText, LongTextIsCutWithAnEllipsis) {
  EXPECT_EQ(displayText("abcdef", 6), "abcdef");
  EXPECT_EQ(displayText("abcdefg", 6), "abcde…");
  EXPECT_EQ(displayText("ääääääää", 4), "äää…");  // characters, not bytes
  // An escape is never split: "\x1b" is four characters and does not fit in 3.
  EXPECT_EQ(displayText("ab\x1b", 4), "ab…");
  bool cut = false;
  displayText(std::string(1'000'000, 'n'), kDisplayNameLimit, &cut);
  EXPECT_TRUE(cut);
  EXPECT_EQ(displayWidth(displayName(std::string(1'000'000, 'n'))), kDisplayNameLimit);
}

bool validUtf8WithoutControls(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x20 || b == 0x7f) return false;
    std::size_t n = b < 0x80             ? 1
                    : (b & 0xE0) == 0xC0 ? 2
                    : (b & 0xF0) == 0xE0 ? 3
                    : (b & 0xF8) == 0xF0 ? 4
                                         : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    const std::string_view seq(s.data() + i, n);
    if (seq == "\xe2\x80\xae" || seq == "\xe2\x80\xad" || seq == "\xe2\x81\xa6" ||
        (n == 2 && b == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0)) {
      return false;
    }
    i += n;
  }
  return true;
}

TEST(DisplayText, AnyBytesGiveSafeTextWithinTheLimit) {
  test::checkProperty(2000, [] {
    const auto bytes = *rc::gen::container<std::string>(rc::gen::arbitrary<char>());
    const auto limit = *rc::gen::inRange<std::size_t>(0, 40);
    bool cut = false;
    const std::string shown = displayText(bytes, limit, &cut);
    RC_ASSERT(validUtf8WithoutControls(shown));
    if (limit > 0) RC_ASSERT(displayWidth(shown) <= limit);
    // Uncut, the text is the whole escaped text; cut, a prefix of it and "…".
    const std::string whole = displayText(bytes);
    if (!cut) {
      RC_ASSERT(shown == whole);
    } else {
      RC_ASSERT(shown.size() >= 3);
      RC_ASSERT(whole.compare(0, shown.size() - 3, shown, 0, shown.size() - 3) == 0);
      RC_ASSERT(displayWidth(whole) > limit);
    }
  });
}

// Numbers (issue 29: a 1e90-byte collective printed an 80-digit time).
TEST(FormatFixed, FixedUpToTwelveSignificantDigitsThenScientific) {
  EXPECT_EQ(formatFixed(701.344, 2), "701.34");
  EXPECT_EQ(formatFixed(-0.0001, 2), "0.00");
  EXPECT_EQ(formatFixed(999999999.5, 2), "999999999.50");  // 11 digits
  EXPECT_EQ(formatFixed(1e10, 2), "1.000e+10");            // would be 13
  EXPECT_EQ(formatFixed(999999999999.0, 0), "999999999999");
  EXPECT_EQ(formatFixed(1e12, 0), "1.000e+12");
  EXPECT_EQ(formatFixed(1e70, 3), "1.000e+70");
  EXPECT_EQ(formatFixed(-1.23456e90, 0), "-1.235e+90");
  EXPECT_EQ(formatFixed(INFINITY, 1), "∞");
  EXPECT_EQ(formatFixed(-INFINITY, 1), "-∞");
  EXPECT_EQ(formatFixed(NAN, 1), "-");
}

// Any finite value: at most 12 digits before an exponent, and the text reads
// back to the value within what its decimals or four significant digits hold.
TEST(FormatFixed, AnyMagnitudeIsShortAndReadsBack) {
  test::checkProperty(2000, [] {
    const double mantissa = *rc::gen::inRange(-999999, 999999) / 1e5;
    const int exponent = *rc::gen::inRange(-300, 300);
    const double value = mantissa * std::pow(10.0, exponent);
    const int decimals = *rc::gen::inRange(0, 7);
    const std::string text = formatFixed(value, decimals);
    const std::size_t e = text.find('e');
    std::size_t digits = 0;
    for (std::size_t i = 0; i < std::min(e, text.size()); ++i)
      digits += std::isdigit(static_cast<unsigned char>(text[i])) != 0;
    RC_ASSERT(digits <= 13u);  // 12, and one more when rounding carries (9.99 -> 10.0)
    const double back = std::strtod(text.c_str(), nullptr);
    const double tolerance =
        e == std::string::npos ? 0.5 * std::pow(10.0, -decimals) : 5e-4 * std::fabs(value);
    RC_ASSERT(std::fabs(back - value) <= tolerance * (1 + 1e-9));
  });
}

}  // namespace
}  // namespace libra
