#pragma once
// The report as one self-contained HTML page: inline SVG and CSS, no script to run, nothing
// fetched, so that it opens offline in any browser and can be mailed or archived as it is.
// The figures' data ride along as JSON (<script type="application/json"
// id="ucudnn-report-data">) for scripts.
#include <string>

#include "report/report_model.h"

namespace ucudnn::cli::report {

std::string html_page(const ReportModel& model);

}  // namespace ucudnn::cli::report
