// The `ucudnn` tool and its benchmark databases, end to end: the default database is the
// shim's, `plan` reads without measuring and names what is missing, a locked database is
// waited for out loud, and `db export`/`import` round-trip every row.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "cli_test_fixture.h"
#include "support/printed_text.h"

namespace ucudnn::testing {
namespace {

TEST_F(CliTest, DefaultDatabaseIsTheShims) {
  const auto bench = run(concat({"bench", "--no-check-plans"}, bench_args()));
  ASSERT_EQ(bench.status, 0) << describe(bench);
  EXPECT_NE(bench.out.find("database: " + path("default.db")), std::string::npos) << bench.out;
  EXPECT_TRUE(std::filesystem::exists(path("default.db")));
  const auto repeats = run(concat({"plan"}, bench_args()));
  EXPECT_NE(repeats.status, 0);  // --repeats is bench's only
  const auto planned = run(concat({"plan"}, network_args()));
  ASSERT_EQ(planned.status, 0) << describe(planned);
  EXPECT_EQ(plan_part(planned.out), plan_part(bench.out));
}

// "--database=~/x.db" and a quoted UCUDNN_DATABASE reach the tool with the "~" as it is: both
// are the home folder's (they used to make a folder named "~" in the working directory).
TEST_F(CliTest, ADatabaseUnderATildeIsInTheHomeFolder) {
  const auto bench =
      run(concat({"bench", "--no-check-plans", "--database=~/tilde.db"}, bench_args()),
          {{"HOME", path("")}});
  ASSERT_EQ(bench.status, 0) << describe(bench);
  EXPECT_TRUE(std::filesystem::exists(path("tilde.db")));
  const auto planned = run(concat({"plan"}, network_args()),
                           {{"HOME", path("")}, {"UCUDNN_DATABASE", "~/tilde.db"}});
  ASSERT_EQ(planned.status, 0) << describe(planned);
  EXPECT_EQ(plan_part(planned.out), plan_part(bench.out));
  const auto info = run({"db", "info", "--database=~/tilde.db"}, {{"HOME", path("")}});
  EXPECT_EQ(info.status, 0) << describe(info);
  EXPECT_FALSE(std::filesystem::exists("~")) << "a folder named ~ in the working directory";
}

// A device whose memory other processes hold for now: bench keeps what it measured, says how
// many it could not take and makes no plan (a plan without them could be stored as the best
// when it is not); run again once the memory is free, it measures the rest and plans.
TEST_F(CliTest, MeasurementsADeviceHasNoMemoryForAreNamedAndTheRestKept) {
  if (!have_fakecuda()) GTEST_SKIP() << "built without the cuDNN test doubles";
  const auto args =
      concat({"bench", "--database", path("m.db"), "--backend", "cudnn"}, bench_args(8));
  const auto short_of_memory = run(args, fakecuda({{"FAKECUDA_MEMORY_BYTES", "600000"},
                                                   {"FAKECUDA_MEMORY_HELD_BYTES", "400000"}}));
  EXPECT_EQ(short_of_memory.status, 1) << describe(short_of_memory);
  const std::regex said(R"(ucudnn bench: (\d+) measurements could not be taken now, e\.g\. .*; )"
                        R"(the (\d+) taken are stored\. No plan was made)");
  std::smatch numbers;
  ASSERT_TRUE(std::regex_search(short_of_memory.err, numbers, said)) << describe(short_of_memory);
  EXPECT_EQ(short_of_memory.err.find("internal error"), std::string::npos);
  // Where the memory will never be free (a batch larger than the device holds), what to do.
  EXPECT_NE(short_of_memory.err.find("or with a smaller --batch where its memory can never hold"),
            std::string::npos)
      << describe(short_of_memory);
  EXPECT_EQ(short_of_memory.out.find("WR total"), std::string::npos) << "no plan is printed";
  // Said once per kernel, however many of its measurements are short: the count comes at the end.
  std::set<std::string> warned;
  for (const auto& line : lines_in(short_of_memory.err))
    if (const auto of = line.find("the other measurements of "); of != std::string::npos) {
      EXPECT_TRUE(warned.insert(line.substr(of)).second) << "said twice: " << line;
    }
  EXPECT_FALSE(warned.empty()) << short_of_memory.err;
  EXPECT_LT(warned.size(), std::stoul(numbers[1].str())) << short_of_memory.err;

  const auto info = run({"db", "info", "--database", path("m.db")});
  ASSERT_EQ(info.status, 0) << describe(info);
  EXPECT_NE(info.out.find("\n" + numbers[2].str() + " measurements, 0 plans"), std::string::npos)
      << info.out;

  // The same device with its memory free (its size, part of the fingerprint, is the same).
  const auto free = run(args, fakecuda({{"FAKECUDA_MEMORY_BYTES", "600000"}}));
  ASSERT_EQ(free.status, 0) << describe(free);
  const auto [measured, reused] = counts(free);
  EXPECT_EQ(reused, std::stol(numbers[2].str())) << free.out;
  EXPECT_EQ(measured, std::stol(numbers[1].str())) << free.out;
  EXPECT_NE(free.out.find("WR total"), std::string::npos) << free.out;
}

// A bench stopped midway (a scheduler's time limit sends SIGTERM) keeps every item it finished:
// the next bench measures only the rest.
TEST_F(CliTest, ABenchStoppedMidwayKeepsWhatItMeasured) {
  // Five timed runs per measurement: items of about 0.2 s, so that the stop comes well before
  // the end on any machine.
  const auto network =
      concat(network_args(), {"--repeats", "5", "--no-check-plans", "--database", path("s.db")});
  // The shell stops it once the third of its 27 items is done (its progress line is printed
  // after the item is stored), and says how it ended.
  std::vector<std::string> argv = {
      "/bin/sh",
      "-c",
      "\"$@\" 2> \"$UCUDNN_TEST_ERR\" & pid=$!; "
      "while ! grep -q '^\\[3/' \"$UCUDNN_TEST_ERR\"; do kill -0 $pid || break; sleep 0.02; done; "
      "kill -TERM $pid; wait $pid; echo \"status $?\"",
      "sh",
      kTool,
      "bench"};
  argv.insert(argv.end(), network.begin(), network.end());
  const auto stopped = run_process(argv, environment({{"UCUDNN_TEST_ERR", path("err.txt")}}));
  ASSERT_NE(stopped.out.find("status 143"), std::string::npos)
      << "bench was to be stopped by SIGTERM midway: " << describe(stopped)
      << read_file(path("err.txt"));
  const auto [measurements, plans] = rows(path("s.db"));
  EXPECT_GE(measurements.size(), 3u) << "three items at least, each of several algorithms";
  EXPECT_TRUE(plans.empty());
  // It says so, and how many items it kept, before it ends as the signal ends it (143 above).
  const std::string err = read_file(path("err.txt"));
  const std::string said =
      "ucudnn bench: interrupted; (kernel, micro-batch) items measured and stored: ";
  const auto at = err.find(said);
  ASSERT_NE(at, std::string::npos) << err;
  EXPECT_GE(std::stol(err.substr(at + said.size())), 3) << err;

  const auto again = run(concat({"bench"}, network));
  ASSERT_EQ(again.status, 0) << describe(again);
  const auto [measured, reused] = counts(again);
  EXPECT_EQ(reused, static_cast<long>(measurements.size())) << again.out;
  EXPECT_GT(measured, 0) << again.out;
}

// A text file named as the database (the network file, by a slip) is refused and left as it is,
// and so is a binary file where no database has been (a checkpoint): each used to be set aside
// and replaced by a database, as a damaged one still is (DatabaseRaces).
TEST_F(CliTest, AFileOfTheUsersGivenAsTheDatabaseIsRefusedUntouched) {
  std::filesystem::copy_file(kTiny, path("net.json"));
  std::string checkpoint = "PK\x03\x04";
  for (int i = 0; i < 3000; ++i) checkpoint += static_cast<char>(i * 13 % 256);
  write_file(path("model.pt"), checkpoint);
  for (const auto& [file, what] :
       {std::pair{path("net.json"), "a text file, not a SQLite database"},
        std::pair{path("model.pt"),
                  "not a SQLite database, and its .lock file does not say that a ucudnn "
                  "database has been there"}}) {
    const std::string before = read_file(file);
    for (const char* command : {"bench", "plan"}) {
      auto args = command == std::string("bench") ? bench_args() : network_args(4);
      args[1] = path("net.json");  // --network
      const auto r = run(concat({command, "--database", file}, args));
      EXPECT_EQ(r.status, 1) << describe(r);
      EXPECT_NE(r.err.find("ucudnn " + std::string(command) + ": --database: '" + file + "' is " +
                           what + "; it is left as it is"),
                std::string::npos)
          << r.err;
      EXPECT_EQ(r.out.find("measured"), std::string::npos) << r.out;
    }
    EXPECT_EQ(read_file(file), before);
  }
  for (const auto& entry : std::filesystem::directory_iterator(folder_.path()))
    EXPECT_EQ(entry.path().filename().string().find("not-a-database"), std::string::npos)
        << entry.path();
}

// A slip of an output option onto a database: `report --out` named the database it read, `db
// export` named another database as its file. Both wrote over it, and its measurements were lost.
TEST_F(CliTest, AnOutputNamingADatabaseIsRefusedAndTheDatabaseKept) {
  const auto bench =
      run(concat({"bench", "--no-check-plans", "--database", path("a.db")}, bench_args()));
  ASSERT_EQ(bench.status, 0) << describe(bench);
  const auto other =
      run(concat({"bench", "--no-check-plans", "--database", path("b.db")}, bench_args(8)));
  ASSERT_EQ(other.status, 0) << describe(other);
  const std::string a = read_file(path("a.db")), b = read_file(path("b.db"));
  const auto report =
      run(concat({"report", "--database", path("a.db"), "--out", path("a.db")}, network_args()));
  EXPECT_EQ(report.status, 1) << describe(report);
  EXPECT_NE(
      report.err.find("--out: will not write over '" + path("a.db") + "': it is a SQLite database"),
      std::string::npos)
      << report.err;
  const auto exported = run({"db", "export", path("b.db"), "--database", path("a.db")});
  EXPECT_NE(exported.status, 0) << describe(exported);
  EXPECT_NE(exported.err.find("will not write over '" + path("b.db") + "'"), std::string::npos)
      << exported.err;
  EXPECT_EQ(read_file(path("a.db")), a);
  EXPECT_EQ(read_file(path("b.db")), b);
  EXPECT_EQ(run({"db", "check", "--database", path("b.db")}).status, 0);
}

// The default database, where it cannot be written, is refused before anything is measured (it
// was found out after minutes of measuring, when nothing could be saved).
TEST_F(CliTest, ADefaultDatabaseThatCannotBeWrittenIsRefusedBeforeMeasuring) {
  std::ofstream(path("a-file")) << "not a folder";
  const std::string unreachable = path("a-file") + "/cache/ucudnn.db";
  const auto r = run(concat({"bench"}, bench_args()), {{"UCUDNN_DATABASE", unreachable}});
  EXPECT_EQ(r.status, 1) << describe(r);
  EXPECT_NE(r.err.find("ucudnn bench: the default database '" + unreachable +
                       "' cannot be written (see the warning above): pass --database FILE or "
                       "set UCUDNN_DATABASE"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("measured"), std::string::npos) << r.out;
}

// A child process that holds `database`'s write lock (BEGIN EXCLUSIVE) for `milliseconds`;
// returns once the lock is taken.
pid_t hold_write_lock(const std::string& database, int milliseconds) {
  int ready[2];
  if (::pipe(ready) != 0) return -1;
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(ready[0]);
    sqlite3* db = nullptr;
    const bool held = sqlite3_open(database.c_str(), &db) == SQLITE_OK &&
                      sqlite3_exec(db, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr) == SQLITE_OK;
    if (held) (void)!::write(ready[1], "x", 1);
    ::usleep(static_cast<useconds_t>(milliseconds) * 1000);
    const bool committed =
        held && sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(db);
    ::_exit(committed ? 0 : 1);
  }
  ::close(ready[1]);
  char byte = 0;
  const bool held = ::read(ready[0], &byte, 1) == 1;
  ::close(ready[0]);
  EXPECT_TRUE(held) << "the lock holder failed";
  return child;
}

int release(pid_t holder) {
  int status = -1;
  if (holder > 0) ::waitpid(holder, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_F(CliTest, PlanReadsWithoutBenchmarking) {
  const auto bench =
      run(concat({"bench", "--database", path("a.db"), "--no-check-plans"}, bench_args()));
  ASSERT_EQ(bench.status, 0) << describe(bench);
  const auto before = rows(path("a.db"));

  // Another limit and a total workspace: planned from the same measurements.
  const auto plan =
      run(concat({"plan", "--database", path("a.db"), "--json", "--total-workspace", "2MiB"},
                 network_args(4, "64KiB")));
  ASSERT_EQ(plan.status, 0) << describe(plan);
  const json document = json::parse(plan.out);
  EXPECT_EQ(document["network"], "tiny");
  EXPECT_EQ(document["workspace_limit"], 64u << 10);
  ASSERT_EQ(document["kernels"].size(), 12u);
  for (const auto& kernel : document["kernels"]) {
    ASSERT_FALSE(kernel["plan"].is_null()) << kernel.dump();
    EXPECT_LE(kernel["plan"]["workspace_bytes"].get<std::uint64_t>(), 64u << 10);
    std::int64_t covered = 0;
    for (const auto& micro : kernel["plan"]["micro"]) covered += micro["batch"].get<std::int64_t>();
    EXPECT_EQ(covered, 4);
  }
  EXPECT_EQ(document["kernels"][3]["layer"], "conv2");
  EXPECT_EQ(document["wd"]["kernels"].size(), 9u);
  EXPECT_LE(document["wd"]["workspace_bytes"].get<std::uint64_t>(), 2u << 20);
  // Nothing was measured or written.
  EXPECT_EQ(without_times(rows(path("a.db")).first), without_times(before.first));
  EXPECT_EQ(rows(path("a.db")).second.size(), before.second.size());
}

TEST_F(CliTest, PlanNamesTheKernelsWithoutMeasurements) {
  const auto bench =
      run(concat({"bench", "--database", path("a.db"), "--no-check-plans"}, bench_args()));
  ASSERT_EQ(bench.status, 0) << describe(bench);
  // Batch 8 was never benchmarked.
  const auto plan = run(concat({"plan", "--database", path("a.db")}, network_args(8)));
  EXPECT_EQ(plan.status, 1) << describe(plan);
  EXPECT_NE(plan.err.find("measurements the database does not have, of 12 kernels: conv1 Forward"),
            std::string::npos)
      << plan.err;
  EXPECT_NE(plan.err.find("run `ucudnn bench --network " + kTiny + " --batch 8"), std::string::npos)
      << plan.err;
}

// The bench command plan suggests can be pasted as it is printed: words a shell would split or
// expand are quoted, and the options that change what is measured and stored are all there.
TEST_F(CliTest, PlanSuggestsABenchThatCanBePastedAndMeasuresWhatItNeeds) {
  const std::vector<std::string> options =
      concat({"--database", path("it's mine.db"), "--exclude-algorithms", "cpu:ONEDNN*",
              "--total-workspace", "1 MiB"},
             network_args(4, "256 KiB"));
  const auto before = run(concat({"plan"}, options));
  ASSERT_EQ(before.status, 1) << describe(before);
  const auto from = before.err.find("run `"), to = before.err.find("` first");
  ASSERT_TRUE(from != std::string::npos && to != std::string::npos) << before.err;
  const std::string suggested = before.err.substr(from + 5, to - from - 5);
  EXPECT_NE(suggested.find("--total-workspace '1 MiB'"), std::string::npos) << suggested;
  EXPECT_NE(suggested.find("--exclude-algorithms 'cpu:ONEDNN*'"), std::string::npos) << suggested;

  // Pasted into a shell, with the tool as `ucudnn`, and made quick.
  const auto pasted = run_process(
      {"/bin/sh", "-c",
       "ucudnn() { \"$UCUDNN_TOOL\" \"$@\"; }; " + suggested + " --repeats 1 --no-check-plans"},
      {{"UCUDNN_TOOL", kTool},
       {"UCUDNN_DATABASE", path("default.db")},
       {"UCUDNN_SYSTEM_DATABASE", std::nullopt},
       {"OMP_WAIT_POLICY", "passive"}});
  ASSERT_EQ(pasted.status, 0) << suggested << "\n" << describe(pasted);
  EXPECT_TRUE(std::filesystem::exists(path("it's mine.db")));
  // What it stored, not what plan makes of it (plan excludes and divides by itself).
  const auto [measurements, plans] = rows(path("it's mine.db"));
  EXPECT_FALSE(measurements.empty());
  for (const auto& row : measurements)
    EXPECT_EQ(row["algorithm"].get<std::string>().find("ONEDNN"), std::string::npos) << row;
  // Plans made under an exclusion would be taken for the best by a job run without it.
  EXPECT_TRUE(plans.empty()) << "plans made under --exclude-algorithms are not stored";
  EXPECT_NE(pasted.out.find("plans not stored: they were made under --exclude-algorithms"),
            std::string::npos)
      << pasted.out;
  EXPECT_NE(pasted.out.find("WD total"), std::string::npos) << "--total-workspace reached bench";
  const auto after = run(concat({"plan"}, options));
  ASSERT_EQ(after.status, 0) << describe(after);
}

TEST_F(CliTest, PlanNamesAMissingDatabaseAndCreatesNothing) {
  const auto plan = run(concat({"plan", "--database", path("nowhere.db")}, network_args()));
  EXPECT_EQ(plan.status, 1) << describe(plan);
  EXPECT_NE(plan.err.find("ucudnn: warning: benchmark database " + path("nowhere.db") +
                          " does not exist"),
            std::string::npos)
      << plan.err;
  EXPECT_EQ(plan.err.find("system benchmark database"), std::string::npos) << plan.err;
  EXPECT_TRUE(std::filesystem::is_empty(folder_.path())) << "a reader leaves nothing behind";
}

// Another process holds the database's write lock for a while: the tool waits for it, and
// says so within a second or two instead of sitting silent.
TEST_F(CliTest, WaitingForALockedDatabaseIsAnnounced) {
  const auto bench =
      run(concat({"bench", "--database", path("a.db"), "--no-check-plans"}, bench_args()));
  ASSERT_EQ(bench.status, 0) << describe(bench);
  for (const char* command : {"plan", "bench"}) {
    SCOPED_TRACE(command);
    std::vector<std::string> args = {command, "--database", path("a.db")};
    if (std::string(command) == "bench") args.push_back("--no-check-plans");
    const auto holder = hold_write_lock(path("a.db"), 3000);
    const auto started = std::chrono::steady_clock::now();
    const auto r = run(concat(args, network_args()));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    EXPECT_EQ(release(holder), 0);
    EXPECT_EQ(r.status, 0) << describe(r);
    EXPECT_NE(r.err.find("ucudnn: waiting for " + path("a.db")), std::string::npos) << r.err;
    EXPECT_GE(seconds, 2.5) << "it waited for the lock";
  }
}

// A database locked past the timeout when bench opens it: bench stops with that said, measuring
// nothing it could not store, and does not pass on the shim's "running uncached until it is free".
TEST_F(CliTest, ABenchLockedOutOfItsDatabaseSaysSoAndMeasuresNothing) {
  const auto first =
      run(concat({"bench", "--database", path("a.db"), "--no-check-plans"}, bench_args()));
  ASSERT_EQ(first.status, 0) << describe(first);
  const auto holder = hold_write_lock(path("a.db"), 3500);
  const auto r =
      run(concat({"bench", "--database", path("a.db"), "--no-check-plans"}, bench_args(8)),
          {{"UCUDNN_DATABASE_LOCK_TIMEOUT", "1s"}});
  EXPECT_EQ(release(holder), 0);
  EXPECT_EQ(r.status, 1) << describe(r);
  EXPECT_NE(r.err.find("ucudnn bench: --database: '" + path("a.db") +
                       "' stayed locked by another process for 1 s "
                       "(UCUDNN_DATABASE_LOCK_TIMEOUT): nothing was measured"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("running uncached"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("measured"), std::string::npos) << r.out;
}

// `ucudnn db`'s commands wait for a lock as long as UCUDNN_DATABASE_LOCK_TIMEOUT says, and say
// so (they waited a minute in silence, whatever it said).
TEST_F(CliTest, DbCommandsWaitForALockAsLongAsTheTimeoutSaysAndSaySo) {
  const auto bench =
      run(concat({"bench", "--database", path("a.db"), "--no-check-plans"}, bench_args()));
  ASSERT_EQ(bench.status, 0) << describe(bench);
  for (const char* command : {"info", "vacuum", "check"}) {
    SCOPED_TRACE(command);
    const auto holder = hold_write_lock(path("a.db"), 3500);
    const auto started = std::chrono::steady_clock::now();
    const auto r = run({"db", command, "--database", path("a.db")},
                       {{"UCUDNN_DATABASE_LOCK_TIMEOUT", "1500ms"}});
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    EXPECT_EQ(release(holder), 0);
    EXPECT_EQ(r.status, 1) << describe(r);
    EXPECT_NE(r.err.find("ucudnn: waiting for " + path("a.db") +
                         ": another process holds its lock (waiting up to 1.5 s)"),
              std::string::npos)
        << r.err;
    EXPECT_GE(seconds, 1.4) << "it waited for the lock";
    EXPECT_LT(seconds, 3.4) << "and no longer than the timeout (the lock was held for 3.5 s)";
  }
}

TEST_F(CliTest, DatabaseRoundTrip) {
  const auto bench =
      run(concat({"bench", "--database", path("a.db"), "--no-check-plans"}, bench_args()));
  ASSERT_EQ(bench.status, 0) << describe(bench);
  const auto a = rows(path("a.db"));

  const auto info = run({"db", "info", "--database", path("a.db")});
  ASSERT_EQ(info.status, 0) << describe(info);
  EXPECT_NE(info.out.find(std::to_string(a.first.size()) + " measurements, " +
                          std::to_string(a.second.size()) + " plans, 1 fingerprint"),
            std::string::npos)
      << info.out;
  EXPECT_NE(info.out.find("kind=cpu;"), std::string::npos) << info.out;

  const auto exported = run({"db", "export", path("a.json"), "--database", path("a.db")});
  ASSERT_EQ(exported.status, 0) << describe(exported);
  const auto imported = run({"db", "import", path("a.json"), "--database", path("b.db")});
  ASSERT_EQ(imported.status, 0) << describe(imported);
  const auto again = run({"db", "import", path("a.json"), "--database", path("b.db")});
  EXPECT_NE(again.out.find(" plans written (the other "), std::string::npos) << again.out;
  const auto b = rows(path("b.db"));
  EXPECT_EQ(without_times(b.first), without_times(a.first));
  EXPECT_EQ(without_times(b.second), without_times(a.second));

  const auto merged = run({"db", "merge", path("a.db"), path("b.db"), "--into", path("c.db")});
  ASSERT_EQ(merged.status, 0) << describe(merged);
  const auto c = rows(path("c.db"));
  EXPECT_EQ(without_times(c.first), without_times(a.first));
  EXPECT_EQ(run({"db", "check", "--database", path("c.db")}).status, 0);
  EXPECT_EQ(run({"db", "vacuum", "--database", path("c.db")}).status, 0);

  std::ofstream(path("garbage.db")) << "not a database at all, just some text";
  const auto check = run({"db", "check", "--database", path("garbage.db")});
  EXPECT_EQ(check.status, 1) << describe(check);
  EXPECT_NE(check.out.find("problem: "), std::string::npos) << check.out;
  const auto bad_import = run({"db", "import", path("missing.json"), "--database", path("b.db")});
  EXPECT_EQ(bad_import.status, 1);
  EXPECT_NE(bad_import.err.find("cannot read '" + path("missing.json") + "'"), std::string::npos);
}

// Each file is broken in one way; the error names the file, the field and the value.

}  // namespace
}  // namespace ucudnn::testing
