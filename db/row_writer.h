#pragma once
// Writing rows, with the conflict rule deciding which of two rows for one key stays. Call
// it inside a transaction (sqlite::write_transaction): a fingerprint row is created on
// first use, and a rollback must take it away together with the rows that needed it.
#include <cstdint>
#include <string>

#include "db/rows.h"
#include "db/sqlite.h"

namespace ucudnn::db {

class RowWriter {
 public:
  explicit RowWriter(sqlite::Connection& connection);

  // True when the row was inserted or replaced the stored one. Throws sqlite::Error, and
  // nlohmann::json's exceptions for configurations that cannot be written as JSON.
  bool put(const MeasurementRow& row, Conflict conflict);
  // A plan row also contends with the subject's rows whose ranges overlap its own (core/
  // plan_shelf.h: the newest answers its range): it is written only where the rule lets it win
  // over each of them, and takes them away.
  bool put(const PlanRow& row, Conflict conflict);
  void remove_measurement(std::int64_t id);

 private:
  std::int64_t fingerprint_id(const std::string& canonical);

  sqlite::Connection& connection_;
  sqlite::Statement insert_fingerprint_;
  sqlite::Statement select_fingerprint_;
  sqlite::Statement upsert_measurement_;
  sqlite::Statement upsert_plan_;
  sqlite::Statement select_subject_plans_;
  sqlite::Statement delete_plan_;
  sqlite::Statement delete_measurement_;
};

}  // namespace ucudnn::db
