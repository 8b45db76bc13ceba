#pragma once
// The fixed performance model of the cuDNN test doubles: for (kernel, algorithm) at the
// kernel's batch, whether the algorithm applies, its modeled time and its workspace. The
// doubles advance their virtual clocks by these times and demand these workspaces, so
// plans made on the doubles are deterministic, and tests predict them from this file.
//
// Families (the shape of cuDNN's real trade-off, not its numbers):
//   GEMM-like      slow, no or tiny workspace independent of the batch
//   GEMM (im2col)  medium, workspace growing with the batch
//   FFT-like       fast, workspace growing with the batch plus a filter part
//   Winograd-like  3x3, stride 1, dilation 1 only; the fused one has a small fixed
//                  workspace, the non-fused one is faster and grows with the batch
// time_ms = kLaunchMs + GFLOP / rate, GFLOP = 2 N K P Q (C/groups) R S / 1e9, and the rate
// in TFLOP/s (1 GFLOP at 1 TFLOP/s = 1 ms). The launch cost makes fewer, larger
// micro-batches cheaper, as on a real GPU. FAKECUDA_GPU_SLOWDOWN=s divides every rate by s:
// the tests' small problems then take as long as real layers do, for tests that weigh GPU
// time against real host time (which an instrumented build or a busy machine inflates).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/engine_name.h"
#include "core/kernel_key.h"

