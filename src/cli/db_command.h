#pragma once
// `ucudnn db info|merge|export|import|check|vacuum`: looking after databases, e.g. joining
// the databases of separately benchmarked nodes into one for a shared file system.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace ucudnn::cli {

struct DbOptions {
  std::string database;              // empty: the default user database
  std::vector<std::string> sources;  // merge
  std::string into;                  // merge's target; empty: the default user database
  std::string file;                  // export's output / import's input; "-" or empty: stdio
  bool lines = false;                // export as JSON lines
};

void add_db_command(CLI::App& app, DbOptions& options);
// The subcommand of `db` that was given.
int run_db_command(const CLI::App& db, const DbOptions& options);  // exit status

}  // namespace ucudnn::cli
