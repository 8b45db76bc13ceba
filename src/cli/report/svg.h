#pragma once
// Drawing into a pugixml tree: SVG elements with their attributes, text and hover titles.
// The page is built as a tree and serialized once, so every text and attribute is escaped by
// the serializer and the page is well-formed (its tests parse it back).
#include <pugixml.hpp>

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace ucudnn::cli::report {

// A number a script reads back (data-* attributes): written to round-trip exactly.
struct Exact {
  double value;
};
// An attribute's value: text, a number written with at most two decimals (coordinates), or
// an exact one.
using AttributeValue = std::variant<std::string_view, double, Exact>;
using Attributes = std::initializer_list<std::pair<const char*, AttributeValue>>;

std::string format_number(double value);  // "12", "12.5", "0.25"
// printf into a string, for the page's texts.
std::string formatted(const char* format, ...) __attribute__((format(printf, 1, 2)));

// <name attributes...> appended to `parent`.
pugi::xml_node element(pugi::xml_node parent, const char* name, Attributes attributes = {});
// The same with text content.
pugi::xml_node text_element(pugi::xml_node parent, const char* name, std::string_view text,
                            Attributes attributes = {});
// <title>: what a browser shows on hover, and a screen reader reads.
void hover_text(pugi::xml_node shape, std::string_view text);

// An <svg> of the given size in pixels, described for screen readers.
pugi::xml_node svg_figure(pugi::xml_node parent, double width, double height,
                          std::string_view description, std::string_view css_class);

}  // namespace ucudnn::cli::report
