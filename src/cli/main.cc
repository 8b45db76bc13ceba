// ucudnn: benchmark and plan micro-batched convolutions from the command line.
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <regex>
#include <string>

#include "bench_command.h"
#include "core/device_fingerprint.h"
#include "db/warning.h"
#include "db_command.h"
#include "exit_status.h"
#include "help_formatter.h"
#include "openmp_environment.h"
#include "output_file.h"
#include "plan_command.h"
#include "report_command.h"
#include "unknown_option.h"
#include "user_input/setting_names.h"

namespace {

// The first word naming no command where one is expected ("ucudnn explain", "ucudnn db frob"),
// as an error naming the commands there are; CLI11 alone says only that one is required.
std::optional<std::string> unknown_command(const CLI::App& app, int argc, char** argv) {
  const CLI::App* at = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word.front() == '-') return std::nullopt;  // options are CLI11's to judge
    const auto commands = at->get_subcommands([](const CLI::App*) { return true; });
    if (commands.empty()) return std::nullopt;
    const CLI::App* next = nullptr;
    std::string names;
    for (const CLI::App* command : commands) {
      if (command->check_name(word)) next = command;
      names += (names.empty() ? "" : ", ") + command->get_name();
    }
    if (!next) {
      const std::string where = at == &app ? "ucudnn" : "ucudnn " + at->get_name();
      return "unknown command '" + word + "': " + where + " has " + names + " (" + where +
             " --help)";
    }
    at = next;
  }
  return std::nullopt;
}

// A parse error as the tool's other errors say theirs, naming the command it is of:
// "ucudnn plan: --batch: Value 2x not in range 1 to 65536".
// "ucudnn db export": the commands given, as messages name them.
std::string command_name(const CLI::App* app) {
  std::string where = "ucudnn";
  for (const CLI::App* at = app;;) {
    const auto given = at->get_subcommands();
    if (given.empty()) break;
    at = given.front();
    where += " " + at->get_name();
  }
  return where;
}

// The last command the line gave ("export" of "ucudnn db export"), or the tool's own.
const CLI::App& last_command(const CLI::App& app) {
  const CLI::App* at = &app;
  while (!at->get_subcommands().empty()) at = at->get_subcommands().front();
  return *at;
}

// CLI11 says of an option given twice "--batch: At Most 1 required but received 2".
std::string plain_words(const CLI::Error& error) {
  static const std::regex repeated("^(.+): At Most 1 required but received ([0-9]+)$");
  const std::string what = error.what();
  if (std::smatch match;
      dynamic_cast<const CLI::ArgumentMismatch*>(&error) && std::regex_match(what, match, repeated))
    return match[1].str() + " is given " + match[2].str() + " times; give it once";
  return what;
}

std::string failure_message(const CLI::App* app, const CLI::Error& error) {
  const std::string where = command_name(app);
  return where + ": " + plain_words(error) + "\nRun " + where + " --help for more information.\n";
}

}  // namespace

int main(int argc, char** argv) {
  ucudnn::cpu::relaunch_with_passive_openmp(argv);
  CLI::App app{"ucudnn: faster convolutions under a workspace limit, by micro-batching"};
  app.set_version_flag("--version", std::string("ucudnn ") + ucudnn::kUcudnnVersion);
  app.require_subcommand(1);
  app.failure_message(failure_message);
  app.formatter(std::make_shared<ucudnn::cli::HelpFormatter>());  // before the commands: inherited
  ucudnn::cli::BenchOptions bench;
  ucudnn::cli::add_bench_command(app, bench);
  ucudnn::cli::PlanOptions plan;
  ucudnn::cli::add_plan_command(app, plan);
  ucudnn::cli::ReportOptions report;
  ucudnn::cli::add_report_command(app, report);
  ucudnn::cli::DbOptions db;
  ucudnn::cli::add_db_command(app, db);
  if (const auto unknown = unknown_command(app, argc, argv)) {
    std::fprintf(stderr, "ucudnn: %s\n", unknown->c_str());
    return ucudnn::cli::kUsageError;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    if (dynamic_cast<const CLI::ExtrasError*>(&error))
      if (const auto said = ucudnn::cli::unknown_option(last_command(app), argc, argv)) {
        const std::string where = command_name(&app);
        std::fprintf(stderr, "%s: %s\nRun %s --help for more information.\n", where.c_str(),
                     said->c_str(), where.c_str());
        return ucudnn::cli::kUsageError;
      }
    // --help and --version are not errors; any other parse error is a usage error (exit 2,
    // as the README promises), whatever CLI11's own code for it.
    const int printed = app.exit(error);
    return printed == 0 ? 0 : ucudnn::cli::kUsageError;
  }
  for (const auto& message : ucudnn::misspelt_settings(environ)) ucudnn::warn_on_stderr(message);
  int status = 0;
  try {
    if (app.got_subcommand("bench")) status = ucudnn::cli::run_bench_command(bench);
    if (app.got_subcommand("plan")) status = ucudnn::cli::run_plan_command(plan);
    if (app.got_subcommand("report")) status = ucudnn::cli::run_report_command(report);
    if (app.got_subcommand("db"))
      status = ucudnn::cli::run_db_command(*app.get_subcommand("db"), db);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "ucudnn: %s\n", error.what());
    return 1;
  }
  // A plan or table cut short by a full disk must not pass for a whole one in a script.
  if (std::string error; !ucudnn::cli::standard_output_written(error)) {
    std::fprintf(stderr, "%s: %s\n", command_name(&app).c_str(), error.c_str());
    return status == 0 ? ucudnn::cli::kFailure : status;
  }
  return status;
}
