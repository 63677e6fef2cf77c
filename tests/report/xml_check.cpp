#include "xml_check.hpp"

#include <expat.h>

#include <memory>

namespace libra::testing {

namespace {

struct State {
  XmlDocument* doc = nullptr;
  std::vector<std::size_t> open;  // indices of the open elements
};

void XMLCALL onStart(void* data, const XML_Char* name, const XML_Char** attributes) {
  auto* s = static_cast<State*>(data);
  XmlElement e;
  e.name = name;
  e.depth = static_cast<int>(s->open.size());
  for (int i = 0; attributes[i] != nullptr; i += 2) e.attributes[attributes[i]] = attributes[i + 1];
  s->open.push_back(s->doc->elements.size());
  s->doc->elements.push_back(std::move(e));
}

void XMLCALL onEnd(void* data, const XML_Char*) {
  static_cast<State*>(data)->open.pop_back();
}

void XMLCALL onText(void* data, const XML_Char* text, int length) {
  auto* s = static_cast<State*>(data);
  if (!s->open.empty())
    s->doc->elements[s->open.back()].text.append(text, static_cast<std::size_t>(length));
}

}  // namespace

std::vector<const XmlElement*> XmlDocument::named(const std::string& name) const {
  std::vector<const XmlElement*> out;
  for (const XmlElement& e : elements) {
    if (e.name == name) out.push_back(&e);
  }
  return out;
}

std::vector<std::string> XmlDocument::textsIn(const std::string& name) const {
  std::vector<std::string> out;
  int inside = -1;
  for (const XmlElement& e : elements) {
    if (inside >= 0 && e.depth <= inside) inside = -1;
    if (inside < 0 && e.name == name) inside = e.depth;
    if (inside >= 0 && !e.text.empty()) out.push_back(e.text);
  }
  return out;
}

XmlDocument parseXml(const std::string& text) {
  XmlDocument doc;
  State state{&doc, {}};
  std::unique_ptr<XML_ParserStruct, decltype(&XML_ParserFree)> parser(XML_ParserCreate("UTF-8"),
                                                                      &XML_ParserFree);
  XML_SetUserData(parser.get(), &state);
  XML_SetElementHandler(parser.get(), onStart, onEnd);
  XML_SetCharacterDataHandler(parser.get(), onText);
  if (XML_Parse(parser.get(), text.data(), static_cast<int>(text.size()), XML_TRUE) ==
      XML_STATUS_ERROR) {
    doc.error = std::string(XML_ErrorString(XML_GetErrorCode(parser.get()))) + " at line " +
                std::to_string(XML_GetCurrentLineNumber(parser.get())) + ", column " +
                std::to_string(XML_GetCurrentColumnNumber(parser.get()));
    return doc;
  }
  doc.wellFormed = true;
  return doc;
}

}  // namespace libra::testing
