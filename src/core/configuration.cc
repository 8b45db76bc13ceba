#include "core/configuration.h"

#include <algorithm>
#include <sstream>

namespace ucudnn {

double Configuration::time_ms() const {
  double total = 0;
  for (const auto& m : micro) total += m.time_ms;
  return total;
}

std::uint64_t Configuration::workspace_bytes() const {
  std::uint64_t largest = 0;
  for (const auto& m : micro) largest = std::max(largest, m.workspace_bytes);
  return largest;
}

std::int64_t Configuration::batch() const {
  std::int64_t total = 0;
  for (const auto& m : micro) total += m.batch;
  return total;
}

std::string Configuration::to_string() const {
  std::ostringstream out;
  for (std::size_t i = 0; i < micro.size();) {
    std::size_t run = i + 1;
    while (run < micro.size() && micro[run].backend == micro[i].backend &&
           micro[run].algorithm == micro[i].algorithm && micro[run].batch == micro[i].batch)
      ++run;
    if (i) out << " + ";
    out << micro[i].backend << ':' << micro[i].algorithm << ':' << micro[i].batch;
    if (run - i > 1) out << " x" << (run - i);
    i = run;
  }
  return out.str();
}

}  // namespace ucudnn
