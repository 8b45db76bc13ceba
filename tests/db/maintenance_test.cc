// `ucudnn db info|merge|check|vacuum` as functions (export and import: export_import_test.cc).
#include "db/maintenance/commands.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "db/schema.h"
#include "db/sqlite_store.h"
#include "db_test_support.h"

namespace ucudnn {
namespace {

using namespace ucudnn::testing;
using db::ExportLayout;

std::optional<Measurement> measurement_in(const std::string& path, const std::string& fingerprint,
                                          const KernelKey& key, const std::string& algorithm) {
  SqliteStore store(path);
  auto found = store.find_measurement(fingerprint, key, "cudnn", algorithm);
  if (!found) return Measurement{-1, 0, 0, 0, -1};  // "no row", distinct from "unsupported"
  return found->measurement;
}

TEST(Merge, NewestMeasurementPerKeyWinsAndFingerprintsStayApart) {
  TempFolder folder;
  const auto node1 = folder.file("node1.db"), node2 = folder.file("node2.db");
  const auto h100 = gpu_fingerprint("H100"), a100 = gpu_fingerprint("A100");
  {
    SqliteStore store(node1);
    store.put_measurements({supported(h100, kernel(4), "FFT", 1.0, 10, 1000),   // older
                            supported(h100, kernel(4), "GEMM", 5.0, 50, 3000),  // newer
                            supported(a100, kernel(4), "FFT", 7.0, 70, 1000),
                            supported(h100, kernel(8), "FFT", 8.0, 80, 1000)});  // only here
    store.put_plan(plan_key(h100), sample_plan(32));
  }
  {
    SqliteStore store(node2);
    store.put_measurements({supported(h100, kernel(4), "FFT", 2.0, 20, 2000),
                            unsupported(h100, kernel(4), "GEMM", 2000),
                            supported(a100, kernel(16), "FFT", 6.0, 60, 500)});
    store.put_plan(plan_key(a100), sample_plan(32));
  }
  auto merged = db::merge_database(node2, node1);
  ASSERT_TRUE(merged) << merged.error();
  EXPECT_EQ(merged->measurements_read, 3u);
  EXPECT_EQ(merged->measurements_written, 2u) << "the older GEMM result stays out";
  EXPECT_EQ(merged->plans_read, 1u);
  EXPECT_EQ(merged->plans_written, 1u);
  EXPECT_EQ(merged->invalid_rows_skipped, 0u);

  EXPECT_EQ(measurement_in(node1, h100, kernel(4), "FFT")->time_ms, 2.0);
  EXPECT_EQ(measurement_in(node1, h100, kernel(4), "GEMM")->time_ms, 5.0);
  EXPECT_EQ(measurement_in(node1, a100, kernel(4), "FFT")->time_ms, 7.0)
      << "another device's result for the same kernel is kept apart";
  EXPECT_EQ(measurement_in(node1, a100, kernel(16), "FFT")->time_ms, 6.0);
  EXPECT_EQ(measurement_in(node1, h100, kernel(8), "FFT")->time_ms, 8.0);
  {
    SqliteStore store(node1);
    EXPECT_EQ(store.find_plan(plan_key(h100)), sample_plan(32));
    EXPECT_EQ(store.find_plan(plan_key(a100)), sample_plan(32));
  }

  auto again = db::merge_database(node2, node1);
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(again->measurements_written, 0u) << "merging twice changes nothing";
  EXPECT_EQ(again->plans_written, 0u);
}

TEST(Merge, NewerPlansWinAndTheTargetIsCreated) {
  TempFolder folder;
  const auto source = folder.file("source.db"), target = folder.file("new/target.db");
  {
    SqliteStore store(source);
    store.put_plan(plan_key(gpu_fingerprint()), sample_plan(32));
  }
  auto merged = db::merge_database(source, target);
  ASSERT_TRUE(merged) << merged.error();
  EXPECT_EQ(merged->plans_written, 1u);
  {
    // Older in the target: replaced by a newer source plan; newer: kept.
    auto raw = raw_connection(target);
    raw.execute("UPDATE plans SET created_at = 1");
  }
  EXPECT_EQ(db::merge_database(source, target)->plans_written, 1u);
  {
    auto raw = raw_connection(target);
    raw.execute("UPDATE plans SET created_at = 9000000000, configurations = '[]'");
  }
  EXPECT_EQ(db::merge_database(source, target)->plans_written, 0u);
  // A row of the source made "in the future" (a bad clock, a hand edit) would win every later
  // merge for good: skipped, as db check reports it and import refuses it.
  raw_connection(source).execute("UPDATE plans SET created_at = 41000000000");
  const auto ahead = db::merge_database(source, target);
  ASSERT_TRUE(ahead) << ahead.error();
  EXPECT_EQ(ahead->plans_written, 0u);
  EXPECT_EQ(ahead->invalid_rows_skipped, 1u);
  SqliteStore store(target);
  EXPECT_EQ(store.find_plan(plan_key(gpu_fingerprint())), std::vector<Configuration>{});
}

// Plans of one kernel benched twice (again, or on another node) answer overlapping ranges of
// limits. Merged, the newest answers its whole range: the older one used to stay beside it, and
// starting higher, answered a job above the newer one's start, while `plan` showed the newer.
TEST(Merge, TheNewestOfOverlappingPlansAnswersItsWholeRange) {
  TempFolder folder;
  const auto older = folder.file("older.db"), newer = folder.file("newer.db");
  const auto key = plan_key(gpu_fingerprint(), 32, 8 << 20);
  const std::vector<Configuration> whole = {
      Configuration{{{"cudnn", "IMPLICIT_GEMM", 32, 3.0, 0}}}};
  {
    SqliteStore store(older);
    store.put_plan(key, whole, {2 << 20, 16 << 20});
  }
  {
    SqliteStore store(newer);
    store.put_plan(key, sample_plan(32), {1 << 20, 12 << 20});
  }
  raw_connection(older).execute("UPDATE plans SET created_at = 1000");
  raw_connection(newer).execute("UPDATE plans SET created_at = 2000");
  const auto merged = folder.file("merged.db");
  ASSERT_TRUE(db::merge_databases({older, newer}, merged));
  auto at = [&](const std::string& path, std::uint64_t limit) {
    PlanKey asked = key;
    asked.workspace_limit = limit;
    return SqliteStore(path).find_plan(asked);
  };
  for (std::uint64_t limit : {1u << 20, 2u << 20, 8u << 20})
    EXPECT_EQ(at(merged, limit), sample_plan(32)) << limit;
  EXPECT_FALSE(at(merged, 14 << 20)) << "the older plan is gone, not cut";
  EXPECT_EQ(raw_connection(merged).query_integer("SELECT count(*) FROM plans"), 1);
  // The other way round: the older plan loses to the newer in the target, and nothing changes.
  const auto again = db::merge_database(older, newer);
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(again->plans_written, 0u);
  EXPECT_EQ(at(newer, 8 << 20), sample_plan(32));
  // A file written before (both rows there, as merges left them): the newest row answers,
  // whatever its start.
  {
    auto raw = raw_connection(newer);
    raw.execute(("ATTACH '" + older + "' AS o").c_str());
    raw.execute(
        "INSERT INTO plans (fingerprint_id, subject, policy, workspace_limit, mode, "
        "configurations, created_at, valid_below) SELECT fingerprint_id, subject, policy, "
        "workspace_limit, mode, configurations, created_at, valid_below FROM o.plans");
  }
  ASSERT_EQ(raw_connection(newer).query_integer("SELECT count(*) FROM plans"), 2);
  EXPECT_EQ(at(newer, 8 << 20), sample_plan(32));
  raw_connection(newer).execute(
      "UPDATE plans SET created_at = 3000 WHERE workspace_limit = 2097152");
  EXPECT_EQ(at(newer, 8 << 20), whole);
}

TEST(Merge, ErrorsNameTheFile) {
  TempFolder folder;
  const auto good = folder.file("good.db"), bad = folder.file("bad.db");
  { SqliteStore store(good); }
  write_file(bad, std::string(3000, '\x03'));
  auto missing = db::merge_database(folder.file("missing.db"), good);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("missing.db: no such file"), std::string::npos) << missing.error();
  auto from_bad = db::merge_database(bad, good);
  ASSERT_FALSE(from_bad);
  EXPECT_NE(from_bad.error().find(bad + ": not a SQLite database"), std::string::npos)
      << from_bad.error();
  auto into_bad = db::merge_database(good, bad);
  ASSERT_FALSE(into_bad);
  EXPECT_NE(into_bad.error().find(bad), std::string::npos) << into_bad.error();
  EXPECT_EQ(read_file(bad), std::string(3000, '\x03')) << "maintenance never sets a file aside";
  auto self = db::merge_database(good, good);
  ASSERT_FALSE(self);
  EXPECT_NE(self.error().find("same file"), std::string::npos);
}

// Several sources are merged all or nothing: one that cannot be read leaves the target as it
// was, even where the sources before it could be read.
TEST(Merge, SeveralSourcesAreAllOrNothing) {
  TempFolder folder;
  const auto a = folder.file("a.db"), b = folder.file("b.db"), target = folder.file("t.db");
  {
    SqliteStore store(a);
    store.put_plan(plan_key(gpu_fingerprint()), sample_plan());
  }
  {
    SqliteStore store(b);
    store.put_plan(plan_key(gpu_fingerprint(), 16), sample_plan(16));
  }
  auto failed = db::merge_databases({a, folder.file("missing.db"), b}, target);
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().find("missing.db: no such file"), std::string::npos) << failed.error();
  EXPECT_FALSE(std::filesystem::exists(target)) << "nothing written, not even an empty file";

