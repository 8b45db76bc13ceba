#pragma once
// How many typing mistakes lie between two names, for "did you mean ...?" about a misspelt
// setting or option.
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace ucudnn {

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
// neighbours each count one (LOG_LEVLE is one mistake from LOG_LEVEL, not two).
std::size_t typing_distance(std::string_view a, std::string_view b);

// Of `known`, the one nearest `name` within `allowed` mistakes (the first of equals); nullopt
// where none is.
std::optional<std::string_view> nearest_within(std::string_view name,
                                               const std::vector<std::string_view>& known,
                                               std::size_t allowed);

}  // namespace ucudnn
