#include "core/choice_knapsack.h"

#include "core/saturating.h"

#include <glpk.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>

namespace ucudnn {

namespace {

using GlpkProblem = std::unique_ptr<glp_prob, decltype(&glp_delete_prob)>;

// GLPK keeps environment state whose thread safety depends on how it was built; one
// program at a time costs nothing measurable here.
std::mutex& glpk_mutex() {
  static std::mutex mutex;
  return mutex;
}

// GLPK prints some routines' progress (glp_scale_prob's, unasked) to the process's standard
// output, which belongs to the application; silenced while a program is solved and restored
// for a thread that uses GLPK itself.
class GlpkSilence {
 public:
  GlpkSilence() : previous_(glp_term_out(GLP_OFF)) {}
  ~GlpkSilence() { glp_term_out(previous_); }
  GlpkSilence(const GlpkSilence&) = delete;
  GlpkSilence& operator=(const GlpkSilence&) = delete;

 private:
  int previous_;
};

// GLPK's environment is per thread and outlives the thread unless freed: a division made on
// a short-lived thread (a framework's worker) would leak it. Freed when this solve made it;
// one the thread had before (its own use of GLPK) is left alone.
class GlpkEnvironment {
 public:
  GlpkEnvironment() : made_here_(glp_init_env() == 0) {}
  ~GlpkEnvironment() {
    if (made_here_) glp_free_env();
  }
  GlpkEnvironment(const GlpkEnvironment&) = delete;
  GlpkEnvironment& operator=(const GlpkEnvironment&) = delete;

 private:
  bool made_here_;
};

// Solves `lp`'s LP relaxation from its current basis: true when GLPK settled it (optimal or
// infeasible). At weights of millions of units the floating-point simplex occasionally gives
// up; GLPK's rational-arithmetic simplex then solves it exactly.
bool solve_relaxation(glp_prob* lp) {
  glp_smcp simplex;
  glp_init_smcp(&simplex);
  simplex.msg_lev = GLP_MSG_OFF;
  const auto settled = [&] {
    const int status = glp_get_status(lp);
    return status == GLP_OPT || status == GLP_NOFEAS;
  };
  if (glp_simplex(lp, &simplex) == 0 && settled()) return true;
  return glp_exact(lp, &simplex) == 0 && settled();
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
  const auto hull = hull_columns(groups, columns);
  GlpkProblem relaxation = load_program(groups, hull, capacity);
  set_relaxation_basis(groups, hull, capacity, relaxation.get());
  if (!solve_relaxation(relaxation.get()) || glp_get_status(relaxation.get()) != GLP_OPT)
    return Error{"the LP relaxation of the WD program was not solved"};
  const double lower_bound = glp_get_obj_val(relaxation.get());
  Counts best = round_relaxation(groups, hull, relaxation.get());
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
    GlpkProblem program = load_program(groups, unfixed, capacity);
    carry_basis(relaxation.get(), hull, program.get(), unfixed, groups);
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