  auto merged = db::merge_databases({a, b}, target);
  ASSERT_TRUE(merged) << merged.error();
  ASSERT_EQ(merged->size(), 2u);
  EXPECT_EQ((*merged)[0].plans_written, 1u);
  EXPECT_EQ((*merged)[1].plans_written, 1u);
  SqliteStore store(target);
  EXPECT_TRUE(store.find_plan(plan_key(gpu_fingerprint())));
  EXPECT_TRUE(store.find_plan(plan_key(gpu_fingerprint(), 16)));
}

// A file that is no database (a network file given by mistake), or a directory: every
// maintenance command says so and leaves nothing beside it, not even a lock file.
TEST(Maintenance, AFileThatIsNoDatabaseGetsNoLockFileBesideIt) {
  TempFolder folder;
  const auto text = folder.file("network.json"), good = folder.file("good.db");
  write_file(text, R"({"layers": []})");
  { SqliteStore store(good); }
  std::vector<std::string> errors;
  auto error_of = [&](const auto& result) {
    EXPECT_FALSE(result);
    if (!result) errors.push_back(result.error());
  };
  error_of(db::database_info(text));
  error_of(db::vacuum_database(text));
  error_of(db::merge_database(text, good));
  error_of(db::merge_database(good, text));
  std::ostringstream exported;
  ASSERT_TRUE(db::export_database(good, exported, db::ExportLayout::kDocument));
  std::istringstream rows(exported.str());
  error_of(db::import_database(text, rows));
  auto checked = db::check_database(text);
  ASSERT_TRUE(checked) << checked.error();
  EXPECT_FALSE(checked->ok());
  for (const auto& error : errors)
    EXPECT_NE(error.find(text + ": a text file, not a SQLite database"), std::string::npos)
        << error;
  EXPECT_FALSE(std::filesystem::exists(text + ".lock"));
  EXPECT_EQ(read_file(text), R"({"layers": []})");

  const auto directory = folder.file("folder");
  std::filesystem::create_directory(directory);
  auto info = db::database_info(directory);
  ASSERT_FALSE(info);
  EXPECT_NE(info.error().find(directory + ": a directory"), std::string::npos) << info.error();
}

