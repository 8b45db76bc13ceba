#pragma once
// Runs a planned configuration on host tensors: each micro-batch is a pointer offset of
// n * strideN elements into the caller's x and y; Forward and BackwardData apply the
// caller's alpha/beta to each slice; BackwardFilter accumulates, the caller's beta on the
// first micro-batch and 1 on every later one.
#include "core/configuration.h"
#include "solver.h"

namespace ucudnn::cpu {

class ThreadPool;

// The workspace a configuration needs: the largest of its micro-configurations'.
std::size_t configuration_workspace_bytes(const KernelKey& kernel,
                                          const Configuration& configuration);

// The stated error bound of a configuration's output: its least accurate solver's.
double configuration_tolerance(const KernelKey& kernel, const Configuration& configuration);

// Throws std::invalid_argument for a configuration that does not cover the kernel's batch,
// names an unknown or inapplicable solver, or needs more workspace than given.
void run_configuration(const KernelKey& kernel, const Configuration& configuration,
                       const Tensors& tensors, Scaling scaling, Workspace workspace,
                       ThreadPool& pool);

}  // namespace ucudnn::cpu
