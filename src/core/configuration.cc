#include "core/configuration.h"

#include <algorithm>
#include <sstream>

namespace ucudnn {

namespace {

double summed_time(const std::vector<MicroConfiguration>& micro) {
  double total = 0;
  for (const auto& m : micro) total += m.time_ms;
  return total;
}

std::int64_t summed_batch(const std::vector<MicroConfiguration>& micro) {
  std::int64_t total = 0;
  for (const auto& m : micro) total += m.batch;
  return total;
}

void write_runs(std::ostream& out, const std::vector<MicroConfiguration>& micro) {
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
}

}  // namespace

double OffloadedShare::time_ms() const {
  return summed_time(micro) + copy_ms;
}

std::int64_t OffloadedShare::batch() const {
  return summed_batch(micro);
}

double Configuration::device_time_ms() const {
  return summed_time(micro);
}

std::int64_t Configuration::device_batch() const {
  return summed_batch(micro);
}

double Configuration::time_ms() const {
  const double device = device_time_ms();
  return offload ? std::max(device, offload->time_ms()) : device;
}

std::uint64_t Configuration::workspace_bytes() const {
  std::uint64_t largest = offload ? offload->device_bytes : 0;
  for (const auto& m : micro) largest = std::max(largest, m.workspace_bytes);
  return largest;
}

std::int64_t Configuration::batch() const {
  return device_batch() + (offload ? offload->batch() : 0);
}

std::string Configuration::to_string() const {
  std::ostringstream out;
  write_runs(out, micro);
  if (offload) {
    out << (micro.empty() ? "| " : " | ");
    write_runs(out, offload->micro);
  }
  return out.str();
}

}  // namespace ucudnn
