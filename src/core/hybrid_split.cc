#include "core/hybrid_split.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace ucudnn {

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

std::uint64_t slice_bytes(const TensorShape& shape, std::int64_t samples, DataType type) {
  if (samples <= 0) return 0;
  TensorShape slice = shape;
  slice.dims[0] = samples;
  return static_cast<std::uint64_t>(slice.span_elements()) * element_size(type);
}

std::uint64_t whole_bytes(const TensorShape& shape, DataType type) {
  return static_cast<std::uint64_t>(shape.span_elements()) * element_size(type);
}

bool samples_apart(const TensorShape& shape) {
  if (shape.dims.empty()) return false;
  TensorShape one = shape;
  one.dims[0] = 1;
  return shape.strides[0] >= static_cast<std::int64_t>(one.span_elements());
}

// The time of a split (infinity where a side cannot cover its part or the results would not
// fit the limit).
double split_time(const KernelKey& kernel, const ReuseSolutions& device, const ReuseSolutions& host,
                  const HostLink& link, std::uint64_t limit, std::int64_t host_samples) {
  const std::int64_t batch = kernel.problem.batch();
  const double device_ms = device.time_ms(batch - host_samples);
  if (host_samples == 0) return device_ms;
  const auto traffic = share_traffic(kernel, host_samples);
  if (traffic.device_bytes > limit) return kNever;
  // Summed as OffloadedShare::time_ms sums them.
  const double copies = link.copy_ms(traffic.to_host_bytes) + link.copy_ms(traffic.to_device_bytes);
  const double host_ms = host.time_ms(host_samples) + copies;
  return std::max(device_ms, host_ms);
}

}  // namespace

double HostLink::copy_ms(std::uint64_t bytes) const {
  if (bytes == 0) return 0;
  return latency_ms + (std::isinf(bytes_per_ms) ? 0 : static_cast<double>(bytes) / bytes_per_ms);
}

ShareTraffic share_traffic(const KernelKey& kernel, std::int64_t samples) {
  if (samples <= 0) return {};
  const auto& p = kernel.problem;
  const auto x = slice_bytes(p.x, samples, p.data_type);
  const auto y = slice_bytes(p.y, samples, p.data_type);
  const auto w = whole_bytes(p.w, p.data_type);
  switch (kernel.operation) {
    case Operation::kForward:
      return {x + w, y, 0};
    case Operation::kBackwardData:
      return {y + w, x, 0};
    case Operation::kBackwardFilter:
      return {x + y, w, w};
  }
  return {};
}

bool splittable_between_devices(const KernelKey& kernel) {
  return kernel.problem.batch() >= 1 && samples_apart(kernel.problem.x) &&
         samples_apart(kernel.problem.y);
}

std::optional<Configuration> hybrid_configuration(const KernelKey& kernel,
                                                  const ReuseSolutions& device,
                                                  const ReuseSolutions& host, const HostLink& link,
                                                  std::int64_t host_samples) {
  const std::int64_t batch = kernel.problem.batch();
  if (host_samples < 0 || host_samples > batch || !device.covers(batch - host_samples) ||
      !host.covers(host_samples))
    return std::nullopt;
  Configuration configuration = device.configuration(batch - host_samples);
  if (host_samples == 0) return configuration;
  const auto traffic = share_traffic(kernel, host_samples);
  configuration.offload =
      OffloadedShare{host.configuration(host_samples).micro,
                     link.copy_ms(traffic.to_host_bytes) + link.copy_ms(traffic.to_device_bytes),
                     traffic.device_bytes};
  return configuration;
}

