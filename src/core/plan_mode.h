#pragma once
// How a stored plan was made, the `mode` of its key: what a lookup must ask for to get a plan
// that suits it. WR plans (one configuration per kernel) and WD divisions (one per kernel of a
// network), WR plans that split the batch with the CPU (hybrid, on or auto), and plans kept to
// deterministic algorithms (a graph API engine without the NONDETERMINISTIC note) under a mode
// of their own, so that an unrestricted plan never serves a kernel that must be deterministic
// and a restricted one never slows an unrestricted kernel down. WR plans made with knob variants
// among the candidates (UCUDNN_KNOB_VARIANTS) under a mode of their own too, so that turning the
// setting off takes the variants out, and turning it on plans anew. WR plans made among the
// heuristics' first N configurations within the limit (UCUDNN_BENCHMARK_LIMIT) where that left
// some out under "+firstN": a lookup under that setting takes an unrestricted plan first, a
// lookup without one (0) never takes a restricted plan.
#include <cstddef>
#include <string>
#include <string_view>

namespace ucudnn {

inline constexpr std::string_view kReuseMode = "WR";
inline constexpr std::string_view kDivisionMode = "WD";
inline constexpr std::string_view kHybridOnMode = "WR+CPU:on";
inline constexpr std::string_view kHybridAutoMode = "WR+CPU:auto";
inline constexpr std::string_view kKnobVariantsSuffix = "+knobs";
inline constexpr std::string_view kDeterministicSuffix = "+deterministic";
inline constexpr std::string_view kBenchmarkLimitSuffix = "+first";  // and the limit

// `base` (one of the modes above), made among the heuristics' first `first` configurations
// within the limit (0: every one), with knob variants among its candidates and restricted to
// deterministic algorithms when asked ("WR+first10+knobs+deterministic").
inline std::string plan_mode(std::string_view base, bool deterministic_only,
                             bool knob_variants = false, std::size_t first = 0) {
  std::string mode(base);
  if (first > 0) mode += std::string(kBenchmarkLimitSuffix) + std::to_string(first);
  if (knob_variants) mode += kKnobVariantsSuffix;
  if (deterministic_only) mode += kDeterministicSuffix;
  return mode;
}

// A mode ucudnn writes; the database tools refuse others.
inline bool is_plan_mode(std::string_view mode) {
  for (const std::string_view suffix : {kDeterministicSuffix, kKnobVariantsSuffix})
    if (mode.size() > suffix.size() && mode.ends_with(suffix)) mode.remove_suffix(suffix.size());
  if (const auto at = mode.rfind(kBenchmarkLimitSuffix); at != std::string_view::npos) {
    const std::string_view count = mode.substr(at + kBenchmarkLimitSuffix.size());
    if (count.empty() || count.front() == '0' ||
        count.find_first_not_of("0123456789") != std::string_view::npos)
      return false;
    mode = mode.substr(0, at);
  }
  return mode == kReuseMode || mode == kDivisionMode || mode == kHybridOnMode ||
         mode == kHybridAutoMode;
}

// One configuration per plan (WR, hybrid) rather than one per kernel of a network (WD).
inline bool is_per_kernel_mode(std::string_view mode) {
  return is_plan_mode(mode) && !mode.starts_with(kDivisionMode);
}

}  // namespace ucudnn