TEST(Check, AHealthyDatabaseHasNoProblems) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  fill_sample(path);
  auto report = db::check_database(path);
  ASSERT_TRUE(report) << report.error();
  EXPECT_TRUE(report->ok()) << report->problems.front();
  EXPECT_EQ(report->measurements_checked, 3u);
  EXPECT_EQ(report->plans_checked, 2u);
  EXPECT_TRUE(report->unreadable.empty()) << "nothing is unreadable in a whole file";
}

// The sample with five rows `db check` reports: two measurements and three plans.
void spoil_five_rows(const std::string& path) {
  fill_sample(path);
  {
    SqliteStore store(path);
    // A WR plan for a batch of 32 that covers 20 images.
    Configuration short_plan;
    short_plan.micro.push_back({"cudnn", "FFT", 20, 1.0, 0});
    store.put_plan(plan_key(gpu_fingerprint(), 32, 1), {short_plan});
    // Over its workspace limit.
    store.put_plan(plan_key(gpu_fingerprint(), 32, 10), sample_plan(32));
  }
  {
    auto raw = raw_connection(path);
    raw.execute("UPDATE measurements SET time_ms = -3 WHERE algorithm = 'FFT'");
    raw.execute("UPDATE plans SET configurations = 'garbage' WHERE mode = 'WD'");
    raw.execute("UPDATE measurements SET max_ms = time_ms / 2 WHERE algorithm = 'im2col'");
  }
}

