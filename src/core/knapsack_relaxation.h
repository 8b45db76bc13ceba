#pragma once
// The choice knapsack's linear side (choice_knapsack.h): the program over a set of columns
// (equations 1-4 of the paper), its LP relaxation over each group's convex hull solved
// combinatorially and handed to GLPK as a basis, the basis carried to a smaller program, and
// the rounding and greedy improvement that give the first incumbent.
#include <glpk.h>

#include <cstdint>
#include <vector>

#include "core/choice_knapsack.h"
#include "core/glpk_session.h"

namespace ucudnn::knapsack {

using glpk::GlpkProblem;

// One choice of one group: a column of the program.
struct Column {
  std::size_t group, choice;
};

using Counts = std::vector<std::vector<std::int64_t>>;  // per group, items per choice

std::uint64_t weight_of(const std::vector<ChoiceGroup>& groups, const Counts& counts);
double time_of(const std::vector<ChoiceGroup>& groups, const Counts& counts);

// A feasible rounding of the LP optimum: whole units stay; each group's fractional units go
// to the lightest choice it uses, which never weighs more than the fractions did.
Counts round_relaxation(const std::vector<ChoiceGroup>& groups, const std::vector<Column>& columns,
                        glp_prob* lp);

// Spends the capacity the rounding left free on the largest saving that fits, while one
// does. A tighter incumbent lets reduced-cost fixing remove more columns.
void improve_greedily(const std::vector<ChoiceGroup>& groups, std::uint64_t capacity,
                      Counts& counts);

// The program over the given columns: one row per group (its counts sum to its
// multiplicity; equation 3), one for the capacity (equation 2); counts are integers from 0
// to the multiplicity (equation 4), weighted by time (equation 1).
GlpkProblem load_program(const std::vector<ChoiceGroup>& groups, const std::vector<Column>& columns,
                         std::uint64_t capacity);

// The columns of the LP relaxation: per group, the vertices of the lower-left convex hull
// of its (weight, time) points.
std::vector<Column> hull_columns(const std::vector<ChoiceGroup>& groups,
                                 const std::vector<Column>& columns);

// Gives `lp` (the program over `hull`, as hull_columns lists it) the optimal basis of its
// relaxation, so that GLPK's simplex only confirms it.
void set_relaxation_basis(const std::vector<ChoiceGroup>& groups, const std::vector<Column>& hull,
                          std::uint64_t capacity, glp_prob* lp);

// Gives `to` the basis `from` ended with, column by column.
void carry_basis(glp_prob* from, const std::vector<Column>& from_columns, glp_prob* to,
                 const std::vector<Column>& to_columns, const std::vector<ChoiceGroup>& groups);

}  // namespace ucudnn::knapsack
