#pragma once
// WR (µ-cuDNN section III-B): the fastest configuration of one kernel whose every
// micro-batch fits the per-kernel workspace limit, by dynamic programming over the
// policy's micro-batch sizes: T(b) = min over sizes s <= b of Tµ(s) + T(b - s).
#include "core/expected.h"
#include "core/limit_range.h"
#include "core/micro_table.h"

namespace ucudnn {

// The table must already be restricted to the limit (measure_micro_table does that).
// Ties prefer larger micro-batches (fewer calls). An error when no combination of the
// table's sizes covers the batch within the limit.
Expected<Configuration> plan_workspace_reuse(const MicroTable& table);

// The limits for which `plan`, WR's answer on `table`, stays WR's answer: from the plan's
// own workspace up to the smallest workspace the table left out (LimitRange).
LimitRange limits_answered(const MicroTable& table, const Configuration& plan);

}  // namespace ucudnn
