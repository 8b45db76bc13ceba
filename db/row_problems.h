#pragma once
// The rules a database's rows keep beyond each field's own range (rows.h row_error): a
// measurement's kernel_hash is its kernel_key's, its micro-batch is the key's batch, and its
// median lies between its fastest and slowest runs; a plan names a known policy and mode, and its
// configurations cover the batch within the limit (a WD plan's arena laid out as the shim lays
// it out). `ucudnn db check` reports them; `ucudnn db import` refuses a file with any.
#include <optional>
#include <string>

#include "db/rows.h"

namespace ucudnn::db {

std::optional<std::string> measurement_problem(const MeasurementRow& row);
std::optional<std::string> plan_problem(const PlanRow& row);

}  // namespace ucudnn::db
