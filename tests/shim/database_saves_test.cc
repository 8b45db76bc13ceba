// The shim's promise about its database (issue 35): what it measured is in the file when the
// program ends, or it says at exit how much it could not save. The example program
// (examples/conv_network) under LD_PRELOAD on the doubles, with the file free and with another
// process holding SQLite's EXCLUSIVE lock for the whole run.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>

#include "example_program.h"
#include "measuring_line.h"
#include "support/file_text.h"
#include "support/printed_text.h"
#include "support/random_seed.h"

namespace ucudnn::testing {
namespace {

int measurements_in(const std::string& database) {
  sqlite3* db = nullptr;
  int count = -1;
  if (sqlite3_open_v2(database.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM measurements", -1, &statement, nullptr) ==
            SQLITE_OK &&
        sqlite3_step(statement) == SQLITE_ROW)
      count = sqlite3_column_int(statement, 0);
    sqlite3_finalize(statement);
  }
  sqlite3_close(db);
  return count;
}

class ShimSaves : public ::testing::Test {
 protected:
  void SetUp() override {
    seed_ = std::to_string(random_.uniform(1, 1'000'000'000));
    database_ = ::testing::TempDir() + "ucudnn-saves-" + seed_ + ".db";
    // An empty SQLite file: the shim makes its tables at its first write.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(database_.c_str(), &db), SQLITE_OK);
    sqlite3_close(db);
  }
  void TearDown() override {
    for (const char* suffix : {"", ".lock", "-journal"})
      std::filesystem::remove(database_ + suffix);
  }
  ProgramRun preloaded(Environment more = {}, std::vector<std::string> args = {}) const {
    Environment environment = {{"LD_PRELOAD", std::string(UCUDNN_PRELOAD)},
                               {"UCUDNN_WORKSPACE_LIMIT", "1572864"},
                               {"UCUDNN_DATABASE", database_}};
    for (auto& [name, value] : more) environment[name] = std::move(value);
    args.insert(args.begin(), {"--workspace-limit", "1572864"});
    return run_example(UCUDNN_EXAMPLE, args, environment, seed_);
  }

  SeededRandom random_;
  std::string seed_, database_;
};

TEST_F(ShimSaves, WhatItMeasuredIsInTheFileAtExit) {
  const ProgramRun run = preloaded();
  expect_ran_on_doubles(run);
  EXPECT_EQ(run.process.err.find("could not be saved"), std::string::npos) << run.process.err;
  EXPECT_GT(measurements_in(database_), 0);
}

TEST_F(ShimSaves, WhatItCouldNotSaveIsSaidAtExit) {
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(database_.c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  const ProgramRun run = preloaded();
  sqlite3_exec(holder, "COMMIT", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  expect_ran_on_doubles(run);  // the job is never stopped by its cache
  EXPECT_NE(run.process.err.find("results of this process could not be saved"), std::string::npos)
      << run.process.err;
  EXPECT_NE(run.process.err.find("e.g. measurement"), std::string::npos) << run.process.err;
}

// A text file named as the database (a script, by a slip) is left as it is and the job runs
// uncached, with the one warning that says so: the exit no longer adds that the results "could
// not be saved".
TEST_F(ShimSaves, ATextFileAsTheDatabaseIsSaidOnce) {
  const std::string script = "import torch\nprint('training')\n";
  write_file(database_, script);
  const ProgramRun run = preloaded();
  expect_ran_on_doubles(run);
  EXPECT_EQ(count_of(run.process.err, "ucudnn: warning:"), 1) << run.process.err;
  EXPECT_NE(run.process.err.find(database_ + " is a text file"), std::string::npos)
      << run.process.err;
  EXPECT_EQ(read_file(database_), script);
}

// A kernel's planning writes its measurements and its plan when it ends, after its measuring:
// that commit, here a wait for another process's lock, is the warm-up's and the exit line says
// it ("writing to the database"). Another process holds SQLite's RESERVED lock (reads go on,
// writes wait): the first kernel's commit waits UCUDNN_DATABASE_LOCK_TIMEOUT, the later ones
// try without waiting (and the exit's wait is not planning's). The file has ucudnn's tables
// first (a run at another batch), or the shim's open would meet the lock.
TEST_F(ShimSaves, AWaitToWriteIsCountedInTheMeasuringLine) {
  const ProgramRun tables = preloaded({}, {"--batch", "8"});
  expect_ran_on_doubles(tables);
  ASSERT_GT(measurements_in(database_), 0);
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(database_.c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  const ProgramRun run =
      preloaded({{"UCUDNN_LOG_LEVEL", "info"}, {"UCUDNN_DATABASE_LOCK_TIMEOUT", "500ms"}});
  sqlite3_exec(holder, "COMMIT", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  expect_ran_on_doubles(run);
  const auto line = measuring_line(run.process.err);
  ASSERT_TRUE(line) << run.process.err;
  // Printed to 0.01 s; the wait is at least the timeout.
  EXPECT_GE(line->database_writes_s, 0.49) << run.process.err;
  EXPECT_GE(line->total_s, line->database_writes_s + line->runs_s - 0.02) << run.process.err;
  EXPECT_NEAR(line->runs_s + line->plans_s + line->heuristics_s + line->allocating_s +
                  line->database_writes_s + line->rest_s,
              line->total_s, 0.04);
}

}  // namespace
}  // namespace ucudnn::testing
