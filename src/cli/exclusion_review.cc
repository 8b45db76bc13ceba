#include "exclusion_review.h"

#include <algorithm>

namespace ucudnn::cli {

ExclusionReview review_exclusion(const ExclusionAccount& account, const std::string& excluded_by,
                                 const std::string& backend,
                                 const std::vector<NetworkKernel>& kernels,
                                 const std::vector<std::string>& backends) {
  ExclusionReview review;
  const AlgorithmExclusion& exclusion = account.exclusion();
  // How many of `kernels` are in `set`, and the first of them.
  auto among = [&](const std::set<std::string>& set) {
    std::pair<std::size_t, const NetworkKernel*> found{0, nullptr};
    for (const auto& kernel : kernels)
      if (set.count(kernel.key.to_string()) && found.first++ == 0) found.second = &kernel;
    return found;
  };
  const std::string of_kernels = " of the " + std::to_string(kernels.size()) + " kernels, e.g. ";
  // Where the backend cannot run some kernels, the others are still worth measuring (the shim
  // leaves those to cuDNN); where it can run none, nothing is.
  const auto [unlisted, first] = among(account.kernels_listed_without_algorithms());
  const std::string no_algorithm =
      unlisted > 0 ? "the " + backend + " backend has no algorithm for " +
                         std::to_string(unlisted) + of_kernels + first->label() + " (data type " +
                         std::string(name_of(first->key.problem.data_type)) + ")"
                   : "";
  if (unlisted > 0 && unlisted == kernels.size())
    review.error = no_algorithm + ": nothing can plan them on it";
  else if (unlisted > 0)
    review.warnings.push_back(no_algorithm + ": they get no plan");
  if (const auto [emptied, example] = among(account.kernels_left_without_algorithms());
      emptied > 0 && review.error.empty())
    review.error = excluded_by + " '" + exclusion.to_string() + "' excludes every " + backend +
                   " algorithm of " + std::to_string(emptied) + of_kernels + example->label() +
                   ": nothing is left to plan them with";
  for (const auto& entry : account.entries_that_excluded_nothing(backend))
    review.warnings.push_back(excluded_by + " entry '" + entry + "' matched none of the " +
                              backend + " algorithms listed for these kernels");
  std::string names;
  for (const auto& name : backends) names += (names.empty() ? "" : ", ") + name;
  for (std::size_t i = 0; i < exclusion.size(); ++i)
    if (std::none_of(backends.begin(), backends.end(), [&](const std::string& name) {
          return exclusion.entry_names_backend(i, name);
        }))
      review.warnings.push_back(excluded_by + " entry '" + exclusion.entry(i) +
                                "' names no backend of this build (" + names + ")");
  return review;
}

}  // namespace ucudnn::cli
