#pragma once
// The stable name of one of cuDNN's engine configurations, as the planner, the database, the
// reports and UCUDNN_EXCLUDE_ALGORITHMS write it: the engine's global index and its knob
// choices, "eng12{k2=1,k3=0}" (knob type = value, by knob type), "eng12" without knobs. A
// name of this form is an engine configuration of cuDNN's graph API; any other cuDNN name is a
// legacy algorithm ("IMPLICIT_GEMM"), which old databases hold and which stays runnable.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ucudnn {

struct EngineName {
  std::int64_t engine = 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> knobs;  // (knob type, value), by type

  // Knobs sorted by type, so that one configuration has one name.
  static EngineName of(std::int64_t engine,
                       std::vector<std::pair<std::int64_t, std::int64_t>> knobs);
  // nullopt for anything that is not exactly the canonical form's grammar.
  static std::optional<EngineName> parse(std::string_view name);
  std::string to_string() const;
  friend bool operator==(const EngineName&, const EngineName&) = default;
};

// Whether `name` reads as an engine configuration (and not as a legacy algorithm).
inline bool is_engine_name(std::string_view name) {
  return EngineName::parse(name).has_value();
}

}  // namespace ucudnn