TEST(Check, ReportsEveryBadRow) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  spoil_five_rows(path);
  auto report = db::check_database(path);
  ASSERT_TRUE(report) << report.error();
  std::string all;
  for (const auto& p : report->problems) all += p + "\n";
  EXPECT_EQ(report->problems.size(), 5u) << all;
  EXPECT_NE(all.find("is not between min_ms"), std::string::npos) << all;
  EXPECT_NE(all.find("measurement 1: time_ms"), std::string::npos) << all;
  EXPECT_NE(all.find("configurations: not valid JSON"), std::string::npos) << all;
  EXPECT_NE(all.find("micro-batches cover 20 of 32 images"), std::string::npos) << all;
  EXPECT_NE(all.find("over the limit of 10"), std::string::npos) << all;
}

// A backup must restore: `db export` skips what `db check` reports, as `db merge` does, since
// `db import` refuses a whole export for one such row (export skipped only rows it could not
// read, and its file was refused).
TEST(Check, WhatCheckReportsExportAndMergeSkipAlike) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  spoil_five_rows(path);
  for (const auto layout : {ExportLayout::kDocument, ExportLayout::kLines}) {
    std::stringstream exported;
    const auto result = db::export_database(path, exported, layout);
    ASSERT_TRUE(result) << result.error();
    EXPECT_EQ(result->invalid_rows_skipped, 5u);
    const auto copy = folder.file(layout == ExportLayout::kLines ? "lines.db" : "document.db");
    const auto imported = db::import_database(copy, exported);
    ASSERT_TRUE(imported) << imported.error();
    EXPECT_EQ(imported->measurements_written + imported->plans_written,
              result->measurements + result->plans);
    const auto report = db::check_database(copy);
    ASSERT_TRUE(report) << report.error();
    EXPECT_TRUE(report->ok()) << report->problems.front();
  }
  const auto merged = db::merge_database(path, folder.file("merged.db"));
  ASSERT_TRUE(merged) << merged.error();
  EXPECT_EQ(merged->invalid_rows_skipped, 5u);
}

// A CPU/GPU split that gives the CPU the whole batch has no micro-batch on the device: a plan,
// not a problem (import refuses what check reports, so such a database must export and import).
TEST(Check, ASplitThatGivesTheCpuTheWholeBatchIsAPlan) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  Configuration all_on_cpu;
  all_on_cpu.offload = OffloadedShare{{{"cpu", "DIRECT", 32, 4.0, 0}}, 1.0, 0};
  PlanKey key = plan_key(gpu_fingerprint(), 32, 1 << 20);
  key.mode = "WR+CPU:on";
  SqliteStore(path).put_plan(key, {all_on_cpu});
  auto report = db::check_database(path);
  ASSERT_TRUE(report) << report.error();
  EXPECT_TRUE(report->ok()) << report->problems.front();
  std::stringstream exported;
  ASSERT_TRUE(db::export_database(path, exported, db::ExportLayout::kDocument));
  auto imported = db::import_database(folder.file("copy.db"), exported);
  ASSERT_TRUE(imported) << imported.error();
  EXPECT_EQ(imported->plans_written, 1u);
}

