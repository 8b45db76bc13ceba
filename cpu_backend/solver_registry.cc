#include "solver_registry.h"

#include "solvers/direct.h"
#include "solvers/lowering_solvers.h"
#include "solvers/nd_solvers.h"
#include "solvers/onednn.h"
#include "solvers/winograd.h"

namespace ucudnn::cpu {

const std::vector<const Solver*>& all_solvers() {
  static const std::vector<const Solver*> solvers = [] {
    std::vector<const Solver*> list = {&direct_solver(),
                                       &lowering_per_image_solver(),
                                       &lowering_batched_solver(),
                                       &lowering_partitioned_solver(),
                                       &winograd_f2x2_3x3_solver(),
                                       &winograd_f4x4_3x3_solver(),
                                       &direct_nd_solver(),
                                       &lowering_nd_solver(),
                                       &winograd_f2_3_nd_solver(),
                                       &winograd_f4_3_nd_solver()};
    for (const auto* solver : onednn_solvers()) list.push_back(solver);
    return list;
  }();
  return solvers;
}

const Solver* find_solver(std::string_view name) {
  for (const auto* solver : all_solvers())
    if (solver->name() == name) return solver;
  return nullptr;
}

}  // namespace ucudnn::cpu
