#pragma once
// Every CPU solver, in a fixed order. The list is built once and never changes.
#include <string_view>
#include <vector>

#include "solver.h"

namespace ucudnn::cpu {

const std::vector<const Solver*>& all_solvers();
const Solver* find_solver(std::string_view name);  // nullptr when unknown

}  // namespace ucudnn::cpu
