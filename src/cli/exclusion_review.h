#pragma once
// What the algorithms listed for a network's kernels leave to plan with: a kernel the backend
// lists no algorithm for (a data type it does not compute), or one the user's
// --exclude-algorithms leaves nothing (bench fails before anything is measured, plan and report
// before drawing "nothing fits"), and each entry that excluded nothing (a mistyped algorithm, a
// backend this build does not have), most likely not what the user meant.
#include <string>
#include <vector>

#include "core/algorithm_exclusion.h"
#include "network_kernels.h"

namespace ucudnn::cli {

struct ExclusionReview {
  std::string error;                  // empty: every kernel has an algorithm left
  std::vector<std::string> warnings;  // one per entry that excluded nothing
};

// `account` has filtered `backend`'s algorithms of every kernel of `kernels`; `excluded_by`
// names where the exclusion came from (the option or the variable); `backends`: this build's.
ExclusionReview review_exclusion(const ExclusionAccount& account, const std::string& excluded_by,
                                 const std::string& backend,
                                 const std::vector<NetworkKernel>& kernels,
                                 const std::vector<std::string>& backends);

}  // namespace ucudnn::cli
