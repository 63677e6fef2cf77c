// Reading the report as XML with expat (Debian's libexpat1-dev, a strict,
// well-kept parser): the HTML is written as well-formed markup, so any
// unescaped '<' or '&' in a user's text, or an element left open, fails here.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace libra::testing {

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attributes;
  std::string text;  // the character data directly inside it
  int depth = 0;
};

struct XmlDocument {
  bool wellFormed = false;
  std::string error;                 // expat's message with the line, when not well formed
  std::vector<XmlElement> elements;  // in document order

  std::vector<const XmlElement*> named(const std::string& name) const;
  // Every text inside elements called `name` (and their descendants), in order.
  std::vector<std::string> textsIn(const std::string& name) const;
};

XmlDocument parseXml(const std::string& text);

}  // namespace libra::testing
