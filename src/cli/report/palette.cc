#include "report/palette.h"

#include <vector>

#include "report/svg.h"

namespace ucudnn::cli::report {

namespace {

struct Colour {
  const char* hex;
  bool dark;  // white text reads on it
};
// Okabe-Ito, alternating dark and light.
constexpr Colour kColours[] = {{"#0072B2", true},  {"#E69F00", false}, {"#009E73", true},
                               {"#F0E442", false}, {"#D55E00", true},  {"#56B4E9", false},
                               {"#CC79A7", false}, {"#555555", true}};
constexpr std::size_t kCount = sizeof kColours / sizeof kColours[0];

std::string key(const std::string& backend, const std::string& algorithm) {
  return backend + ":" + algorithm;
}

}  // namespace

Swatch swatch(std::size_t i) {
  const Colour& c = kColours[i % kCount];
  if (i < kCount) return {c.hex, c.dark ? "#ffffff" : "#000000"};
  return {"url(#hatch-" + std::to_string(i % kCount) + ")", "#000000"};
}

AlgorithmColors::AlgorithmColors(const ReportModel& model) {
  auto add = [&](const std::string& backend, const std::string& algorithm) {
    index_.emplace(key(backend, algorithm), index_.size());
  };
  auto add_configuration = [&](const std::optional<Configuration>& c) {
    if (!c) return;
    for (const auto& m : c->micro) add(m.backend, m.algorithm);
    if (c->offload)
      for (const auto& m : c->offload->micro) add(m.backend, m.algorithm);
  };
  for (const auto& k : model.kernels) {
    add_configuration(k.wr);
    add_configuration(k.wd);
    if (k.undivided) add(k.undivided->backend, k.undivided->algorithm);
  }
}

const Swatch& AlgorithmColors::of(const std::string& backend, const std::string& algorithm) const {
  const std::string name = key(backend, algorithm);
  auto cached = cache_.find(name);
  if (cached != cache_.end()) return cached->second;
  auto found = index_.find(name);
  const std::size_t i = found == index_.end() ? kCount - 1 : found->second;
  return cache_.emplace(name, swatch(i)).first->second;
}

void AlgorithmColors::add_pattern_definitions(pugi::xml_node svg) {
  pugi::xml_node defs = element(svg, "defs");
  for (std::size_t i = 0; i < kCount; ++i) {
    const std::string id = "hatch-" + std::to_string(i);
    pugi::xml_node pattern = element(defs, "pattern",
                                     {{"id", id},
                                      {"width", 6.0},
                                      {"height", 6.0},
                                      {"patternUnits", "userSpaceOnUse"},
                                      {"patternTransform", "rotate(45)"}});
    element(pattern, "rect", {{"width", 6.0}, {"height", 6.0}, {"fill", kColours[i].hex}});
    element(pattern, "line",
            {{"x1", 0.0},
             {"y1", 0.0},
             {"x2", 0.0},
             {"y2", 6.0},
             {"stroke", "#ffffff"},
             {"stroke-width", 2.0}});
  }
}

}  // namespace ucudnn::cli::report
