#pragma once
// The report's figures, each drawn into the page under `parent` (an HTML element).
#include <pugixml.hpp>

#include "report/palette.h"
#include "report/report_model.h"

namespace ucudnn::cli::report {

// Per layer and operation: the plan's time against the fastest undivided algorithm within
// the limit (bars on one time axis), the plan's micro-batches across the batch (one block per
// micro-batch, coloured by algorithm), and its workspace against the limit.
void draw_layer_times(pugi::xml_node parent, const ReportModel& model,
                      const AlgorithmColors& colors);

// Per distinct kernel a small chart of its desirable set: the Pareto front of time against
// workspace as a staircase (the best time any limit allows), every measurement behind it
// (scaled to the whole batch), the WR choice, the WD choice, and the limit as a line. Small
// multiples grouped by operation, so that ResNet-50's 69 distinct kernels stay readable.
void draw_kernel_fronts(pugi::xml_node parent, const ReportModel& model);

// The WD arena as one stacked bar: each kernel's segment at its offset, hover text naming it,
// the total limit as a line; and the same as a table.
void draw_arena(pugi::xml_node parent, const ReportModel& model);

}  // namespace ucudnn::cli::report