// A division's kernels of one stream share a segment (their subject says which): the division
// needs the arena laid out as the shim lays it, not the sum of its configurations' workspaces.
TEST(Check, AWorkspaceDivisionIsCheckedAsTheArenaItIsLaidOutIn) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  Configuration one_mib;
  one_mib.micro.push_back({"cudnn", "FFT", 32, 1.0, 1 << 20});
  // aaa and bbb share a segment; ccc has one of its own: 2 MiB in all, 3 MiB summed.
  const std::string subject = "network:aaa*1;bbb*1@0;ccc*1;";
  {
    SqliteStore store(path);
    store.put_plan(PlanKey{gpu_fingerprint(), subject, "powerOfTwo", 2 << 20, "WD"},
                   {one_mib, one_mib, one_mib});
    store.put_plan(PlanKey{gpu_fingerprint(), subject, "powerOfTwo", (2 << 20) - 1, "WD"},
                   {one_mib, one_mib, one_mib});
    store.put_plan(PlanKey{gpu_fingerprint(), subject, "powerOfTwo", 8 << 20, "WD"},
                   {one_mib, one_mib});
  }
  auto report = db::check_database(path);
  ASSERT_TRUE(report) << report.error();
  std::string all;
  for (const auto& p : report->problems) all += p + "\n";
  EXPECT_EQ(report->plans_checked, 3u);
  EXPECT_EQ(report->problems.size(), 2u) << all;
  EXPECT_NE(all.find("need an arena of 2097152 bytes, over the limit of 2097151"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("configurations: 2 for the 3 kernels its subject lists"), std::string::npos)
      << all;
}

TEST(Check, ADamagedFileIsAProblemNotAnError) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  fill_sample(path);
  std::filesystem::resize_file(path, 3000);
  auto report = db::check_database(path);
  ASSERT_TRUE(report) << report.error();
  ASSERT_FALSE(report->ok());
  EXPECT_TRUE(std::filesystem::exists(path)) << "check leaves the file where it is";
  EXPECT_FALSE(db::check_database(folder.file("missing.db")));
}

TEST(Info, CountsPerFingerprint) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  fill_sample(path);
  auto info = db::database_info(path);
  ASSERT_TRUE(info) << info.error();
  EXPECT_EQ(info->schema_version, db::schema_version());
  EXPECT_EQ(info->file_size, std::filesystem::file_size(path));
  EXPECT_EQ(info->measurements, 3u);
  EXPECT_EQ(info->plans, 2u);
  ASSERT_EQ(info->fingerprints.size(), 2u);
  const auto& cpu = info->fingerprints[0].fingerprint == cpu_fingerprint() ? info->fingerprints[0]
                                                                           : info->fingerprints[1];
  const auto& gpu = &cpu == &info->fingerprints[0] ? info->fingerprints[1] : info->fingerprints[0];
  EXPECT_EQ(gpu.fingerprint, gpu_fingerprint());
  EXPECT_EQ(gpu.measurements, 2u);
  EXPECT_EQ(gpu.unsupported, 1u);
  EXPECT_EQ(gpu.plans, 1u);
  EXPECT_EQ(gpu.last_measured_at, 1700000001);
  EXPECT_EQ(cpu.measurements, 1u);
  EXPECT_EQ(cpu.plans, 1u);
  EXPECT_FALSE(db::database_info(folder.file("missing.db")));
}

TEST(Vacuum, ShrinksAfterDeletions) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  {
    SqliteStore store(path);
    std::vector<MeasurementRecord> records;
    for (int b = 1; b <= 500; ++b)
      records.push_back(supported(gpu_fingerprint(), kernel(b), "FFT", 1.0, 1));
    store.put_measurements(records);
  }
  {
    auto raw = raw_connection(path);
    raw.execute("DELETE FROM measurements WHERE micro_batch > 10");
  }
  auto result = db::vacuum_database(path);
  ASSERT_TRUE(result) << result.error();
  EXPECT_LT(result->size_after, result->size_before);
  EXPECT_EQ(result->size_after, std::filesystem::file_size(path));
  SqliteStore store(path);
  EXPECT_TRUE(store.find_measurement(gpu_fingerprint(), kernel(10), "cudnn", "FFT"));
  EXPECT_FALSE(db::vacuum_database(folder.file("missing.db")));
  // An empty file, which info and check refuse, was made a database of 32 KiB.
  write_file(folder.file("empty.db"), "");
  EXPECT_FALSE(db::vacuum_database(folder.file("empty.db")));
  EXPECT_EQ(std::filesystem::file_size(folder.file("empty.db")), 0u);
}

}  // namespace
}  // namespace ucudnn
