// `ucudnn db check` (commands.h): every row read back and checked against the rules.
#include <filesystem>
#include <sstream>

#include "db/database_file.h"
#include "db/maintenance/commands.h"
#include "db/row_problems.h"
#include "db/row_reader.h"

namespace ucudnn::db {

Expected<CheckReport> check_database(const std::string& path, const sqlite::LockWait& wait) {
  CheckReport report;
  try {
    std::error_code error;
    if (!std::filesystem::exists(path, error)) return Error{path + ": no such file"};
    auto outcome = open_database(path, Access::kReadOnly, reading_past_damage(wait));
    if (!outcome.database) {
      if (outcome.failure->problem == FileProblem::kCannotOpen)
        return Error{path + ": " + outcome.failure->message};
      report.problems.push_back(outcome.failure->message);
      return report;
    }
    auto& c = outcome.database->connection;
    if (const auto& cut = outcome.database->cut_short) {
      report.problems.push_back(*cut);
      report.damaged = true;
    }
    try {
      auto statement = c.prepare("PRAGMA integrity_check(100)");
      auto row = statement.start();
      // A row may hold several findings, one per line: each is a problem of its own.
      while (row.step()) {
        std::istringstream lines(row.text(0));
        for (std::string line; std::getline(lines, line);)
          if (line != "ok" && line != "*** in database main ***") {
            report.problems.push_back("integrity_check: " + line);
            report.damaged = true;
          }
      }
    } catch (const sqlite::Error& error) {
      // Damage can stop the check itself; the rows are still read past it.
      if (!error.damaged()) throw;
      report.problems.push_back(std::string("integrity_check: ") + error.what());
      report.damaged = true;
    }
    auto unreadable = for_each_measurement(c, [&](std::int64_t id, Expected<MeasurementRow> row) {
      ++report.measurements_checked;
      auto problem = row ? measurement_problem(*row) : std::optional(row.error());
      if (problem) report.problems.push_back("measurement " + std::to_string(id) + ": " + *problem);
    });
    for (auto& stretch : for_each_plan(c, [&](std::int64_t id, Expected<PlanRow> row) {
           ++report.plans_checked;
           auto problem = row ? plan_problem(*row) : std::optional(row.error());
           if (problem) report.problems.push_back("plan " + std::to_string(id) + ": " + *problem);
         }))
      unreadable.push_back(std::move(stretch));
    for (const auto& stretch : unreadable)
      report.problems.push_back("cannot read " + describe(stretch));
    report.unreadable = std::move(unreadable);
    return report;
  } catch (const sqlite::Error& error) {
    // Damage that quick_check did not see can still stop the row scan midway.
    report.problems.push_back(error.what());
    return report;
  } catch (const std::exception& error) {
    return Error{path + ": " + error.what()};
  }
}

}  // namespace ucudnn::db
