// `ucudnn db import` (commands.h): rows from an export, every field checked before any is
// written.
#include <istream>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "db/database_file.h"
#include "db/json_fields.h"
#include "db/maintenance/commands.h"
#include "db/maintenance/export_format.h"
#include "db/row_problems.h"
#include "db/row_writer.h"
#include "user_input/strict_json.h"

namespace ucudnn::db {

namespace {

struct Rows {
  std::vector<MeasurementRow> measurements;
  std::vector<PlanRow> plans;
};

// Adds one row of `type` to `rows`; the error is relative to the row.
std::optional<std::string> add_row(const std::string& type, const nlohmann::json& value,
                                   Rows& rows) {
  if (type == "measurement") {
    auto row = measurement_from_json(value);
    if (!row) return row.error();
    // What `db check` would report is not let in.
    if (auto problem = measurement_problem(*row)) return problem;
    rows.measurements.push_back(std::move(row).value());
  } else if (type == "plan") {
    auto row = plan_from_json(value);
    if (!row) return row.error();
    if (auto problem = plan_problem(*row)) return problem;
    rows.plans.push_back(std::move(row).value());
  } else if (type == "fingerprint") {
    // Informational (rows name their fingerprint themselves), but still well-formed.
    if (auto unknown = unknown_field(value, {"type", "canonical", "fields"}, "a fingerprint"))
      return unknown;
    auto canonical = string_field(value, "canonical");
    if (!canonical) return canonical.error();
  } else {
    return "type: '" + type + "' is not fingerprint, measurement or plan";
  }
  return std::nullopt;
}

// The "end" line's counts against the rows read before it.
std::optional<std::string> end_error(const nlohmann::json& end, std::size_t fingerprints,
                                     const Rows& rows) {
  const std::pair<const char*, std::size_t> counts[] = {{"fingerprints", fingerprints},
                                                        {"measurements", rows.measurements.size()},
                                                        {"plans", rows.plans.size()}};
  for (const auto& [name, read] : counts) {
    auto said = integer_field(end, name, 0);
    if (!said) return said.error();
    if (static_cast<std::uint64_t>(*said) != read)
      return std::string(name) + ": " + std::to_string(*said) + ", but " + std::to_string(read) +
             " were read";
  }
  return std::nullopt;
}

Expected<Rows> parse_lines(const std::string& text) {
  Rows rows;
  std::size_t fingerprints = 0, number = 1, start = 0;
  bool ends_with_end = false, ended = false;
  for (; start < text.size(); ++number) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + start, end - start);
    start = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string where = "line " + std::to_string(number) + ": ";
    std::optional<std::string> duplicate;
    auto value = parse_json_keeping_every_key(line, duplicate, /*allow_exceptions=*/false);
    if (value.is_discarded()) {
      // The last line, with no line end: the copy stopped mid-row.
      if (end == text.size() && number > 1)
        return Error{where + "not valid JSON, and the last line: the export was cut short (" +
                     std::to_string(rows.measurements.size()) + " measurements and " +
                     std::to_string(rows.plans.size()) + " plans read before it)"};
      return Error{where + "not valid JSON"};
    }
    if (duplicate) return Error{where + written_twice(*duplicate)};
    if (number == 1) {
      if (auto error = header_error(value)) return Error{where + *error};
      ends_with_end = value.value("ends_with", "") == "end";
      continue;
    }
    if (ended) return Error{where + "a row after the end line"};
    if (!value.is_object() || !value.contains("type") || !value["type"].is_string())
      return Error{where + "type: missing"};
    const std::string type = value["type"].get<std::string>();
    if (type == "end" && !ends_with_end)
      return Error{where +
                   "an end line, but the header (line 1) does not say \"ends_with\": "
                   "\"end\" (was it edited?)"};
    if (type == "end") {
      if (auto error = end_error(value, fingerprints, rows)) return Error{where + *error};
      ended = true;
      continue;
    }
    if (auto error = add_row(type, value, rows)) return Error{where + *error};
    fingerprints += type == "fingerprint";
  }
  if (ends_with_end && !ended)
    return Error{"the export ends at line " + std::to_string(number - 1) +
                 " without its end line: it was cut short (" +
                 std::to_string(rows.measurements.size()) + " measurements and " +
                 std::to_string(rows.plans.size()) + " plans read)"};
  return rows;
}

