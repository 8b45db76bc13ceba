#include "core/knapsack_relaxation.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/saturating.h"

namespace ucudnn::knapsack {

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

// The program over the given columns: one row per group (its counts sum to its
// multiplicity; equation 3), one for the capacity (equation 2); counts are integers from 0
// to the multiplicity (equation 4), weighted by time (equation 1).
GlpkProblem load_program(const std::vector<ChoiceGroup>& groups, const std::vector<Column>& columns,
                         std::uint64_t capacity) {
  GlpkProblem lp(glp_create_prob(), &glp_delete_prob);
  glp_set_obj_dir(lp.get(), GLP_MIN);
  const int group_rows = static_cast<int>(groups.size());
  glp_add_rows(lp.get(), group_rows + 1);
  for (int g = 1; g <= group_rows; ++g) {
    const auto m = static_cast<double>(groups[g - 1].multiplicity);
    glp_set_row_bnds(lp.get(), g, GLP_FX, m, m);
  }
  glp_set_row_bnds(lp.get(), group_rows + 1, GLP_UP, 0.0, static_cast<double>(capacity));
  const int n = static_cast<int>(columns.size());
  glp_add_cols(lp.get(), n);
  std::vector<int> rows(1), cols(1);
  std::vector<double> values(1);
  rows.reserve(2 * columns.size() + 1);
  cols.reserve(2 * columns.size() + 1);
  values.reserve(2 * columns.size() + 1);
  for (int j = 1; j <= n; ++j) {
    const auto [g, c] = columns[j - 1];
    glp_set_col_kind(lp.get(), j, GLP_IV);
    glp_set_col_bnds(lp.get(), j, GLP_DB, 0.0, static_cast<double>(groups[g].multiplicity));
    glp_set_obj_coef(lp.get(), j, groups[g].time[c]);
    rows.insert(rows.end(), {static_cast<int>(g) + 1, group_rows + 1});
    cols.insert(cols.end(), {j, j});
    values.insert(values.end(), {1.0, static_cast<double>(groups[g].weight[c])});
  }
  glp_load_matrix(lp.get(), static_cast<int>(rows.size()) - 1, rows.data(), cols.data(),
                  values.data());
  // Weights of millions of units beside the group rows' ones: unscaled, GLPK's dual simplex
  // declares branches infeasible that hold the optimum (a measured miss: "no integer feasible
  // solution" where 146.75 fits).
  glp_scale_prob(lp.get(), GLP_SF_AUTO);
  return lp;
}

// The columns of the LP relaxation: per group, the vertices of the lower-left convex hull
// of its (weight, time) points. Every other choice costs at least as much as a mix of these
// at any price of capacity, so the relaxation over the hull has the optimum and the duals
// of the relaxation over all choices, at a fraction of the size.
std::vector<Column> hull_columns(const std::vector<ChoiceGroup>& groups,
                                 const std::vector<Column>& columns) {
  // `columns` lists each group's choices together (solve_choice_knapsack builds it by group).
  std::vector<Column> hull;
  std::vector<Column> group_columns;
  for (std::size_t begin = 0; begin < columns.size();) {
    const auto g = columns[begin].group;
    auto end = begin;
    while (end < columns.size() && columns[end].group == g) ++end;
    const auto& group = groups[g];
    group_columns.assign(columns.begin() + static_cast<std::ptrdiff_t>(begin),
                         columns.begin() + static_cast<std::ptrdiff_t>(end));
    std::sort(group_columns.begin(), group_columns.end(), [&](Column a, Column b) {
      return std::tie(group.weight[a.choice], group.time[a.choice]) <
             std::tie(group.weight[b.choice], group.time[b.choice]);
    });
    // Monotone chain over increasing weight, keeping strictly decreasing times and turning
    // left only (the cross product in long double: weights reach 2^64).
    const auto first = hull.size();
    for (const auto column : group_columns) {
      if (hull.size() > first && group.time[column.choice] >= group.time[hull.back().choice])
        continue;
      while (hull.size() >= first + 2) {
        const auto a = hull[hull.size() - 2], b = hull.back();
        const long double ax = group.weight[a.choice], ay = group.time[a.choice];
        const long double bx = group.weight[b.choice], by = group.time[b.choice];
        const long double cx = group.weight[column.choice], cy = group.time[column.choice];
        if ((bx - ax) * (cy - ay) - (by - ay) * (cx - ax) > 0) break;  // b stays a vertex
        hull.pop_back();
      }
      hull.push_back(column);
    }
    begin = end;
  }
  return hull;
}

// Gives `lp` (the program over `hull`, as hull_columns lists it) the optimal basis of its
// relaxation, so that GLPK's simplex only confirms it: the relaxation of a multiple-choice
// knapsack is solved by upgrading groups along their hulls in order of decreasing saving per
// unit of weight until the capacity runs out (the last upgrade fractional). Basic: each
// group's vertex reached, and the fractional upgrade's; the capacity row is tight when an
// upgrade stopped short. A basis GLPK cannot factorize is replaced by its standard one.
void set_relaxation_basis(const std::vector<ChoiceGroup>& groups, const std::vector<Column>& hull,
                          std::uint64_t capacity, glp_prob* lp) {
  struct Upgrade {
    long double saving_per_unit;
    std::size_t group;
    int to;  // column (1-based) of the vertex reached
  };
  std::vector<Upgrade> upgrades;
  std::vector<int> reached(groups.size(), 0);  // column of each group's current vertex
  std::uint64_t used = 0;
  for (std::size_t j = 0; j < hull.size(); ++j) {
    const auto [g, c] = hull[j];
    const int column = static_cast<int>(j) + 1;
    if (reached[g] == 0) {
      reached[g] = column;
      used = saturating_add(used,
                            saturating_multiply(static_cast<std::uint64_t>(groups[g].multiplicity),
                                                groups[g].weight[c]));
      continue;
    }
    const auto previous = hull[j - 1].choice;
    upgrades.push_back(
        {static_cast<long double>(groups[g].time[previous] - groups[g].time[c]) /
             static_cast<long double>(groups[g].weight[c] - groups[g].weight[previous]),
         g, column});
  }
  std::stable_sort(upgrades.begin(), upgrades.end(), [](const Upgrade& a, const Upgrade& b) {
    return a.saving_per_unit > b.saving_per_unit;
  });
  const int n = static_cast<int>(hull.size());
  for (int j = 1; j <= n; ++j) glp_set_col_stat(lp, j, GLP_NL);
  const int capacity_row = static_cast<int>(groups.size()) + 1;
  for (int r = 1; r < capacity_row; ++r) glp_set_row_stat(lp, r, GLP_NS);
  glp_set_row_stat(lp, capacity_row, GLP_BS);
  for (const auto& upgrade : upgrades) {
    const auto& group = groups[upgrade.group];
    const auto need = saturating_multiply(
        static_cast<std::uint64_t>(group.multiplicity),
        group.weight[hull[static_cast<std::size_t>(upgrade.to) - 1].choice] -
            group.weight[hull[static_cast<std::size_t>(reached[upgrade.group]) - 1].choice]);
    if (used <= capacity && need <= capacity - used) {
      used += need;
      reached[upgrade.group] = upgrade.to;
      continue;
    }
    glp_set_col_stat(lp, upgrade.to, GLP_BS);  // the fractional upgrade, beside its start
    glp_set_row_stat(lp, capacity_row, GLP_NU);
    break;
  }
  for (const int column : reached) glp_set_col_stat(lp, column, GLP_BS);
  if (glp_factorize(lp) != 0) glp_std_basis(lp);
}

// Gives `to` the basis `from` ended with, column by column (a column `from` lacks enters at
// its lower bound, 0): the program over the columns that survive reduced-cost fixing keeps
// every basic column of its relaxation, and the columns it adds price out at the same duals,
// so its root relaxation is already solved.
void carry_basis(glp_prob* from, const std::vector<Column>& from_columns, glp_prob* to,
                 const std::vector<Column>& to_columns, const std::vector<ChoiceGroup>& groups) {
  std::vector<std::vector<int>> status(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) status[g].assign(groups[g].time.size(), GLP_NL);
  for (std::size_t j = 0; j < from_columns.size(); ++j)
    status[from_columns[j].group][from_columns[j].choice] =
        glp_get_col_stat(from, static_cast<int>(j) + 1);
  for (std::size_t j = 0; j < to_columns.size(); ++j)
    glp_set_col_stat(to, static_cast<int>(j) + 1,
                     status[to_columns[j].group][to_columns[j].choice]);
  for (int r = 1; r <= static_cast<int>(groups.size()) + 1; ++r)
    glp_set_row_stat(to, r, glp_get_row_stat(from, r));
  if (glp_factorize(to) != 0) glp_std_basis(to);
}

}  // namespace ucudnn::knapsack