namespace ucudnn::fakecuda {

inline constexpr double kLaunchMs = 0.0002;

enum class Family {
  kNone,
  kGemmNoWorkspace,
  kGemmTiny,
  kIm2col,
  kFft,
  kFftTiling,
  kWinograd,
  kWinogradNonfused
};

struct AlgorithmModel {
  std::string_view name;  // cuDNN's enum name without the prefix
  Family family;
  double rate_tflops;
  bool deterministic;
};

// Indexed by cuDNN's enum value for each operation (cudnnConvolutionFwdAlgo_t, ...).
inline constexpr AlgorithmModel kForwardAlgorithms[] = {
    {"IMPLICIT_GEMM", Family::kGemmNoWorkspace, 1.0, true},
    {"IMPLICIT_PRECOMP_GEMM", Family::kGemmTiny, 1.6, true},
    {"GEMM", Family::kIm2col, 1.3, true},
    {"DIRECT", Family::kNone, 0, true},  // never supported, as in cuDNN
    {"FFT", Family::kFft, 4.0, true},
    {"FFT_TILING", Family::kFftTiling, 3.0, true},
    {"WINOGRAD", Family::kWinograd, 2.5, true},
    {"WINOGRAD_NONFUSED", Family::kWinogradNonfused, 5.0, true},
};
inline constexpr AlgorithmModel kBackwardDataAlgorithms[] = {
    {"ALGO_0", Family::kGemmNoWorkspace, 0.9, false},
    {"ALGO_1", Family::kGemmTiny, 1.5, true},
    {"FFT", Family::kFft, 4.0, true},
    {"FFT_TILING", Family::kFftTiling, 3.0, true},
    {"WINOGRAD", Family::kWinograd, 2.5, true},
    {"WINOGRAD_NONFUSED", Family::kWinogradNonfused, 5.0, true},
};
inline constexpr AlgorithmModel kBackwardFilterAlgorithms[] = {
    {"ALGO_0", Family::kGemmNoWorkspace, 0.9, false},
    {"ALGO_1", Family::kGemmTiny, 1.5, true},
    {"FFT", Family::kFft, 4.0, true},
    {"ALGO_3", Family::kGemmTiny, 1.4, false},
    {"WINOGRAD", Family::kNone, 0, true},  // not implemented in cuDNN either
    {"WINOGRAD_NONFUSED", Family::kWinogradNonfused, 5.0, true},
    {"FFT_TILING", Family::kFftTiling, 3.0, true},
};

inline int algorithm_count(Operation operation) {
  switch (operation) {
    case Operation::kForward:
      return 8;
    case Operation::kBackwardData:
      return 6;
    default:
      return 7;
  }
}

// nullptr for an index outside the operation's enum.
inline const AlgorithmModel* algorithm_model(Operation operation, int algorithm) {
  if (algorithm < 0 || algorithm >= algorithm_count(operation)) return nullptr;
  switch (operation) {
    case Operation::kForward:
      return &kForwardAlgorithms[algorithm];
    case Operation::kBackwardData:
      return &kBackwardDataAlgorithms[algorithm];
    default:
      return &kBackwardFilterAlgorithms[algorithm];
  }
}

inline double gpu_slowdown() {
  static const double slowdown = [] {
    const char* text = std::getenv("FAKECUDA_GPU_SLOWDOWN");
    const double value = text ? std::strtod(text, nullptr) : 1;
    return value >= 1 ? value : 1;
  }();
  return slowdown;
}

struct Modeled {
  bool supported = false;
  double time_ms = 0;
  std::uint64_t workspace_bytes = 0;
};

// The model for 2-d float, double, half or bfloat16 problems (the doubles support nothing
// else), which kernel_from_descriptors has checked; the guard below only keeps arithmetic
// defined. Buffers of the problem's tensors (im2col, Winograd) take its element size; split-K
// partial sums are float for the 16-bit types, as their accumulation is.
inline Modeled model(const KernelKey& kernel, int algorithm) {
  const AlgorithmModel* a = algorithm_model(kernel.operation, algorithm);
  const ConvolutionProblem& p = kernel.problem;
  if (!a || a->family == Family::kNone || p.x.dims.size() != 4 || p.w.dims.size() != 4 ||
      p.y.dims.size() != 4 || p.groups <= 0 ||
      (p.data_type != DataType::kFloat && p.data_type != DataType::kDouble &&
       p.data_type != DataType::kHalf && p.data_type != DataType::kBFloat16))
    return {};
  const std::int64_t n = p.x.dims[0], c = p.x.dims[1], h = p.x.dims[2], w = p.x.dims[3];
  const std::int64_t k = p.w.dims[0], r = p.w.dims[2], s = p.w.dims[3];
  const std::int64_t out_h = p.y.dims[2], out_w = p.y.dims[3], cg = c / p.groups;
  const bool unit =
      p.stride[0] == 1 && p.stride[1] == 1 && p.dilation[0] == 1 && p.dilation[1] == 1;
  const bool three_by_three = r == 3 && s == 3;
  const std::uint64_t element = element_size(p.data_type);
  // Spectral size of one padded image plane (complex64 = 8 bytes per point).
  const std::uint64_t plane =
      static_cast<std::uint64_t>((h + 2 * p.padding[0]) * (w + 2 * p.padding[1]));
  const std::uint64_t tiles = static_cast<std::uint64_t>(((out_h + 1) / 2) * ((out_w + 1) / 2));
  std::uint64_t workspace = 0;
  switch (a->family) {
    case Family::kGemmNoWorkspace:
      break;
    case Family::kGemmTiny:
      workspace = 4 * static_cast<std::uint64_t>(cg * r * s) + 256;
      break;
    case Family::kIm2col:
      workspace = element * static_cast<std::uint64_t>(n * cg * r * s * out_h * out_w);
      break;
    case Family::kFft:
      if (!unit) return {};
      workspace = 8 * plane * static_cast<std::uint64_t>(n * (c + k) + k * cg);
      break;
    case Family::kFftTiling:
      if (!unit) return {};
      workspace = 8 * plane * static_cast<std::uint64_t>(n * (c + k) / 2 + k * cg);
      break;
    case Family::kWinograd:
      if (!unit || !three_by_three) return {};
      workspace = element * 16 * static_cast<std::uint64_t>(k * cg);
      break;
    case Family::kWinogradNonfused:
      if (!unit || !three_by_three) return {};
      workspace =
          element * 16 *
          (tiles * static_cast<std::uint64_t>(n * (c + k)) + static_cast<std::uint64_t>(k * cg));
      break;
    case Family::kNone:
      return {};
  }
  const double gflop = 2.0 * n * k * out_h * out_w * cg * r * s / 1e9;
  return {true, kLaunchMs + gflop * gpu_slowdown() / a->rate_tflops, workspace};
}

// The double's engine configurations (its graph API). Engine i of a lone convolution is
// legacy algorithm i; the engines of the small-workspace GEMM family also take two knobs: a
// tile size (knob type 2, CUDNN_KNOB_TYPE_TILE_SIZE; only 0) and split-K buffers (type 12,
// CUDNN_KNOB_TYPE_SPLIT_K_BUF; 1, 2 or 4), which trade a workspace of `split` copies of the
// operation's output (growing with the batch, except for BackwardFilter's dw) for time.
inline constexpr std::int64_t kTileKnob = 2, kSplitKnob = 12;
inline constexpr std::int64_t kSplits[] = {1, 2, 4};

// The split-K buffers a configuration's knobs choose (1 where they choose none).
inline std::int64_t split_of(const EngineName& engine) {
  for (const auto& [type, value] : engine.knobs)
    if (type == kSplitKnob) return value;
  return 1;
}

inline bool has_knobs(Operation operation, int algorithm) {
  const AlgorithmModel* a = algorithm_model(operation, algorithm);
  return a && a->family == Family::kGemmTiny;
}

// The engine with `split` K buffers (1: the engine as it is); unsupported for a split the
// engine does not take.
inline Modeled model_engine(const KernelKey& kernel, int algorithm, std::int64_t split) {
  Modeled m = model(kernel, algorithm);
  if (!m.supported || split == 1) return m;
  if (!has_knobs(kernel.operation, algorithm) || (split != 2 && split != 4)) return {};
  const ConvolutionProblem& p = kernel.problem;
  const TensorShape& output = kernel.operation == Operation::kForward        ? p.y
                              : kernel.operation == Operation::kBackwardData ? p.x
                                                                             : p.w;
  const std::uint64_t element = p.data_type == DataType::kDouble ? 8 : 4;  // the accumulator
  m.workspace_bytes += static_cast<std::uint64_t>(split) * element *
                       static_cast<std::uint64_t>(output.element_count());
  m.time_ms = kLaunchMs + (m.time_ms - kLaunchMs) / (1 + 0.2 * static_cast<double>(split - 1));
  return m;
}

// The name ucudnn gives a configuration (core/engine_name.h): "eng3", "eng1{k2=0,k12=4}".
inline std::string engine_configuration_name(Operation operation, int algorithm,
                                             std::int64_t split) {
  std::string name = "eng" + std::to_string(algorithm);
  if (has_knobs(operation, algorithm))
    name += "{k" + std::to_string(kTileKnob) + "=0,k" + std::to_string(kSplitKnob) + "=" +
            std::to_string(split) + "}";
  return name;
}

}  // namespace ucudnn::fakecuda