Expected<Rows> parse_document(const nlohmann::json& document) {
  if (auto error = header_error(document)) return Error{*error};
  // A mistyped list ("measurement") would otherwise import nothing, successfully. A newer
  // ucudnn's fields come with its newer schema_version, refused above.
  static const std::set<std::string> kFields = {
      "format",      "layout",       "schema_version", "application_id", "ucudnn_version",
      "exported_at", "fingerprints", "measurements",   "plans"};
  for (const auto& [key, value] : document.items())
    if (!kFields.count(key))
      return Error{"'" + key +
                   "' is not a field of an export (format, layout, schema_version, "
                   "application_id, ucudnn_version, exported_at, fingerprints, measurements, "
                   "plans)"};
  Rows rows;
  const std::pair<const char*, const char*> arrays[] = {
      {"fingerprints", "fingerprint"}, {"measurements", "measurement"}, {"plans", "plan"}};
  for (const auto& [array, type] : arrays) {
    if (!document.contains(array)) continue;
    const auto& values = document[array];
    if (!values.is_array())
      return Error{std::string(array) + ": " + describe(values) + " is not a list"};
    for (std::size_t i = 0; i < values.size(); ++i)
      if (auto error = add_row(type, values[i], rows))
        return Error{std::string(array) + "[" + std::to_string(i) + "]." + *error};
  }
  return rows;
}

Expected<Rows> parse(const std::string& text) {
  // JSON lines: the first line alone is a whole header saying so. A document's first line
  // is "{" or the whole (compact) document, whose layout says "document".
  const auto first = nlohmann::json::parse(text.substr(0, text.find('\n')), nullptr, false);
  if (!first.is_discarded() && first.is_object() && first.contains("layout") &&
      first["layout"] == "lines")
    return parse_lines(text);
  nlohmann::json document;
  std::optional<std::string> duplicate;
  try {
    document = parse_json_keeping_every_key(text, duplicate, /*allow_exceptions=*/true);
  } catch (const nlohmann::json::parse_error& error) {
    return Error{"not a JSON export file: " + parse_error_text(error)};
  }
  if (duplicate) return Error{written_twice(*duplicate)};
  return parse_document(document);
}

}  // namespace

Expected<ImportResult> import_database(const std::string& path, std::istream& in,
                                       const sqlite::LockWait& wait) {
  try {
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (in.bad()) return Error{"the input could not be read"};
    auto rows = parse(text);
    if (!rows) return Error{rows.error()};

    auto connection = open_or_error(path, Access::kReadWrite, OpenOptions{wait});
    if (!connection) return Error{connection.error()};
    ImportResult result;
    result.measurements_read = rows->measurements.size();
    result.plans_read = rows->plans.size();
    sqlite::write_transaction(connection.value().connection, [&] {
      RowWriter writer(connection.value().connection);
      // Counted by key: a file may hold one key twice (the newer row wins), one row written.
      std::set<std::tuple<std::string, std::string, std::string, std::string>> measurements;
      std::set<std::tuple<std::string, std::string, std::string, std::uint64_t, std::string>> plans;
      for (const auto& row : rows->measurements)
        if (writer.put(row, Conflict::kNewer))
          measurements.emplace(row.fingerprint, row.kernel_key, row.backend, row.algorithm);
      for (const auto& row : rows->plans)
        if (writer.put(row, Conflict::kNewer))
          plans.emplace(row.key.fingerprint, row.key.subject, row.key.policy,
                        row.key.workspace_limit, row.key.mode);
      result.measurements_written = measurements.size();  // a retry starts over
      result.plans_written = plans.size();
    });
    return result;
  } catch (const std::exception& error) {
    return Error{"importing into " + path + ": " + write_error(path, error)};
  }
}

}  // namespace ucudnn::db
