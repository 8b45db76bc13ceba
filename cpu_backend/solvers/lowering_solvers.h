#pragma once
// The 2-d lowering solvers: im2col and GEMM, in three ways of cutting the work.
#include "solver.h"

namespace ucudnn::cpu {

// Caffe's lowering: per image, im2col into a (C/g*R*S) x (P*Q) matrix, then one GEMM
// parallelized across the cores. Workspace: one lowered image.
const Solver& lowering_per_image_solver();  // "LOWERING_PER_IMAGE"

// Caffe con Troll's type-1 lowering: the whole (micro-)batch lowered side by side, one
// large GEMM per group. Faster GEMMs; workspace grows with the batch.
const Solver& lowering_batched_solver();  // "LOWERING_BATCHED"

// Omnivore's partitioning: the batch split across the cores, each lowering its images and
// running its own single-threaded GEMMs. Workspace: one lowered image per core (and one
// partial filter gradient per core for BackwardFilter).
const Solver& lowering_partitioned_solver();  // "LOWERING_PARTITIONED"

}  // namespace ucudnn::cpu
