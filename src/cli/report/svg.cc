#include "report/svg.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace ucudnn::cli::report {

std::string format_number(double value) {
  if (!std::isfinite(value)) return "0";
  char text[48];
  std::snprintf(text, sizeof text, "%.2f", value);
  std::string s = text;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

std::string formatted(const char* format, ...) {
  std::va_list arguments;
  va_start(arguments, format);
  std::va_list again;
  va_copy(again, arguments);
  const int size = std::vsnprintf(nullptr, 0, format, arguments);
  va_end(arguments);
  std::string text(size > 0 ? static_cast<std::size_t>(size) : 0, '\0');
  if (size > 0) std::vsnprintf(text.data(), text.size() + 1, format, again);
  va_end(again);
  return text;
}

pugi::xml_node element(pugi::xml_node parent, const char* name, Attributes attributes) {
  pugi::xml_node node = parent.append_child(name);
  for (const auto& [key, value] : attributes) {
    if (const auto* text = std::get_if<std::string_view>(&value)) {
      node.append_attribute(key).set_value(std::string(*text).c_str());
    } else if (const auto* exact = std::get_if<Exact>(&value)) {
      char digits[40];
      std::snprintf(digits, sizeof digits, "%.17g", exact->value);
      node.append_attribute(key).set_value(digits);
    } else {
      node.append_attribute(key).set_value(format_number(std::get<double>(value)).c_str());
    }
  }
  return node;
}

pugi::xml_node text_element(pugi::xml_node parent, const char* name, std::string_view text,
                            Attributes attributes) {
  pugi::xml_node node = element(parent, name, attributes);
  node.append_child(pugi::node_pcdata).set_value(std::string(text).c_str());
  return node;
}

void hover_text(pugi::xml_node shape, std::string_view text) {
  text_element(shape, "title", text);
}

pugi::xml_node svg_figure(pugi::xml_node parent, double width, double height,
                          std::string_view description, std::string_view css_class) {
  const std::string view_box = "0 0 " + format_number(width) + " " + format_number(height);
  pugi::xml_node svg = element(parent, "svg",
                               {{"xmlns", "http://www.w3.org/2000/svg"},
                                {"class", css_class},
                                {"width", width},
                                {"height", height},
                                {"viewBox", view_box},
                                {"role", "img"}});
  text_element(svg, "desc", description);
  return svg;
}

}  // namespace ucudnn::cli::report
