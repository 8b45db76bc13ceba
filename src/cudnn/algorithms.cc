#include "cudnn/algorithms.h"

#include <span>

namespace ucudnn::cudnn {

namespace {

// In enum order, checked against the headers' values below.
constexpr std::string_view kForward[] = {
    "IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING",
    "WINOGRAD",      "WINOGRAD_NONFUSED"};
constexpr std::string_view kBackwardData[] = {"ALGO_0",     "ALGO_1",   "FFT",
                                              "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
constexpr std::string_view kBackwardFilter[] = {
    "ALGO_0", "ALGO_1", "FFT", "ALGO_3", "WINOGRAD", "WINOGRAD_NONFUSED", "FFT_TILING"};
static_assert(CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED == 7 &&
              CUDNN_CONVOLUTION_FWD_ALGO_COUNT == std::size(kForward));
static_assert(CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED == 5 &&
              CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT == std::size(kBackwardData));
static_assert(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING == 6 &&
              CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT == std::size(kBackwardFilter));

std::span<const std::string_view> names_of(Operation operation) {
  switch (operation) {
    case Operation::kForward:
      return kForward;
    case Operation::kBackwardData:
      return kBackwardData;
    case Operation::kBackwardFilter:
      return kBackwardFilter;
  }
  return {};
}

}  // namespace

int algorithm_count(Operation operation) {
  return static_cast<int>(names_of(operation).size());
}

std::string_view algorithm_name(Operation operation, int algorithm) {
  const auto names = names_of(operation);
  if (algorithm < 0 || algorithm >= static_cast<int>(names.size())) return {};
  return names[static_cast<std::size_t>(algorithm)];
}

std::optional<int> algorithm_value(Operation operation, std::string_view name) {
  const auto names = names_of(operation);
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  return std::nullopt;
}

std::vector<std::string> algorithm_names(Operation operation) {
  const auto names = names_of(operation);
  return {names.begin(), names.end()};
}

bool is_deterministic(Operation operation, int algorithm) {
  switch (operation) {
    case Operation::kBackwardData:
      return algorithm != CUDNN_CONVOLUTION_BWD_DATA_ALGO_0;
    case Operation::kBackwardFilter:
      return algorithm != CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0 &&
             algorithm != CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3;
    default:
      return true;
  }
}

}  // namespace ucudnn::cudnn
