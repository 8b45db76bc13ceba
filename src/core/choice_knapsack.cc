#include "core/choice_knapsack.h"

#include <glpk.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "core/glpk_session.h"
#include "core/knapsack_relaxation.h"
#include "core/saturating.h"

namespace ucudnn {

namespace {

using glpk::glpk_mutex;
using glpk::GlpkEnvironment;
using glpk::GlpkProblem;
using glpk::GlpkSilence;
using glpk::solve_relaxation;
using knapsack::Column;
using knapsack::Counts;
using knapsack::time_of;
using knapsack::weight_of;

// GLPK calls a value integral within tol_int and a row satisfied within a relative feasibility
// tolerance; with weights of millions of units, a count of "1" may be 1 - 1e-6 and the division
// it stands for a few units over the capacity. Every answer is therefore checked in integers;
// one that does not fit is split, branch and bound over GLPK's answers: the count GLPK rounded
// most is forced to either side, or, when every count is integral and the row tolerance let the
// weight through, that one division is cut out exactly (exclude). The best division that fits
// wins; the incumbent (always feasible) stands when no answer improves on it.
struct ExactSearch {
  static constexpr int kMaxDepth = 64;

  glp_prob* lp;
  const std::vector<ChoiceGroup>& groups;
  const std::vector<Column>& columns;
  std::uint64_t capacity;
  Counts best;
  double best_time;

  // An error message when GLPK fails on the first program; branches that fail are dropped.
  std::optional<std::string> run(int depth) {
    // GLPK's MIP preprocessor reduces the capacity row's coefficients in floating point and
    // at these magnitudes cuts off feasible divisions (a measured miss: 88.25 returned where
    // 71.875 fits); the branch and bound starts from the relaxation solved here instead.
    if (!solve_relaxation(lp)) {
      if (depth == 0)
        return "the WD integer program's relaxation was not solved (GLPK status " +
               std::to_string(glp_get_status(lp)) + ")";
      return std::nullopt;
    }
    if (glp_get_status(lp) != GLP_OPT) return std::nullopt;  // this branch holds no division
    glp_iocp parameters;
    glp_init_iocp(&parameters);
    parameters.presolve = GLP_OFF;
    parameters.msg_lev = GLP_MSG_OFF;
    parameters.br_tech = GLP_BR_DTH;
    // Integral within half a unit of the heaviest column's weight, where GLPK allows it.
    parameters.tol_int = std::clamp(0.25 / max_weight(), 1e-9, 1e-5);
    const int status = glp_intopt(lp, &parameters);
    const int mip_status = glp_mip_status(lp);
    if (status != 0 || (mip_status != GLP_OPT && mip_status != GLP_FEAS)) {
      if (depth == 0 && mip_status != GLP_NOFEAS)
        return "the WD integer program was not solved (GLPK status " + std::to_string(status) +
               ", solution status " + std::to_string(mip_status) + ")";
      return std::nullopt;
    }
    const double slack = 1e-9 * std::max(1.0, std::abs(best_time));
    Counts counts = rounded();
    const std::uint64_t weight = weight_of(groups, counts);
    if (glp_mip_obj_val(lp) >= best_time - slack) return std::nullopt;  // cannot improve
    if (weight <= capacity) {
      const double time = time_of(groups, counts);
      if (time < best_time) {
        best = std::move(counts);
        best_time = time;
      }
      return std::nullopt;
    }
    if (depth >= kMaxDepth) return std::nullopt;
    // The count whose rounding added the most weight.
    int culprit = 0;
    double worst = 0;
    for (int j = 1; j <= static_cast<int>(columns.size()); ++j) {
      const double value = glp_mip_col_val(lp, j);
      const double moved =
          std::abs(value - std::round(value)) *
          static_cast<double>(groups[columns[j - 1].group].weight[columns[j - 1].choice]);
      if (moved > worst) worst = moved, culprit = j;
    }
    if (culprit == 0) {
      exclude(counts, depth);
      return std::nullopt;
    }
    const double value = glp_mip_col_val(lp, culprit);
    const int kind = glp_get_col_type(lp, culprit);
    const double lower = glp_get_col_lb(lp, culprit), upper = glp_get_col_ub(lp, culprit);
    if (std::floor(value) >= lower) {
      set_bounds(culprit, lower, std::floor(value));
      run(depth + 1);
    }
    if (std::ceil(value) <= upper) {
      set_bounds(culprit, std::ceil(value), upper);
      run(depth + 1);
    }
    glp_set_col_bnds(lp, culprit, kind, lower, upper);
    return std::nullopt;
  }

  // Every count integral, yet over the capacity: GLPK's row tolerance let it through. The
  // divisions that differ from this one are split exactly into "count j below this one's" for
  // each count j it uses, the earlier ones held at least at this one's; what is left is this
  // division alone (the counts of a group sum to its multiplicity), which does not fit.
  void exclude(const Counts& counts, int depth) {
    struct Saved {
      int column, kind;
      double lower, upper;
    };
    std::vector<Saved> saved;
    for (int j = 1; j <= static_cast<int>(columns.size()); ++j) {
      const auto count = static_cast<double>(counts[columns[j - 1].group][columns[j - 1].choice]);
      if (count < 1) continue;
      const Saved bounds{j, glp_get_col_type(lp, j), glp_get_col_lb(lp, j), glp_get_col_ub(lp, j)};
      if (count - 1 >= bounds.lower) {
        set_bounds(j, bounds.lower, count - 1);
        run(depth + 1);
      }
      if (count > bounds.upper) break;  // no division holds it at least here
      set_bounds(j, count, bounds.upper);
      saved.push_back(bounds);
    }
    for (auto it = saved.rbegin(); it != saved.rend(); ++it)
      glp_set_col_bnds(lp, it->column, it->kind, it->lower, it->upper);
  }

