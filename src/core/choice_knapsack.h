#pragma once
// The exact solver behind WD: a multiple-choice knapsack with multiplicities, as a GLPK
// integer program. Group g holds `multiplicity` interchangeable items (identical kernels);
// each item takes exactly one of the group's choices; the summed weight stays within the
// capacity; the summed time is minimal. Counting choices per group instead of giving each
// identical kernel its own binaries removes the symmetric solutions that otherwise make
// branch-and-bound explore permutations of equivalent plans.
#include <cstdint>
#include <vector>

#include "core/expected.h"

namespace ucudnn {

struct ChoiceGroup {
  std::int64_t multiplicity = 1;
  std::vector<double> time;           // per choice
  std::vector<std::uint64_t> weight;  // per choice, integral units
};

struct ChoiceSolution {
  std::vector<std::vector<std::int64_t>> counts;  // per group, how many items take each choice
  std::size_t variables = 0;                      // integer variables of the program
  std::size_t unfixed_variables = 0;              // left after reduced-cost fixing
};

// Preconditions: every group has at least one choice; the sum over groups of
// multiplicity x lightest weight is within the capacity (the caller reports otherwise).
Expected<ChoiceSolution> solve_choice_knapsack(const std::vector<ChoiceGroup>& groups,
                                               std::uint64_t capacity);

}  // namespace ucudnn
