#pragma once
// What the user's --exclude-algorithms did to the algorithms bench listed: an exclusion that
// leaves a kernel nothing to plan with is an error before anything is measured (planning would
// only say, after the measuring, that nothing fits the limit); an entry that excluded nothing
// (a mistyped algorithm, a backend this build does not have) is named, as it is most likely
// not what the user meant.
#include <string>
#include <vector>

#include "core/algorithm_exclusion.h"
#include "network_kernels.h"

namespace ucudnn::cli {

struct ExclusionReview {
  std::string error;                  // empty: every kernel keeps an algorithm
  std::vector<std::string> warnings;  // one per entry that excluded nothing
};

// `device` has listed the algorithms of every kernel of `kernels`; `backends`: this build's.
ExclusionReview review_exclusion(const ExcludingBenchmarker& device,
                                 const AlgorithmExclusion& exclusion,
                                 const std::vector<NetworkKernel>& kernels,
                                 const std::vector<std::string>& backends);

}  // namespace ucudnn::cli
