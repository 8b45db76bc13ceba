// `ucudnn db export` and `import` as functions: both layouts round-trip every row, every field is
// validated with the row and field named, and nothing is half-imported.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "db/file_lease.h"
#include "db/maintenance/commands.h"
#include "db/schema.h"
#include "db/sqlite_store.h"
#include "db_test_support.h"

namespace ucudnn {
namespace {

using namespace ucudnn::testing;
using db::ExportLayout;

std::string exported(const std::string& path, ExportLayout layout) {
  std::ostringstream out;
  auto result = db::export_database(path, out, layout);
  EXPECT_TRUE(result) << result.error();
  return out.str();
}

TEST(ExportImport, RoundTripsInBothLayouts) {
  for (auto layout : {ExportLayout::kDocument, ExportLayout::kLines}) {
    SCOPED_TRACE(layout == ExportLayout::kDocument ? "document" : "lines");
    TempFolder folder;
    const auto original = folder.file("original.db"), copy = folder.file("copy.db");
    fill_sample(original);
    std::ostringstream out;
    auto result = db::export_database(original, out, layout);
    ASSERT_TRUE(result) << result.error();
    EXPECT_EQ(result->fingerprints, 2u);
    EXPECT_EQ(result->measurements, 3u);
    EXPECT_EQ(result->plans, 2u);
    EXPECT_TRUE(result->unreadable.empty()) << "nothing is unreadable in a whole file";

    std::istringstream in(out.str());
    auto imported = db::import_database(copy, in);
    ASSERT_TRUE(imported) << imported.error();
    EXPECT_EQ(imported->measurements_written, 3u);
    EXPECT_EQ(imported->plans_written, 2u);

    // Exporting the copy gives the same rows (only the export time may differ).
    auto strip = [](std::string text) {
      std::istringstream lines(text);
      std::string line, kept;
      while (std::getline(lines, line))
        if (line.find("exported_at") == std::string::npos) kept += line + "\n";
      return kept;
    };
    if (layout == ExportLayout::kDocument) {
      auto a = nlohmann::json::parse(out.str()), b = nlohmann::json::parse(exported(copy, layout));
      a.erase("exported_at");
      b.erase("exported_at");
      EXPECT_EQ(a, b);
      EXPECT_EQ(a["schema_version"], db::schema_version());
      EXPECT_EQ(a["format"], "ucudnn-database-export");
    } else {
      EXPECT_EQ(strip(out.str()), strip(exported(copy, layout)));
    }
    SqliteStore store(copy);
    auto fft = store.find_measurement(gpu_fingerprint(), kernel(4), "cudnn", "FFT");
    ASSERT_TRUE(fft);
    EXPECT_EQ(fft->measurement->time_ms, 0.1 + 0.2);
    EXPECT_EQ(fft->measured_at, 1700000000);
    EXPECT_EQ(store.find_plan(PlanKey{cpu_fingerprint(), "network:alexnet@2", "all", ~0ull, "WD"}),
              (std::vector<Configuration>{sample_plan(2)[0], sample_plan(2)[0]}));

    std::istringstream again(out.str());
    EXPECT_EQ(db::import_database(copy, again)->measurements_written, 0u)
        << "importing twice changes nothing";
  }
}

// Every bad field is an error naming it and its value, and nothing is imported.
TEST(ExportImport, ImportValidatesEveryField) {
  TempFolder folder;
  const auto original = folder.file("original.db");
  fill_sample(original);
  const auto document = nlohmann::json::parse(exported(original, ExportLayout::kDocument));
  struct Case {
    const char* name;
    std::function<void(nlohmann::json&)> spoil;
    const char* expected;
  };
  const Case cases[] = {
      {"negative time", [](auto& d) { d["measurements"][0]["time_ms"] = -1; },
       "measurements[0].time_ms: -1 is not a finite number >= 0"},
      {"time as text", [](auto& d) { d["measurements"][0]["min_ms"] = "fast"; },
       "measurements[0].min_ms: \"fast\" is not a finite number >= 0"},
      {"negative workspace", [](auto& d) { d["measurements"][0]["workspace_bytes"] = -5; },
       "measurements[0].workspace_bytes: -5 is not an integer >= 0"},
      {"huge workspace",
       [](auto& d) { d["measurements"][0]["workspace_bytes"] = 18446744073709551615ull; },
       "measurements[0].workspace_bytes: 18446744073709551615 is not an integer >= 0"},
      {"fractional batch", [](auto& d) { d["measurements"][2]["micro_batch"] = 1.5; },
       "measurements[2].micro_batch: 1.5 is not an integer >= 0"},
      {"status", [](auto& d) { d["measurements"][1]["status"] = "maybe"; },
       "measurements[1].status: \"maybe\" is neither"},
      {"missing field", [](auto& d) { d["measurements"][1].erase("algorithm"); },
       "measurements[1].algorithm: missing"},
      {"hash", [](auto& d) { d["measurements"][0]["kernel_hash"] = "0123456789abcdef"; },
       "measurements[0].kernel_hash: '0123456789abcdef' is not the hash"},
      {"repeats", [](auto& d) { d["measurements"][0]["repeats"] = 1e12; },
       "measurements[0].repeats: 1000000000000.0 is not an integer >= 0"},
      {"policy", [](auto& d) { d["plans"][1]["policy"] = "half"; },
       "plans[1].policy: 'half' is not a batch size policy"},
      {"mode", [](auto& d) { d["plans"][0]["mode"] = "XX"; },
       "plans[0].mode: 'XX' is not a plan mode"},
      {"limit", [](auto& d) { d["plans"][0]["workspace_limit"] = -1; },
       "plans[0].workspace_limit: -1 is not a non-negative integer"},
      {"micro batch", [](auto& d) { d["plans"][0]["configurations"][0]["micro"][1]["batch"] = 0; },
       "plans[0].configurations[0].micro[1].batch: 0 is not an integer >= 1"},
      {"configurations", [](auto& d) { d["plans"][0]["configurations"] = "none"; },
       "plans[0].configurations: \"none\" is not a list of configurations"},
      {"newer schema", [](auto& d) { d["schema_version"] = 99; },
       "schema_version: 99 is newer than this ucudnn's"},
      {"format", [](auto& d) { d["format"] = "something else"; },
       "format: 'something else' is not ucudnn-database-export"},
      {"fingerprint", [](auto& d) { d["fingerprints"][1]["canonical"] = 5; },
       "fingerprints[1].canonical: 5 is not a string"},
      {"rows", [](auto& d) { d["plans"] = 3; }, "plans: 3 is not a list"},
      {"created_at", [](auto& d) { d["plans"][1]["created_at"] = -3; },
       "plans[1].created_at: -3 is not an integer >= 0"},
      // What `db check` reports is refused too: rows that contradict themselves.
      {"micro-batch of another kernel", [](auto& d) { d["measurements"][0]["micro_batch"] = 999; },
       "measurements[0].micro_batch 999 differs from the kernel's batch"},
      {"fastest slower than the median", [](auto& d) { d["measurements"][0]["min_ms"] = 1e6; },
       "is not between min_ms 1000000.000000"},
      {"plan short of the batch",
       [](auto& d) { d["plans"][0]["configurations"][0]["micro"].erase(1); },
       "plans[0].configurations: the micro-batches cover"},
      {"mistyped list", [](auto& d) { d["measurement"] = d["measurements"]; },
       "'measurement' is not a field of an export"},
      // Inside rows too (they used to be dropped without a word: a misspelt valid_below made the
      // plan answer its exact limit only).
      {"field of no measurement", [](auto& d) { d["measurements"][1]["comment"] = "fast"; },
       "measurements[1].'comment' is not a field of a measurement (type, fingerprint,"},
      {"misspelt plan field",
       [](auto& d) { d["plans"][0]["valid_bellow"] = d["plans"][0]["valid_below"]; },
       "plans[0].'valid_bellow' is not a field of a plan"},
      {"field of no fingerprint", [](auto& d) { d["fingerprints"][0]["gpu"] = "H100"; },
       "fingerprints[0].'gpu' is not a field of a fingerprint (type, canonical, fields)"},
      // A time to come would win every later merge and import for good.
      {"measured in the future", [](auto& d) { d["measurements"][0]["measured_at"] = 41000000000; },
       "measurements[0].measured_at 41000000000 is more than a day in the future"},
      {"planned in the future", [](auto& d) { d["plans"][0]["created_at"] = 41000000000; },
       "plans[0].created_at 41000000000 is more than a day in the future"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto spoiled = document;
    c.spoil(spoiled);
    const auto target = folder.file(std::string("target-") + c.name + ".db");
    {
      SqliteStore store(target);
      store.put_plan(plan_key(cpu_fingerprint()), sample_plan());
    }
    const auto before = read_file(target);
    std::istringstream in(spoiled.dump(2));
    auto result = db::import_database(target, in);
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().find(c.expected), std::string::npos) << result.error();
    EXPECT_EQ(read_file(target), before) << "nothing is half-imported";
  }
}

// A field written twice in one row (a hand edit) is refused, in either layout: JSON kept one of
// the two values without a word, and the import took a value its author may not have meant.
TEST(ExportImport, AFieldWrittenTwiceIsRefused) {
  TempFolder folder;
  const auto original = folder.file("original.db"), target = folder.file("target.db");
  fill_sample(original);
  for (const auto layout : {ExportLayout::kLines, ExportLayout::kDocument}) {
    std::string text = exported(original, layout);
    // The first measurement's time, written again after its own with another value.
    const auto at = text.find("\"time_ms\":");
    ASSERT_NE(at, std::string::npos) << text;
    text.insert(at, "\"time_ms\": 999.0, ");
    std::istringstream in(text);
    auto result = db::import_database(target, in);
    ASSERT_FALSE(result) << "layout " << static_cast<int>(layout);
    EXPECT_NE(result.error().find("time_ms: written twice in one object"), std::string::npos)
        << result.error();
    if (layout == ExportLayout::kDocument) {
      EXPECT_NE(result.error().find("measurements[0]."), std::string::npos) << result.error();
    }
  }
  EXPECT_FALSE(std::filesystem::exists(target)) << "nothing imported, nothing created";
}

// A file that holds one key twice (an edit, or two exports' rows put together) writes one row,
// the newer, and says one was written.
TEST(ExportImport, AKeyTwiceInOneFileIsOneRowWritten) {
  TempFolder folder;
  const auto original = folder.file("original.db"), target = folder.file("target.db");
  fill_sample(original);
  auto document = nlohmann::json::parse(exported(original, ExportLayout::kDocument));
  for (const auto& [list, time] :
       {std::pair{"measurements", "measured_at"}, std::pair{"plans", "created_at"}}) {
    auto again = document[list][0];
    again[time] = again[time].get<std::int64_t>() + 60;
    document[list].push_back(again);
  }
  document["measurements"].back()["time_ms"] = 0.25;
  document["measurements"].back()["min_ms"] = 0.25;
  document["measurements"].back()["max_ms"] = 0.25;
  std::istringstream in(document.dump());
  const auto imported = db::import_database(target, in);
  ASSERT_TRUE(imported) << imported.error();
  EXPECT_EQ(imported->measurements_read, 4u);
  EXPECT_EQ(imported->measurements_written, 3u);
  EXPECT_EQ(imported->plans_read, 3u);
  EXPECT_EQ(imported->plans_written, 2u);
  EXPECT_TRUE(db::FileLease::database_was_held(target)) << "written as a store writes one";
  std::ostringstream out;
  const auto copy = db::export_database(target, out, ExportLayout::kDocument);
  ASSERT_TRUE(copy) << copy.error();
  EXPECT_EQ(copy->measurements, 3u);
  EXPECT_EQ(copy->plans, 2u);
  const auto rows = nlohmann::json::parse(out.str())["measurements"];
  EXPECT_EQ(std::count_if(rows.begin(), rows.end(),
                          [](const auto& row) { return row["time_ms"] == 0.25; }),
            1)
      << "the newer of the two rows stays: " << rows.dump();
}

TEST(ExportImport, LineErrorsNameTheLine) {
  TempFolder folder;
  const auto original = folder.file("original.db");
  fill_sample(original);
  auto text = exported(original, ExportLayout::kLines);
  // Line 4 is the first measurement (after the header and two fingerprints).
  std::istringstream lines(text);
  std::string line, spoiled;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (number == 4) {
      auto row = nlohmann::json::parse(line);
      ASSERT_EQ(row["type"], "measurement");
      row["measured_at"] = "today";
      line = row.dump();
    }
    spoiled += line + "\n";
  }
  std::istringstream in(spoiled);
  auto result = db::import_database(folder.file("target.db"), in);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().find("line 4: measured_at: \"today\" is not an integer >= 0"),
            std::string::npos)
      << result.error();