  void set_bounds(int column, double lower, double upper) {
    glp_set_col_bnds(lp, column, lower == upper ? GLP_FX : GLP_DB, lower, upper);
  }

  Counts rounded() const {
    Counts counts(groups.size());
    for (std::size_t g = 0; g < groups.size(); ++g) counts[g].assign(groups[g].time.size(), 0);
    for (int j = 1; j <= static_cast<int>(columns.size()); ++j)
      counts[columns[j - 1].group][columns[j - 1].choice] =
          static_cast<std::int64_t>(std::llround(glp_mip_col_val(lp, j)));
    return counts;
  }

  double max_weight() const {
    double heaviest = 1;
    for (const auto& column : columns)
      heaviest =
          std::max(heaviest, static_cast<double>(groups[column.group].weight[column.choice]));
    return heaviest;
  }
};

}  // namespace

Expected<ChoiceSolution> solve_choice_knapsack(const std::vector<ChoiceGroup>& groups,
                                               std::uint64_t capacity) {
  std::uint64_t lightest_total = 0;
  std::vector<std::uint64_t> lightest(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    lightest[g] = *std::min_element(groups[g].weight.begin(), groups[g].weight.end());
    lightest_total = saturating_add(
        lightest_total,
        saturating_multiply(static_cast<std::uint64_t>(groups[g].multiplicity), lightest[g]));
  }
  // A choice that leaves too little for everything else at its lightest is never taken.
  std::vector<Column> columns;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto room = capacity - (lightest_total - lightest[g]);
    for (std::size_t c = 0; c < groups[g].weight.size(); ++c)
      if (groups[g].weight[c] <= room) columns.push_back({g, c});
  }

  std::lock_guard lock(glpk_mutex());
  const GlpkEnvironment environment;  // outlives the problems below
  const GlpkSilence silence;

  // The LP relaxation, over each group's convex hull.
  const auto hull = knapsack::hull_columns(groups, columns);
  GlpkProblem relaxation = knapsack::load_program(groups, hull, capacity);
  knapsack::set_relaxation_basis(groups, hull, capacity, relaxation.get());
  if (!solve_relaxation(relaxation.get()) || glp_get_status(relaxation.get()) != GLP_OPT)
    return Error{"the LP relaxation of the WD program was not solved"};
  const double lower_bound = glp_get_obj_val(relaxation.get());
  Counts best = knapsack::round_relaxation(groups, hull, relaxation.get());
  if (weight_of(groups, best) > capacity) {
    // The LP may overstep the capacity within GLPK's tolerance; everything at its lightest
    // is feasible by the precondition.
    for (std::size_t g = 0; g < groups.size(); ++g) {
      std::fill(best[g].begin(), best[g].end(), 0);
      const auto& w = groups[g].weight;
      best[g][static_cast<std::size_t>(std::min_element(w.begin(), w.end()) - w.begin())] =
          groups[g].multiplicity;
    }
  }
  knapsack::improve_greedily(groups, capacity, best);
  const double upper_bound = time_of(groups, best);

  // Reduced-cost fixing over every column, priced with the relaxation's duals. A division
  // of time V uses only columns whose reduced cost is at most V - lower_bound (its reduced
  // costs, times its counts, sum to at most that). So the program over the columns within a
  // threshold holds every division faster than lower_bound + threshold, and its optimum is
  // the optimum when it is that fast. Fixing first to an eighth of the incumbent's gap
  // (typically above the optimum's) leaves a much smaller program; when its answer is not
  // that fast, the threshold rises to that answer's gap, which holds the optimum.
  const double slack = 1e-9 * std::max(1.0, std::abs(upper_bound));
  const double capacity_price =
      glp_get_row_dual(relaxation.get(), static_cast<int>(groups.size()) + 1);
  std::vector<double> reduced(columns.size());
  for (std::size_t j = 0; j < columns.size(); ++j) {
    const auto [g, c] = columns[j];
    reduced[j] = groups[g].time[c] - glp_get_row_dual(relaxation.get(), static_cast<int>(g) + 1) -
                 capacity_price * static_cast<double>(groups[g].weight[c]);
  }
  ChoiceSolution solution;
  solution.variables = columns.size();
  double best_time = upper_bound;
  for (double threshold = (upper_bound - lower_bound) / 8;; threshold = best_time - lower_bound) {
    if (best_time - lower_bound <= slack) break;  // the incumbent meets the bound
    std::vector<Column> unfixed;
    for (std::size_t j = 0; j < columns.size(); ++j)
      if (reduced[j] <= threshold + slack) unfixed.push_back(columns[j]);
    solution.unfixed_variables = unfixed.size();
    GlpkProblem program = knapsack::load_program(groups, unfixed, capacity);
    knapsack::carry_basis(relaxation.get(), hull, program.get(), unfixed, groups);
    ExactSearch search{program.get(), groups, unfixed, capacity, std::move(best), best_time};
    if (auto failed = search.run(0)) return Error{*failed};
    best = std::move(search.best);
    best_time = search.best_time;
    if (best_time <= lower_bound + threshold + slack) break;  // proven optimal
  }
  solution.counts = std::move(best);
  return solution;
}

}  // namespace ucudnn
