#include "cudnn/algorithms.h"

#include <algorithm>
#include <iterator>
#include <span>

#include "cudnn/operation_table.h"

namespace ucudnn::cudnn {

namespace {

using operation_table::BackwardDataRow;
using operation_table::BackwardFilterRow;
using operation_table::ForwardRow;
using operation_table::with_row;

static_assert(CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED == 7 &&
              CUDNN_CONVOLUTION_FWD_ALGO_COUNT == std::size(ForwardRow::algorithms));
static_assert(CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED == 5 &&
              CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT == std::size(BackwardDataRow::algorithms));
static_assert(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING == 6 &&
              CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT == std::size(BackwardFilterRow::algorithms));

std::span<const std::string_view> names_of(Operation operation) {
  return with_row(
      operation,
      [](auto row) { return std::span<const std::string_view>(decltype(row)::algorithms); },
      std::span<const std::string_view>{});
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
  return with_row(
      operation,
      [&](auto row) {
        const auto& nondeterministic = decltype(row)::nondeterministic;
        return std::find(std::begin(nondeterministic), std::end(nondeterministic), algorithm) ==
               std::end(nondeterministic);
      },
      true);
}

}  // namespace ucudnn::cudnn
