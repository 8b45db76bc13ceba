#include "db_command.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "common_options.h"
#include "core/text.h"
#include "database_access.h"
#include "db/database_file.h"
#include "db/maintenance/commands.h"
#include "exit_status.h"
#include "output_file.h"
#include "user_input/byte_size.h"

namespace ucudnn::cli {

namespace {

int fail(const std::string& command, const std::string& message) {
  report_error("db " + command, message);
  return kFailure;
}

// After a merge's or an export's counts: the rows it left out, those `db check` reports.
std::string skipped_note(std::size_t skipped) {
  return skipped ? " (" + std::to_string(skipped) + " rows skipped that `ucudnn db check` reports)"
                 : std::string();
}

// Why fewer rows were written than read: the target had those keys, measured as late or later
// (merging or importing twice writes nothing the second time).
std::string kept_note(std::size_t measurements_read, std::size_t measurements_written,
                      std::size_t plans_read, std::size_t plans_written) {
  const std::size_t measurements = measurements_read - measurements_written;
  const std::size_t plans = plans_read - plans_written;
  if (measurements == 0 && plans == 0) return {};
  return " (the other " + counted(measurements, "measurement") + " and " + counted(plans, "plan") +
         " were there already, as recent or newer)";
}

// What a damaged file's scan could not read, after the rows it could.
void say_unreadable(const std::string& file, const db::Unreadable& unreadable,
                    std::size_t rows_read) {
  const auto what = db::describe(unreadable);
  if (!what) return;
  if (rows_read == 0)
    std::fprintf(stderr, "warning: %s is damaged: no row could be read: %s\n", file.c_str(),
                 what->c_str());
  else
    std::fprintf(stderr, "warning: %s is damaged: could not read %s; read the %s outside %s\n",
                 file.c_str(), what->c_str(), counted(rows_read, "row").c_str(),
                 unreadable.size() == 1 ? "it" : "them");
}

std::string utc_time(std::int64_t seconds) {
  if (seconds <= 0) return "never";
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm parts{};
  gmtime_r(&t, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &parts);
  return text;
}

void add_database_option(CLI::App* command, DbOptions& options) {
  command
      ->add_option("--database", options.database,
                   "the database file (default: UCUDNN_DATABASE, else "
                   "$XDG_CACHE_HOME/ucudnn/ucudnn.db or ~/.cache/ucudnn/ucudnn.db)")
      ->transform(home_expanded_path());
}

int info(const std::string& path) {
  auto result = db::database_info(path, tool_lock_wait());
  if (!result) return fail("info", result.error());
  std::printf("database: %s (%s, schema version %d)\n", path.c_str(),
              format_byte_size(result->file_size).c_str(), result->schema_version);
  std::printf("%s, %s, %s\n", counted(result->measurements, "measurement").c_str(),
              counted(result->plans, "plan").c_str(),
              counted(result->fingerprints.size(), "fingerprint").c_str());
  for (const auto& f : result->fingerprints)
    std::printf("\n%s\n    %s (%zu unsupported), %s, last measured %s\n", f.fingerprint.c_str(),
                counted(f.measurements, "measurement").c_str(), f.unsupported,
                counted(f.plans, "plan").c_str(), utc_time(f.last_measured_at).c_str());
  return 0;
}

// Whether `file` starts as a JSON export does ('{' or '[' after any spaces): import's to read.
bool looks_like_an_export(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  char c = 0;
  while (in.get(c) && std::isspace(static_cast<unsigned char>(c))) {
  }
  return in && (c == '{' || c == '[');
}

int merge(const std::vector<std::string>& sources, const std::string& target) {
  // An export given where a database goes: its rows are import's to read.
  for (const auto& source : sources)
    if (!db::is_database_file(source) && looks_like_an_export(source))
      return fail("merge", "'" + source + "' is a JSON export, not a database: `ucudnn db import " +
                               source + " --database " + target +
                               "` reads its rows (nothing was merged)");
  auto results = db::merge_databases(sources, target, tool_lock_wait());  // all or nothing
  if (!results) return fail("merge", results.error() + " (nothing was merged)");
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const db::MergeResult& result = (*results)[i];
    std::printf("merged %s into %s: %zu of %zu measurements and %zu of %zu plans written",
                sources[i].c_str(), target.c_str(), result.measurements_written,
                result.measurements_read, result.plans_written, result.plans_read);
    std::printf("%s%s\n",
                kept_note(result.measurements_read, result.measurements_written, result.plans_read,
                          result.plans_written)
                    .c_str(),
                skipped_note(result.invalid_rows_skipped).c_str());
    std::fflush(stdout);
    say_unreadable(sources[i], result.unreadable,
                   result.measurements_read + result.plans_read + result.invalid_rows_skipped);
  }
  return 0;
}

int export_to(const std::string& path, const std::string& file, bool lines) {
  const auto layout = lines ? db::ExportLayout::kLines : db::ExportLayout::kDocument;
  std::error_code ignored;
  if (!file.empty() && file != "-" && std::filesystem::equivalent(path, file, ignored))
    return fail("export", "'" + file + "' is the database itself (nothing was written)");
  OutputFile out(file, "");
  std::ostream* stream = out.stream();
  if (!stream) return fail("export", out.error());
  auto result = db::export_database(path, *stream, layout, tool_lock_wait());
  // A destination that stopped taking the rows is named as such; any other failure leaves it
  // as it was.
  if (!result && !*stream && !out.commit()) return fail("export", out.error());
  if (!result) return fail("export", result.error());
  if (!out.commit()) return fail("export", out.error());
  std::fprintf(stderr, "exported %s and %s of %s from %s%s",
               counted(result->measurements, "measurement").c_str(),
               counted(result->plans, "plan").c_str(),
               counted(result->fingerprints, "fingerprint").c_str(), path.c_str(),
               out.to_standard_output() ? "" : (" to " + file).c_str());
  std::fprintf(stderr, "%s\n", skipped_note(result->invalid_rows_skipped).c_str());
  say_unreadable(path, result->unreadable,
                 result->measurements + result->plans + result->invalid_rows_skipped);
  return 0;
}

int import_from(const std::string& path, const std::string& file) {
  const bool from_stdin = file.empty() || file == "-";
  std::ifstream in;
  if (!from_stdin) {
    std::error_code ignored;
    if (std::filesystem::is_directory(file, ignored))
      return fail("import", "cannot read '" + file + "': it is a folder");
    // A database given where an export goes: its rows are merge's to copy.
    if (db::is_database_file(file))
      return fail("import", "'" + file +
                                "' is a SQLite database, not an export: `ucudnn db merge " + file +
                                " --into " + path + "` copies its rows");
    in.open(file, std::ios::binary);
    if (!in) return fail("import", "cannot read '" + file + "': " + std::strerror(errno));
  }
  auto result = db::import_database(path, from_stdin ? std::cin : in, tool_lock_wait());
  if (!result)
    return fail("import", (from_stdin ? std::string("stdin") : file) + ": " + result.error() +
                              " (nothing was imported)");
  std::printf("imported %s into %s: %zu of %zu measurements and %zu of %zu plans written%s\n",
              from_stdin ? "stdin" : file.c_str(), path.c_str(), result->measurements_written,
              result->measurements_read, result->plans_written, result->plans_read,
              kept_note(result->measurements_read, result->measurements_written, result->plans_read,
                        result->plans_written)
                  .c_str());
  return 0;
}

int check(const std::string& path) {
  auto report = db::check_database(path, tool_lock_wait());
  if (!report) return fail("check", report.error());
  for (const auto& problem : report->problems) std::printf("problem: %s\n", problem.c_str());
  std::printf("%s: %zu measurements and %zu plans checked, %s\n", path.c_str(),
              report->measurements_checked, report->plans_checked,
              counted(report->problems.size(), "problem").c_str());
  // Damage beside the rows (an index) still fails other commands (vacuum, info, lookups):
  // the rows themselves copy into a whole file.
  if ((report->damaged || !report->unreadable.empty()) &&
      report->measurements_checked + report->plans_checked > 0)
    std::printf(
        "the rows that can be read are copied into a new database by `ucudnn db merge %s "
        "--into NEW.db`\n",
        shell_word(path).c_str());
  return report->ok() ? 0 : kFailure;
}

int vacuum(const std::string& path) {
  auto result = db::vacuum_database(path, tool_lock_wait());
  if (!result) return fail("vacuum", result.error());
  std::printf("vacuumed %s: %s -> %s\n", path.c_str(),
              format_byte_size(result->size_before).c_str(),
              format_byte_size(result->size_after).c_str());
  return 0;
}

}  // namespace

