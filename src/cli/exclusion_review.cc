#include "exclusion_review.h"

#include <algorithm>

namespace ucudnn::cli {

ExclusionReview review_exclusion(const ExclusionAccount& account, const std::string& backend,
                                 const std::vector<NetworkKernel>& kernels,
                                 const std::vector<std::string>& backends) {
  ExclusionReview review;
  const AlgorithmExclusion& exclusion = account.exclusion();
  const auto emptied = account.kernels_left_without_algorithms();
  std::size_t count = 0;
  std::string first;
  for (const auto& kernel : kernels) {
    if (!emptied.count(kernel.key.to_string())) continue;
    if (count++ == 0) first = kernel.label();
  }
  if (count > 0)
    review.error = "--exclude-algorithms '" + exclusion.to_string() + "' excludes every " +
                   backend + " algorithm of " + std::to_string(count) + " of the " +
                   std::to_string(kernels.size()) + " kernels, e.g. " + first +
                   ": nothing is left to plan them with";
  for (const auto& entry : account.entries_that_excluded_nothing(backend))
    review.warnings.push_back("--exclude-algorithms entry '" + entry + "' matched none of the " +
                              backend + " algorithms listed for these kernels");
  std::string names;
  for (const auto& name : backends) names += (names.empty() ? "" : ", ") + name;
  for (std::size_t i = 0; i < exclusion.size(); ++i)
    if (std::none_of(backends.begin(), backends.end(), [&](const std::string& name) {
          return exclusion.entry_names_backend(i, name);
        }))
      review.warnings.push_back("--exclude-algorithms entry '" + exclusion.entry(i) +
                                "' names no backend of this build (" + names + ")");
  return review;
}

}  // namespace ucudnn::cli
