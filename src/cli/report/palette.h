#pragma once
// Colours that colour-blind readers tell apart (Okabe and Ito's eight), ordered so that
// neighbours differ in lightness too and stay apart in greyscale. Each algorithm a plan uses
// keeps one colour on every figure of the page; past eight, colours repeat with hatching.
#include <pugixml.hpp>

#include <map>
#include <string>
#include <string_view>

#include "report/report_model.h"

namespace ucudnn::cli::report {

struct Swatch {
  std::string fill;        // "#0072B2", or "url(#hatch-3)" past the eighth
  std::string text_color;  // black or white, whichever reads on the fill
};

// The i-th colour of the cycle (i >= 0), for things that are not algorithms (WD segments).
Swatch swatch(std::size_t i);

class AlgorithmColors {
 public:
  explicit AlgorithmColors(const ReportModel& model);
  const Swatch& of(const std::string& backend, const std::string& algorithm) const;
  // (backend:algorithm, swatch) in the order colours were given.
  const std::map<std::string, std::size_t>& indices() const { return index_; }
  // <defs> with the hatch patterns the swatches refer to, for every <svg> that uses them.
  static void add_pattern_definitions(pugi::xml_node svg);

 private:
  std::map<std::string, std::size_t> index_;
  mutable std::map<std::string, Swatch> cache_;
};

}  // namespace ucudnn::cli::report
