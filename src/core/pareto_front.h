#pragma once
// Desirable configuration sets (µ-cuDNN section III-C): for a kernel, the exact Pareto
// front in (time, workspace) of all configurations that cover the batch, computed by the
// WR dynamic program extended to keep a front per batch size instead of one optimum.
// Pruning per sub-batch is exact: time adds and workspace is a maximum, so replacing a
// dominated sub-configuration by one that dominates it never makes the whole worse.
#include <vector>

#include "core/micro_table.h"

namespace ucudnn {

// Sorted by increasing workspace and strictly decreasing time. No element dominates
// another (equal time and workspace kept once). Empty when nothing covers the batch.
using ParetoFront = std::vector<Configuration>;

ParetoFront desirable_configurations(const MicroTable& table);

// The fronts of every sub-batch b = 0..table.batch from one run of the dynamic program
// (b = 0: the empty configuration), for the CPU/GPU split, which needs the device's front at
// every batch the host leaves it.
std::vector<ParetoFront> desirable_configurations_by_batch(const MicroTable& table);

// The fronts of many kernels, computed by `threads` workers (0: one per hardware thread).
std::vector<ParetoFront> desirable_configurations(const std::vector<MicroTable>& tables,
                                                  unsigned threads = 0);

// The pruning function D on an arbitrary set (used for micro-configurations, and by
// tests): the non-dominated elements, sorted as above.
ParetoFront pareto_prune(std::vector<Configuration> configurations);

}  // namespace ucudnn
