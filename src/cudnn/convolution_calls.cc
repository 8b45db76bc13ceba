#include "cudnn/convolution_calls.h"

#include <vector>

#include "cudnn/operation_table.h"

namespace ucudnn::cudnn {

namespace {

using operation_table::with_row;

// Calls a resolved function, or reports NOT_INITIALIZED when the library lacks it: passing a
// call through needs only the function it calls.
template <typename Function, typename... Arguments>
cudnnStatus_t call(Function function, Arguments... arguments) {
  return function ? function(arguments...) : CUDNN_STATUS_NOT_INITIALIZED;
}

// Calls `select` with an array of the operation's perf struct and converts the results.
template <typename Perf, typename Select>
cudnnStatus_t collect(int requested, int* returned, AlgorithmPerf* results, Select select) {
  if (requested <= 0 || !returned || !results) return select(requested, returned, nullptr);
  std::vector<Perf> perf(static_cast<std::size_t>(requested));
  const cudnnStatus_t status = select(requested, returned, perf.data());
  if (status == CUDNN_STATUS_SUCCESS)
    for (int i = 0; i < *returned && i < requested; ++i) results[i] = from_cudnn(perf[i]);
  return status;
}

}  // namespace

cudnnStatus_t convolve(const CudnnApi& api, cudnnHandle_t handle, Operation operation,
                       int algorithm, const void* alpha, const ConvolutionDescriptors& d,
                       const ConvolutionBuffers& b, void* workspace, std::size_t bytes,
                       const void* beta) {
  return with_row(
      operation,
      [&](auto row) {
        using Row = decltype(row);
        return call(api.*Row::run, handle, alpha, d.*Row::first, b.*Row::first_buffer,
                    d.*Row::second, b.*Row::second_buffer, d.convolution,
                    static_cast<typename Row::Algorithm>(algorithm), workspace, bytes, beta,
                    d.*Row::output, b.*Row::output_buffer);
      },
      CUDNN_STATUS_BAD_PARAM);
}

cudnnStatus_t workspace_size(const CudnnApi& api, cudnnHandle_t handle, Operation operation,
                             const ConvolutionDescriptors& d, int algorithm, std::size_t* bytes) {
  return with_row(
      operation,
      [&](auto row) {
        using Row = decltype(row);
        return call(api.*Row::workspace_size, handle, d.*Row::first, d.*Row::second, d.convolution,
                    d.*Row::output, static_cast<typename Row::Algorithm>(algorithm), bytes);
      },
      CUDNN_STATUS_BAD_PARAM);
}

cudnnStatus_t algorithm_max_count(const CudnnApi& api, cudnnHandle_t handle, Operation operation,
                                  int* count) {
  return with_row(
      operation,
      [&](auto row) {
        using Row = decltype(row);
        return call(api.*Row::max_count, handle, count);
      },
      CUDNN_STATUS_BAD_PARAM);
}

cudnnStatus_t select_algorithms(const CudnnApi& api, cudnnHandle_t handle, Operation operation,
                                Selection selection, const ConvolutionDescriptors& d, int requested,
                                int* returned, AlgorithmPerf* results, const ConvolutionBuffers& b,
                                void* workspace, std::size_t bytes) {
  return with_row(
      operation,
      [&](auto row) {
        using Row = decltype(row);
        using Perf = typename Row::Perf;
        return collect<Perf>(requested, returned, results, [&](int n, int* count, Perf* perf) {
          switch (selection) {
            case Selection::kHeuristic:
              return call(api.*Row::heuristic, handle, d.*Row::first, d.*Row::second, d.convolution,
                          d.*Row::output, n, count, perf);
            case Selection::kFind:
              return call(api.*Row::find, handle, d.*Row::first, d.*Row::second, d.convolution,
                          d.*Row::output, n, count, perf);
            case Selection::kFindEx:
              return call(api.*Row::find_ex, handle, d.*Row::first, b.*Row::first_buffer,
                          d.*Row::second, b.*Row::second_buffer, d.convolution, d.*Row::output,
                          b.*Row::output_buffer, n, count, perf, workspace, bytes);
          }
          return CUDNN_STATUS_BAD_PARAM;
        });
      },
      CUDNN_STATUS_BAD_PARAM);
}

}  // namespace ucudnn::cudnn