Expected<HybridSplit> plan_hybrid_split(const KernelKey& kernel, const MicroTable& device,
                                        const MicroTable& host, const HostLink& link,
                                        std::uint64_t workspace_limit, HybridMode mode) {
  const std::int64_t batch = kernel.problem.batch();
  if (batch <= 0 || device.batch != batch || host.batch != batch)
    return Error{"the tables do not measure " + kernel.to_string()};
  if (!splittable_between_devices(kernel))
    return Error{"the samples of " + kernel.to_string() +
                 " interleave in memory: the batch cannot be split between host and device"};
  const ReuseSolutions on_device(device), on_host(host);
  HybridSplit split;
  split.device_only_ms = on_device.time_ms(batch);

  // Every split both sides cover; fewer host samples win ties (less traffic).
  double best = kNever;
  std::int64_t best_samples = -1;
  const std::int64_t fewest = mode == HybridMode::kOn ? 1 : 0;
  for (std::int64_t c = fewest; c <= batch; ++c) {
    const double time = split_time(kernel, on_device, on_host, link, workspace_limit, c);
    if (time < best) {
      best = time;
      best_samples = c;
    }
  }
  if (best_samples < 0)
    return Error{"no split of " + kernel.to_string() +
                 " between the device (within its limit) and the host covers the batch"};
  split.host_samples = best_samples;
  split.configuration = *hybrid_configuration(kernel, on_device, on_host, link, best_samples);

  // The throughput rule, snapped to the nearest split both sides cover (and the mode allows).
  const double device_whole = on_device.time_ms(batch), host_whole = on_host.time_ms(batch);
  if (std::isfinite(device_whole) && std::isfinite(host_whole) && device_whole + host_whole > 0) {
    const auto guess = static_cast<std::int64_t>(
        std::llround(static_cast<double>(batch) * device_whole / (device_whole + host_whole)));
    for (std::int64_t distance = 0; distance <= batch; ++distance) {
      for (const auto c : {guess - distance, guess + distance}) {
        if (c < fewest || c > batch) continue;
        const double time = split_time(kernel, on_device, on_host, link, workspace_limit, c);
        if (std::isfinite(time)) {
          split.throughput_rule_samples = c;
          split.throughput_rule_ms = time;
          break;
        }
      }
      if (std::isfinite(split.throughput_rule_ms)) break;
    }
  }
  return split;
}

ParetoFront hybrid_desirable_configurations(const KernelKey& kernel, const MicroTable& device,
                                            const MicroTable& host, const HostLink& link,
                                            std::uint64_t workspace_limit, HybridMode mode) {
  const std::int64_t batch = kernel.problem.batch();
  if (batch <= 0 || device.batch != batch || host.batch != batch) return {};
  const auto fronts = desirable_configurations_by_batch(device);
  const ParetoFront& alone = fronts[static_cast<std::size_t>(batch)];
  if (alone.empty()) return {};
  if (!splittable_between_devices(kernel)) return mode == HybridMode::kAuto ? alone : ParetoFront{};
  const std::uint64_t reserve = alone.front().workspace_bytes();  // the smallest
  const ReuseSolutions on_host(host);

  // Every candidate by its keys first; only the non-dominated are built.
  struct Candidate {
    std::uint64_t workspace;
    double time;
    std::int64_t host_samples;
    std::size_t index;  // into the device's front at batch - host_samples
    std::uint64_t device_bytes;
    double copy_ms;
  };
  std::vector<Candidate> candidates;
  if (mode == HybridMode::kAuto)
    for (std::size_t i = 0; i < alone.size(); ++i)
      candidates.push_back({alone[i].workspace_bytes(), alone[i].time_ms(), 0, i, 0, 0});
  for (std::int64_t c = 1; c <= batch; ++c) {
    if (!on_host.covers(c)) continue;
    const auto traffic = share_traffic(kernel, c);
    const std::uint64_t device_bytes = std::max(traffic.device_bytes, reserve);
    if (device_bytes > workspace_limit) continue;
    const double copies =
        link.copy_ms(traffic.to_host_bytes) + link.copy_ms(traffic.to_device_bytes);
    const double host_ms = on_host.time_ms(c) + copies;  // as OffloadedShare::time_ms
    const auto& rest = fronts[static_cast<std::size_t>(batch - c)];
    for (std::size_t i = 0; i < rest.size(); ++i)
      candidates.push_back({std::max(rest[i].workspace_bytes(), device_bytes),
                            std::max(rest[i].device_time_ms(), host_ms), c, i, device_bytes,
                            copies});
  }
  // By increasing workspace, each kept only when faster than all before it; ties keep the
  // device alone, then fewer host samples.
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.workspace, a.time, a.host_samples, a.index) <
           std::tie(b.workspace, b.time, b.host_samples, b.index);
  });
  ParetoFront front;
  double best = kNever;
  for (const auto& candidate : candidates) {
    if (!(candidate.time < best)) continue;
    best = candidate.time;
    if (candidate.host_samples == 0) {
      front.push_back(alone[candidate.index]);
      continue;
    }
    const auto& rest = fronts[static_cast<std::size_t>(batch - candidate.host_samples)];
    front.push_back(
        Configuration{rest[candidate.index].micro,
                      OffloadedShare{on_host.configuration(candidate.host_samples).micro,
                                     candidate.copy_ms, candidate.device_bytes}});
  }
  return front;
}

}  // namespace ucudnn
