#include "user_input/typing_distance.h"

#include <algorithm>

namespace ucudnn {

std::size_t typing_distance(std::string_view a, std::string_view b) {
  const std::size_t columns = b.size() + 1;
  std::vector<std::size_t> d((a.size() + 1) * columns);
  auto at = [&](std::size_t i, std::size_t j) -> std::size_t& { return d[i * columns + j]; };
  for (std::size_t i = 0; i <= a.size(); ++i) at(i, 0) = i;
  for (std::size_t j = 0; j <= b.size(); ++j) at(0, j) = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = at(i - 1, j - 1) + (a[i - 1] == b[j - 1] ? 0 : 1);
      at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
    }
  return at(a.size(), b.size());
}

std::optional<std::string_view> nearest_within(std::string_view name,
                                               const std::vector<std::string_view>& known,
                                               std::size_t allowed) {
  std::optional<std::string_view> nearest;
  std::size_t nearest_distance = allowed + 1;
  for (const std::string_view candidate : known)
    if (const std::size_t distance = typing_distance(name, candidate);
        distance < nearest_distance) {
      nearest = candidate;
      nearest_distance = distance;
    }
  return nearest;
}

}  // namespace ucudnn
