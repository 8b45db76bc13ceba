// Jobs of a cluster sharing one benchmark database, with real `ucudnn bench` processes on the
// CPU backend (issue 35): eight processes racing on a damaged file (a start barrier, then
// random jitter each), a writer that finds the file locked, and the run after a writer was
// killed. In each, every row every successful process measured is in the file at the end and
// `ucudnn db check` passes; a process that could not save says which rows and exits 1.
// UCUDNN_RACE_ROUNDS sets the rounds per test (default 2), for stress runs.
#include <fcntl.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <set>
#include <thread>

#include "cli_test_fixture.h"
#include "support/random_seed.h"

namespace ucudnn::testing {
namespace {

constexpr int kProcesses = 8;

int rounds() {
  const char* value = std::getenv("UCUDNN_RACE_ROUNDS");
  return value && std::atoi(value) > 0 ? std::atoi(value) : 2;
}

// What a database holds, as keys that do not depend on measured times: measurements by
// (kernel, backend, algorithm), plans by (subject, policy, mode).
std::set<std::string> stored_keys(const std::string& database) {
  std::set<std::string> keys;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(database.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    for (const char* query :
         {"SELECT kernel_key || '|' || backend || '|' || algorithm FROM measurements",
          "SELECT subject || '|' || policy || '|' || mode FROM plans"}) {
      sqlite3_stmt* statement = nullptr;
      if (sqlite3_prepare_v2(db, query, -1, &statement, nullptr) != SQLITE_OK) continue;
      while (sqlite3_step(statement) == SQLITE_ROW)
        keys.insert(reinterpret_cast<const char*>(sqlite3_column_text(statement, 0)));
      sqlite3_finalize(statement);
    }
  }
  sqlite3_close(db);
  return keys;
}

std::size_t missing_from(const std::set<std::string>& expected, const std::set<std::string>& have) {
  return static_cast<std::size_t>(std::count_if(
      expected.begin(), expected.end(), [&](const std::string& key) { return !have.count(key); }));
}

class DatabaseRaces : public CliTest {
 protected:
  // Network p: two small layers whose channel counts no other network shares, so that each
  // process's rows are its own.
  std::string network(int p) {
    const std::string file = path("net" + std::to_string(p) + ".json");
    if (!std::filesystem::exists(file)) {
      const int c = 3 + p;
      std::ofstream(file) << R"({"format": "ucudnn-network/1", "name": "n)" << p
                          << R"(", "layers": [
 {"name": "a", "input": [)"
                          << c << R"(, 12, 12], "output_channels": 4, "filter": 3, "padding": 1},
 {"name": "b", "input": [4, 12, 12], "output_channels": )"
                          << c << R"(, "filter": 3, "padding": 1}]})";
    }
    return file;
  }
  std::vector<std::string> bench(int p, const std::string& database) {
    return {"bench",     "--network", network(p),         "--batch",    "4",
            "--repeats", "1",         "--no-check-plans", "--database", database};
  }
  // The rows process p stores, from a run of its own.
  const std::set<std::string>& expected_keys(int p) {
    if (!expected_[p]) {
      const std::string alone = path("alone" + std::to_string(p) + ".db");
      const auto r = run(bench(p, alone));
      EXPECT_EQ(r.status, 0) << describe(r);
      expected_[p] = stored_keys(alone);
      EXPECT_GT(expected_[p]->size(), 50u);
    }
    return *expected_[p];
  }
  void expect_check_passes(const std::string& database) {
    const auto r = run({"db", "check", "--database", database});
    EXPECT_EQ(r.status, 0) << "db check\n" << describe(r);
  }

  SeededRandom random_;
  std::optional<std::set<std::string>> expected_[kProcesses];
};

// A 100 KB file of garbage at the path of a database; eight processes released at one instant by a
// barrier, each after its own 0-40 ms of jitter.
TEST_F(DatabaseRaces, EightWritersOnADamagedFileAllKeepTheirRows) {
  for (int p = 0; p < kProcesses; ++p) expected_keys(p);
  for (int round = 0; round < rounds(); ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::string shared = path("shared-" + std::to_string(round) + ".db");
    std::string garbage(100'000, '\0');
    for (auto& byte : garbage) byte = static_cast<char>(random_.uniform(0, 255));
    std::ofstream(shared, std::ios::binary) << garbage;
    // Where a database has been (db/file_lease.h): garbage there is damage, set aside.
    std::ofstream(shared + ".lock") << "a ucudnn database\n";
    std::vector<int> jitter_ms;
    for (int p = 0; p < kProcesses; ++p) jitter_ms.push_back(random_.uniform(0, 40));
    std::vector<ProcessResult> results(kProcesses);
    std::vector<std::thread> threads;
    bool go = false;
    std::mutex mutex;
    std::condition_variable released;
    for (int p = 0; p < kProcesses; ++p)
      threads.emplace_back([&, p] {
        {
          std::unique_lock lock(mutex);
          released.wait(lock, [&] { return go; });
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(jitter_ms[p]));
        results[p] = run(bench(p, shared));
      });
    {
      std::lock_guard lock(mutex);
      go = true;
    }
    released.notify_all();
    for (auto& thread : threads) thread.join();
    const auto have = stored_keys(shared);
    for (int p = 0; p < kProcesses; ++p) {
      EXPECT_EQ(results[p].status, 0) << "process " << p << "\n" << describe(results[p]);
      EXPECT_EQ(missing_from(expected_keys(p), have), 0u) << "rows of process " << p << " lost";
    }
    int aside = 0;
    for (const auto& entry : std::filesystem::directory_iterator(folder_.path()))
      if (entry.path().filename().string().rfind(
              "shared-" + std::to_string(round) + ".db.not-a-database-", 0) == 0)
        ++aside;
    EXPECT_EQ(aside, 1) << "exactly one process sets the damaged file aside";
    expect_check_passes(shared);
  }
}

// Holds SQLite's EXCLUSIVE lock on `database` from construction until release().
class ExclusiveHolder {
 public:
  explicit ExclusiveHolder(const std::string& database) {
    EXPECT_EQ(sqlite3_open(database.c_str(), &db_), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db_, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  }
  void release() {
    if (!db_) return;
    sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
    sqlite3_close(db_);
    db_ = nullptr;
  }
  ~ExclusiveHolder() { release(); }

 private:
  sqlite3* db_ = nullptr;
};

TEST_F(DatabaseRaces, AWriterThatWaitsForTheLockSavesEverything) {
  const std::string database = path("waited.db");
  ASSERT_EQ(run(bench(0, database)).status, 0);  // the file exists, with rows of its own
  ExclusiveHolder holder(database);
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::seconds(3));
    holder.release();
  });
  const auto r = run(bench(1, database), {{"UCUDNN_DATABASE_LOCK_TIMEOUT", "30s"}});
  release.join();
  EXPECT_EQ(r.status, 0) << describe(r);
  EXPECT_NE(r.err.find("waiting for"), std::string::npos) << "it says that it waits\n" << r.err;
  EXPECT_EQ(missing_from(expected_keys(1), stored_keys(database)), 0u);
  expect_check_passes(database);
}

// Starts `argv` with this process's environment; its output to `out` (a descriptor; -1: none)
// and its errors to the file `err` (empty: none).
pid_t spawn(const std::vector<std::string>& argv, int out = -1, const std::string& err = "") {
  std::vector<std::string> args = argv;
  std::vector<char*> pointers;
  for (auto& a : args) pointers.push_back(a.data());
  pointers.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (out >= 0)
    posix_spawn_file_actions_adddup2(&actions, out, STDOUT_FILENO);
  else
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.empty() ? "/dev/null" : err.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  if (posix_spawn(&pid, pointers[0], &actions, nullptr, pointers.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

// The lock is taken once the writer has opened the file and printed what it will measure, and
// held past its whole run: it must say which rows it could not save and exit 1, never succeed
// with its results lost.
TEST_F(DatabaseRaces, AWriterThatCannotSaveSaysWhichRowsAndFails) {
  const std::string database = path("held.db");
  ASSERT_EQ(run(bench(0, database)).status, 0);
  auto argv = bench(1, database);
  argv.insert(argv.begin(), kTool);
  int out[2];
  ASSERT_EQ(::pipe(out), 0);
  const std::string err = path("held.err");
  ::setenv("UCUDNN_DATABASE_LOCK_TIMEOUT", "300ms", 1);
  const pid_t pid = spawn(argv, out[1], err);
  ::unsetenv("UCUDNN_DATABASE_LOCK_TIMEOUT");
  ::close(out[1]);
  ASSERT_GT(pid, 0);
  char byte = 0;
  ASSERT_EQ(::read(out[0], &byte, 1), 1) << "the writer printed nothing";
  ExclusiveHolder holder(database);
  while (::read(out[0], &byte, 1) > 0) {
  }
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  holder.release();
  const std::string errors = read_file(err);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << "status " << status << "\n"
                                                             << errors;
  EXPECT_NE(errors.find("results could not be saved in"), std::string::npos) << errors;
  EXPECT_NE(errors.find("measurement cpu:"), std::string::npos) << "it names the rows\n" << errors;
  expect_check_passes(database);
}

// Writers killed (SIGKILL) at random moments, a hot journal left behind by some; after each,
// `db check` passes, and the next normal run keeps every row it measured.
TEST_F(DatabaseRaces, TheRunAfterAKilledWriterKeepsItsRows) {
  const std::string database = path("crashed.db");
  ASSERT_EQ(run(bench(0, database)).status, 0);
  int journals = 0;
  for (int round = 0; round < 2 * rounds(); ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const int victim = 2 + round % 3, next = 5 + round % 3;
    auto argv = bench(victim, database);
    argv.insert(argv.begin(), kTool);
    const int delay_ms = random_.uniform(0, 1500);
    const pid_t pid = spawn(argv);
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (std::filesystem::exists(database + "-journal")) ++journals;
    expect_check_passes(database);
    const auto r = run(bench(next, database));
    EXPECT_EQ(r.status, 0) << describe(r);
    EXPECT_EQ(missing_from(expected_keys(next), stored_keys(database)), 0u)
        << "rows of the run after the kill (at " << delay_ms << " ms) lost";
    expect_check_passes(database);
  }
  std::printf("hot journals left by the killed writers: %d of %d\n", journals, 2 * rounds());
}

}  // namespace
}  // namespace ucudnn::testing