void add_db_command(CLI::App& app, DbOptions& options) {
  auto* db = app.add_subcommand("db", "Look after databases of benchmarks and plans");
  db->require_subcommand(1);
  auto* info = db->add_subcommand("info", "Counts of measurements and plans per device");
  add_database_option(info, options);
  auto* merge = db->add_subcommand(
      "merge", "Copy databases into one: per key the newest measurement wins; devices kept apart");
  merge->add_option("sources", options.sources, "databases to copy from")
      ->transform(home_expanded_path())
      ->required();
  merge
      ->add_option("--into", options.into,
                   "the database to copy into, created when missing (default: UCUDNN_DATABASE, "
                   "else $XDG_CACHE_HOME/ucudnn/ucudnn.db or ~/.cache/ucudnn/ucudnn.db)")
      ->transform(home_expanded_path());
  auto* exporter = db->add_subcommand(
      "export", "Write every row as JSON (rows `db check` reports are skipped and counted)");
  exporter->add_option("file", options.file, "output file (default, or '-': stdout)")
      ->transform(home_expanded_path());
  exporter->add_flag("--lines", options.lines, "JSON lines: a header, then one row per line");
  add_database_option(exporter, options);
  auto* importer = db->add_subcommand(
      "import", "Read rows from an export (either layout); all or nothing, newest wins");
  importer->add_option("file", options.file, "input file (default, or '-': stdin)")
      ->transform(home_expanded_path());
  add_database_option(importer, options);
  auto* checker = db->add_subcommand(
      "check", "Check integrity and every row; exit status 1 when there are problems");
  add_database_option(checker, options);
  auto* vacuum = db->add_subcommand("vacuum", "Compact the file");
  add_database_option(vacuum, options);
}

int run_db_command(const CLI::App& db, const DbOptions& options) {
  const CLI::App* command = db.get_subcommands().front();
  const std::string name = command->get_name();
  std::string path = name == "merge" ? options.into : options.database;
  if (path.empty()) {
    auto fallback = default_database_file();
    if (!fallback) return fail(name, fallback.error());
    path = *fallback;
  }
  if (name == "info") return info(path);
  if (name == "merge") return merge(options.sources, path);
  if (name == "export") return export_to(path, options.file, options.lines);
  if (name == "import") return import_from(path, options.file);
  if (name == "check") return check(path);
  return vacuum(path);
}

}  // namespace ucudnn::cli
