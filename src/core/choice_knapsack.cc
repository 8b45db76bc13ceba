#include "core/choice_knapsack.h"

#include "core/saturating.h"

#include <glpk.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <string>

namespace ucudnn {

namespace {

using GlpkProblem = std::unique_ptr<glp_prob, decltype(&glp_delete_prob)>;

// GLPK keeps environment state whose thread safety depends on how it was built; one
// program at a time costs nothing measurable here.
std::mutex& glpk_mutex() {
  static std::mutex mutex;
  return mutex;
}

struct Column {
  std::size_t group, choice;
};

using Counts = std::vector<std::vector<std::int64_t>>;

std::uint64_t weight_of(const std::vector<ChoiceGroup>& groups, const Counts& counts) {
  std::uint64_t total = 0;
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (std::size_t c = 0; c < counts[g].size(); ++c)
      total = saturating_add(total, saturating_multiply(static_cast<std::uint64_t>(counts[g][c]),
                                                        groups[g].weight[c]));
  return total;
}

double time_of(const std::vector<ChoiceGroup>& groups, const Counts& counts) {
  double total = 0;
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (std::size_t c = 0; c < counts[g].size(); ++c)
      total += static_cast<double>(counts[g][c]) * groups[g].time[c];
  return total;
}

// A feasible rounding of the LP optimum: whole units stay; each group's fractional units go
// to the lightest choice it uses, which never weighs more than the fractions did.
Counts round_relaxation(const std::vector<ChoiceGroup>& groups, const std::vector<Column>& columns,
                        glp_prob* lp) {
  Counts counts(groups.size());
  std::vector<std::size_t> lightest(groups.size(), SIZE_MAX);
  for (std::size_t g = 0; g < groups.size(); ++g) counts[g].assign(groups[g].time.size(), 0);
  for (std::size_t j = 0; j < columns.size(); ++j) {
    const double value = glp_get_col_prim(lp, static_cast<int>(j) + 1);
    if (value <= 1e-9) continue;
    const auto [g, c] = columns[j];
    counts[g][c] += static_cast<std::int64_t>(std::floor(value + 1e-9));
    if (lightest[g] == SIZE_MAX || groups[g].weight[c] < groups[g].weight[lightest[g]])
      lightest[g] = c;
  }
  for (std::size_t g = 0; g < groups.size(); ++g) {
    std::int64_t placed = 0;
    for (auto n : counts[g]) placed += n;
    if (placed < groups[g].multiplicity) counts[g][lightest[g]] += groups[g].multiplicity - placed;
  }
  return counts;
}

// Spends the capacity the rounding left free on the largest saving that fits, while one
// does. A tighter incumbent lets reduced-cost fixing remove more columns.
void improve_greedily(const std::vector<ChoiceGroup>& groups, std::uint64_t capacity,
                      Counts& counts) {
  std::uint64_t used = weight_of(groups, counts);
  for (;;) {
    double best_saving = 0;
    std::size_t best_group = 0, from = 0, to = 0;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      for (std::size_t a = 0; a < counts[g].size(); ++a) {
        if (counts[g][a] == 0) continue;
        for (std::size_t c = 0; c < counts[g].size(); ++c) {
          const double saving = groups[g].time[a] - groups[g].time[c];
          if (saving > best_saving &&
              used - groups[g].weight[a] + groups[g].weight[c] <= capacity) {
            best_saving = saving;
            best_group = g;
            from = a;
            to = c;
          }
        }
      }
    }
    if (best_saving <= 0) return;
    const auto& group = groups[best_group];
    used = used - group.weight[from] + group.weight[to];
    --counts[best_group][from];
    ++counts[best_group][to];
  }
}

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
  GlpkProblem lp(glp_create_prob(), &glp_delete_prob);
  glp_set_obj_dir(lp.get(), GLP_MIN);
  const int group_rows = static_cast<int>(groups.size());
  glp_add_rows(lp.get(), group_rows + 1);
  for (int g = 1; g <= group_rows; ++g) {  // equation 3, per group of identical kernels
    const auto m = static_cast<double>(groups[g - 1].multiplicity);
    glp_set_row_bnds(lp.get(), g, GLP_FX, m, m);
  }
  glp_set_row_bnds(lp.get(), group_rows + 1, GLP_UP, 0.0, static_cast<double>(capacity));  // eq. 2
  const int n = static_cast<int>(columns.size());
  glp_add_cols(lp.get(), n);
  std::vector<int> rows(1), cols(1);
  std::vector<double> values(1);
  for (int j = 1; j <= n; ++j) {
    const auto [g, c] = columns[j - 1];
    glp_set_col_kind(lp.get(), j, GLP_IV);  // eq. 4, as counts 0..multiplicity
    glp_set_col_bnds(lp.get(), j, GLP_DB, 0.0, static_cast<double>(groups[g].multiplicity));
    glp_set_obj_coef(lp.get(), j, groups[g].time[c]);  // eq. 1
    rows.insert(rows.end(), {static_cast<int>(g) + 1, group_rows + 1});
    cols.insert(cols.end(), {j, j});
    values.insert(values.end(), {1.0, static_cast<double>(groups[g].weight[c])});
  }
  glp_load_matrix(lp.get(), static_cast<int>(rows.size()) - 1, rows.data(), cols.data(),
                  values.data());

  glp_smcp simplex;
  glp_init_smcp(&simplex);
  simplex.msg_lev = GLP_MSG_OFF;
  if (glp_simplex(lp.get(), &simplex) != 0 || glp_get_status(lp.get()) != GLP_OPT)
    return Error{"the LP relaxation of the WD program was not solved"};
  const double lower_bound = glp_get_obj_val(lp.get());
  Counts best = round_relaxation(groups, columns, lp.get());
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
  improve_greedily(groups, capacity, best);
  const double upper_bound = time_of(groups, best);

  // Reduced-cost fixing: raising a column from 0 costs at least its reduced cost, so one
  // whose reduced cost exceeds the gap is 0 in every solution better than the incumbent.
  // Exact: the better of the reduced program's optimum and the incumbent is optimal.
  const double gap = upper_bound - lower_bound;
  const double slack = 1e-9 * std::max(1.0, std::abs(upper_bound));
  ChoiceSolution solution;
  solution.variables = columns.size();
  for (int j = 1; j <= n; ++j) {
    if (glp_get_col_stat(lp.get(), j) == GLP_NL && glp_get_col_dual(lp.get(), j) > gap + slack)
      glp_set_col_bnds(lp.get(), j, GLP_FX, 0.0, 0.0);
    else
      ++solution.unfixed_variables;
  }

  if (gap > slack) {
    glp_iocp parameters;
    glp_init_iocp(&parameters);
    parameters.presolve = GLP_ON;
    parameters.msg_lev = GLP_MSG_OFF;
    parameters.br_tech = GLP_BR_DTH;
    const int status = glp_intopt(lp.get(), &parameters);
    const int mip_status = glp_mip_status(lp.get());
    if (status != 0 || (mip_status != GLP_OPT && mip_status != GLP_FEAS))
      return Error{"the WD integer program was not solved (GLPK status " + std::to_string(status) +
                   ", solution status " + std::to_string(mip_status) + ")"};
    if (glp_mip_obj_val(lp.get()) < upper_bound) {
      for (auto& row : best) std::fill(row.begin(), row.end(), 0);
      for (int j = 1; j <= n; ++j)
        best[columns[j - 1].group][columns[j - 1].choice] =
            static_cast<std::int64_t>(std::llround(glp_mip_col_val(lp.get(), j)));
    }
  }
  solution.counts = std::move(best);
  return solution;
}

}  // namespace ucudnn