  std::istringstream broken(text.substr(0, text.size() / 2) + "\n{oops\n");
  auto bad_json = db::import_database(folder.file("target.db"), broken);
  ASSERT_FALSE(bad_json);
  EXPECT_NE(bad_json.error().find("not valid JSON"), std::string::npos) << bad_json.error();

  // The parser's own words, without its exception's name.
  std::istringstream not_json("hello");
  const auto hello = db::import_database(folder.file("target.db"), not_json);
  ASSERT_FALSE(hello);
  EXPECT_EQ(hello.error().find("[json.exception"), std::string::npos) << hello.error();
  EXPECT_NE(hello.error().find("not a JSON export file: parse error at line 1, column 1"),
            std::string::npos)
      << hello.error();
}

// A lines export cut short at a line boundary is still whole JSON lines: its missing end line
// tells, and nothing is imported. Exports made before the end line existed read as before.
TEST(ExportImport, ALinesExportCutShortIsRefusedWhole) {
  TempFolder folder;
  const auto original = folder.file("original.db"), target = folder.file("target.db");
  fill_sample(original);
  const std::string text = exported(original, ExportLayout::kLines);
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_GE(lines.size(), 4u);
  const auto end = nlohmann::json::parse(lines.back());
  EXPECT_EQ(end, nlohmann::json::parse(
                     R"({"type": "end", "fingerprints": 2, "measurements": 3, "plans": 2})"));
  auto joined = [](const std::vector<std::string>& some) {
    std::string text;
    for (const auto& line : some) text += line + "\n";
    return text;
  };
  auto import = [&](const std::string& text) {
    std::istringstream rows(text);
    return db::import_database(target, rows);
  };

  for (std::size_t kept = 1; kept < lines.size(); ++kept) {
    auto cut = import(joined({lines.begin(), lines.begin() + static_cast<std::ptrdiff_t>(kept)}));
    ASSERT_FALSE(cut) << kept << " lines kept";
    EXPECT_NE(cut.error().find("without its end line: it was cut short"), std::string::npos)
        << cut.error();
  }
  EXPECT_FALSE(std::filesystem::exists(target)) << "nothing imported, nothing created";
  // Cut within a line (a copy stopped mid-row): the broken last line says so too (it said
  // "not valid JSON" only).
  const std::string whole = joined(lines);
  auto mid_row = import(whole.substr(0, whole.size() - lines.back().size() / 2 - 1));
  ASSERT_FALSE(mid_row);
  EXPECT_NE(mid_row.error().find("not valid JSON, and the last line: the export was cut short (3 "
                                 "measurements and 2 plans read before it)"),
            std::string::npos)
      << mid_row.error();

  auto counts_wrong = lines;
  counts_wrong.erase(counts_wrong.begin() + 4);  // a measurement lost inside the file
  auto lost = import(joined(counts_wrong));
  ASSERT_FALSE(lost);
  EXPECT_NE(lost.error().find("measurements: 3, but 2 were read"), std::string::npos)
      << lost.error();
  auto after_end = lines;
  after_end.push_back(lines[4]);
  auto trailing = import(joined(after_end));
  ASSERT_FALSE(trailing);
  EXPECT_NE(trailing.error().find("a row after the end line"), std::string::npos)
      << trailing.error();

  // An export from before: no "ends_with" in its header, no end line.
  auto older = lines;
  older.pop_back();
  auto header = nlohmann::json::parse(older.front());
  header.erase("ends_with");
  older.front() = header.dump();
  auto imported = import(joined(older));
  ASSERT_TRUE(imported) << imported.error();
  EXPECT_EQ(imported->measurements_read, 3u);
  EXPECT_EQ(imported->plans_read, 2u);
  // Such a header over an end line was edited: said so (it read as an unknown row type).
  older.push_back(lines.back());
  auto edited = import(joined(older));
  ASSERT_FALSE(edited);
  EXPECT_NE(edited.error().find("line " + std::to_string(older.size()) +
                                ": an end line, but the header (line 1) does not say"),
            std::string::npos)
      << edited.error();
}

}  // namespace
}  // namespace ucudnn
