#include "synthetic_cost_model.h"

#include <algorithm>
#include <cmath>

namespace ucudnn::bench {

namespace {

struct AlgorithmModel {
  const char* name;
  double efficiency;                  // fraction of peak at full occupancy
  double half_occupancy;              // micro-batch at which half of that efficiency is reached
  double fixed_workspace;             // bytes, independent of the micro-batch
  double workspace_per_image_factor;  // times the input+output bytes of one image
  bool needs_unit_stride;
  bool needs_3x3;
};

constexpr AlgorithmModel kModels[] = {
    {"IMPLICIT_GEMM", 0.30, 2, 0, 0, false, false},
    {"IMPLICIT_PRECOMP_GEMM", 0.45, 4, 64 << 10, 0.02, false, false},
    {"GEMM", 0.55, 8, 0, 3.0, false, false},
    {"DIRECT", 0.25, 1, 0, 0, true, false},
    {"FFT", 0.95, 16, 8 << 20, 6.0, true, false},
    {"FFT_TILING", 0.80, 8, 2 << 20, 2.5, true, false},
    {"WINOGRAD", 0.85, 4, 1 << 20, 0, true, true},
    {"WINOGRAD_NONFUSED", 1.25, 16, 4 << 20, 4.0, true, true},
};

double noise(const std::string& key, const std::string& algorithm, std::int64_t b) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : key + algorithm) h = (h ^ c) * 1099511628211ULL;
  h = (h ^ static_cast<std::uint64_t>(b)) * 1099511628211ULL;
  h ^= h >> 29;
  return 1.0 + 0.03 * (static_cast<double>(h % 2001) / 1000.0 - 1.0);  // +-3%
}

}  // namespace

std::vector<std::string> SyntheticCostModel::algorithms(const KernelKey&) {
  std::vector<std::string> names;
  for (const auto& m : kModels) names.emplace_back(m.name);
  return names;
}

std::optional<Measurement> SyntheticCostModel::benchmark(const KernelKey& kernel,
                                                         const std::string& algorithm,
                                                         std::int64_t b) {
  const auto* model = std::find_if(std::begin(kModels), std::end(kModels),
                                   [&](const AlgorithmModel& m) { return algorithm == m.name; });
  if (model == std::end(kModels)) return std::nullopt;
  const auto& p = kernel.problem;
  const bool unit_stride =
      std::all_of(p.stride.begin(), p.stride.end(), [](auto s) { return s == 1; });
  const bool is_3x3 = p.w.dims.size() == 4 && p.w.dims[2] == 3 && p.w.dims[3] == 3;
  if (model->needs_unit_stride && !unit_stride) return std::nullopt;
  if (model->needs_3x3 && !is_3x3) return std::nullopt;
  // Direct convolution flops of one image; FFT is poor for 1x1 filters.
  const double per_image = 2.0 * static_cast<double>(p.y.element_count() / p.batch()) *
                           static_cast<double>(p.w.element_count() / p.w.dims[0]);
  double efficiency = model->efficiency;
  if (std::string_view(model->name).starts_with("FFT") && p.w.dims[2] == 1) efficiency *= 0.2;
  if (kernel.operation == Operation::kBackwardFilter) efficiency *= 0.8;
  const double bd = static_cast<double>(b);
  const double occupancy = bd / (bd + model->half_occupancy);
  constexpr double kPeakFlopsPerMs = 10e12 / 1e3;  // 10 TFLOP/s
  const double time = 0.01 + per_image * bd / (kPeakFlopsPerMs * efficiency * occupancy);
  const double image_bytes =
      4.0 * static_cast<double>((p.x.element_count() + p.y.element_count()) / p.batch());
  const double workspace =
      model->fixed_workspace + model->workspace_per_image_factor * image_bytes * bd;
  return Measurement{time * noise(kernel.to_string(), algorithm, b),
                     static_cast<std::uint64_t>(workspace)};
}

}  // namespace ucudnn::bench
