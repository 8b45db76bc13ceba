// The `ucudnn` tool's answers to what a user types wrong: bad command lines, mistyped commands
// and bad network files exit 2 with a message naming what is wrong; --help and --version exit 0.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "cli_test_fixture.h"

namespace ucudnn::testing {
namespace {

TEST_F(CliTest, BadNetworkFilesAreNamedWithFieldAndValue) {
  const std::string good =
      R"("name": "c", "input": [8, 16, 16], "output_channels": 8, "filter": 3)";
  const std::map<std::string, std::pair<std::string, std::string>> cases = {
      {"missing.json",
       {R"({"layers": [{"name": "c", "input": [8, 16, 16], "filter": 3}]})",
        "layers[0].output_channels: missing"}},
      {"type.json",
       {R"({"layers": [{)" + good + R"(, "groups": "2"}]})",
        "layers[0].groups: \"2\" is not an integer >= 1"}},
      {"stride.json",
       {R"({"layers": [{)" + good + R"(, "stride": [1, -2]}]})",
        "layers[0].stride[1]: -2 is not an integer >= 1"}},
      {"groups.json",
       {R"({"layers": [{)" + good + R"(, "groups": 3}]})",
        "layers[0].groups: 3 does not divide the input channels (8)"}},
      {"notjson.json", {"{\"layers\": [oops]}", "not valid JSON: parse error at line 1"}},
  };
  for (const auto& [name, test] : cases) {
    std::ofstream(path(name)) << test.first;
    for (const char* command : {"bench", "plan"}) {
      const auto r = run({command, "--network", path(name), "--database", path("a.db")});
      EXPECT_EQ(r.status, 2) << describe(r);
      EXPECT_NE(r.err.find("ucudnn " + std::string(command) + ": --network: " + path(name) + ": " +
                           test.second),
                std::string::npos)
          << r.err;
    }
  }
  const auto missing = run({"bench", "--network", path("nowhere.json")});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find(path("nowhere.json") + ": cannot read: No such file or directory"),
            std::string::npos)
      << missing.err;
  EXPECT_FALSE(std::filesystem::exists(path("a.db")));  // nothing opened on a usage error
}

// Every bad command line exits 2, whatever the parser's own code for it; --help is not an error.
TEST_F(CliTest, BadCommandLinesExitTwoAndHelpExitsZero) {
  const std::vector<std::vector<std::string>> bad = {
      {"bench", "--no-such-flag"},
      {"plan", "--batch", "many"},
      {"frobnicate"},
      {"db"},
      {"db", "frob"},
  };
  for (const auto& args : bad) {
    const auto r = run(args);
    EXPECT_EQ(r.status, 2) << describe(r);
    EXPECT_FALSE(r.err.empty()) << describe(r);
  }
  // A mistyped command is named, with the commands there are.
  const auto mistyped = run({"explain", "--help"});
  EXPECT_EQ(mistyped.status, 2) << describe(mistyped);
  EXPECT_EQ(mistyped.err,
            "ucudnn: unknown command 'explain': ucudnn has bench, plan, report, db (ucudnn "
            "--help)\n");
  const auto mistyped_db = run({"db", "frob"});
  EXPECT_NE(mistyped_db.err.find("unknown command 'frob': ucudnn db has info, merge, export, "
                                 "import, check, vacuum"),
            std::string::npos)
      << describe(mistyped_db);
  const auto help = run({"plan", "--help"});
  EXPECT_EQ(help.status, 0) << describe(help);
  EXPECT_NE(help.out.find("--network"), std::string::npos) << help.out;
  // The project's version, the one the fingerprints of stored measurements carry.
  const auto version = run({"--version"});
  EXPECT_EQ(version.status, 0) << describe(version);
  EXPECT_EQ(version.out, "ucudnn " UCUDNN_PROJECT_VERSION "\n") << describe(version);
}

// An option given twice is said so in plain words (CLI11's own: "At Most 1 required but
// received 2").
TEST_F(CliTest, AnOptionGivenTwiceIsSaidSo) {
  const auto r = run({"plan", "--network", "alexnet", "--batch", "8", "--batch", "16"});
  EXPECT_EQ(r.status, 2) << describe(r);
  EXPECT_NE(r.err.find("ucudnn plan: --batch is given 2 times; give it once\n"), std::string::npos)
      << r.err;
}

// An option the command does not have is named, with the nearest it has; CLI11 alone said "The
// following arguments were not expected: 8MiB --worksapce-limit".
TEST_F(CliTest, AnUnknownOptionIsNamedWithTheNearestTheCommandHas) {
  const auto mistyped = run({"plan", "--network", "alexnet", "--worksapce-limit", "8MiB"});
  EXPECT_EQ(mistyped.status, 2) << describe(mistyped);
  EXPECT_EQ(mistyped.err,
            "ucudnn plan: unknown option --worksapce-limit (did you mean --workspace-limit?)\n"
            "Run ucudnn plan --help for more information.\n");
  // In a command of a command, and with a value after '='.
  const auto export_flag = run({"db", "export", "--line"});
  EXPECT_EQ(export_flag.status, 2) << describe(export_flag);
  EXPECT_NE(export_flag.err.find("ucudnn db export: unknown option --line (did you mean "
                                 "--lines?)\n"),
            std::string::npos)
      << describe(export_flag);
  const auto with_value = run({"plan", "--network", "alexnet", "--bach=8"});
  EXPECT_NE(with_value.err.find("ucudnn plan: unknown option --bach (did you mean --batch?)\n"),
            std::string::npos)
      << describe(with_value);
  // Nothing near: named alone.
  const auto far = run({"bench", "--no-such-flag"});
  EXPECT_NE(far.err.find("ucudnn bench: unknown option --no-such-flag\n"), std::string::npos)
      << describe(far);
}

// Options that exclude each other say so in their descriptions: CLI11 put "Excludes: --explain"
// beside the option's name, where it read as part of its syntax.
TEST_F(CliTest, HelpSaysWhichOptionsExcludeEachOtherInTheirDescriptions) {
  const auto r = run({"plan", "--help"});
  EXPECT_EQ(r.status, 0) << describe(r);
  EXPECT_EQ(r.out.find("Excludes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  --json  "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("print the plan as JSON (not with --explain)\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("what a larger limit would buy (not with --json)\n"), std::string::npos)
      << r.out;
  const auto both = run({"plan", "--json", "--explain"});
  EXPECT_EQ(both.status, 2) << describe(both);
}

// A file in the current folder named as a built-in network: the built-in is taken, with a note
// saying how to name the file, which is then read.
TEST_F(CliTest, AFileNamedAsABuiltInNetworkIsNoted) {
  std::ofstream(path("alexnet"))
      << R"({"layers": [{"name": "own", "input": [8, 16, 16], "output_channels": 8, "filter": 3}]})";
  auto in_folder = [&](const std::string& network) {
    return run_process({"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", path(""), kTool, "plan",
                        "--network", network, "--batch", "8", "--database", path("a.db")},
                       environment({}));
  };
  const auto builtin = in_folder("alexnet");
  EXPECT_NE(builtin.err.find("ucudnn plan: note: 'alexnet' names the built-in network alexnet, "
                             "which is taken; for the file of that name, write ./alexnet\n"),
            std::string::npos)
      << describe(builtin);
  EXPECT_NE(builtin.err.find("conv1 Forward"), std::string::npos) << describe(builtin);
  const auto file = in_folder("./alexnet");
  EXPECT_EQ(file.err.find("note: "), std::string::npos) << describe(file);
  EXPECT_NE(file.err.find("own Forward"), std::string::npos) << describe(file);
  // Elsewhere, with no such file, the built-in is taken without a note.
  const auto elsewhere = run({"plan", "--network", "alexnet", "--batch", "8"});
  EXPECT_EQ(elsewhere.err.find("note: "), std::string::npos) << describe(elsewhere);
}

// "--workspace-limit 512" is 512 bytes, as the shim reads its settings: taken, and noted (here
// before the plan says which measurements the empty database lacks).
TEST_F(CliTest, ASmallWorkspaceSizeWithoutAUnitIsNotedAsBytes) {
  const auto r = run({"plan", "--network", "alexnet", "--batch", "8", "--workspace-limit", "512",
                      "--database", path("a.db")});
  EXPECT_NE(r.err.find("ucudnn plan: note: --workspace-limit: '512' is 512 bytes (a number "
                       "without a unit is bytes), too little for most fast convolution "
                       "algorithms; for mebibytes write 512MiB\n"),
            std::string::npos)
      << describe(r);
  const auto mebibytes = run({"plan", "--network", "alexnet", "--batch", "8", "--workspace-limit",
                              "512MiB", "--database", path("a.db")});
  EXPECT_EQ(mebibytes.err.find("note: --workspace-limit"), std::string::npos)
      << describe(mebibytes);
}

// "--workspace-limit 0" is no workspace, where 0 often means no limit: taken, and noted; a total
// of 0 is WR only, as the help says, and quiet.
TEST_F(CliTest, AZeroWorkspaceLimitIsNotedAsNoWorkspace) {
  const auto r = run({"plan", "--network", "alexnet", "--batch", "8", "--workspace-limit", "0",
                      "--total-workspace", "0", "--database", path("a.db")});
  EXPECT_NE(r.err.find("ucudnn plan: note: --workspace-limit: '0' gives each kernel no workspace "
                       "at all (0 is not unlimited): only algorithms that need none are "
                       "candidates\n"),
            std::string::npos)
      << describe(r);
  EXPECT_EQ(r.err.find("note: --total-workspace"), std::string::npos) << describe(r);
}

// What `db import` is given in place of an export: a folder (it used to say "basic_filebuf::
// underflow error reading the file"), a file that is not there (with no reason), a database
// (a JSON parse error, where merge is what copies its rows).
TEST_F(CliTest, ImportNamesWhatItWasGivenInPlaceOfAnExport) {
  const auto folder = run({"db", "import", path(""), "--database", path("a.db")});
  EXPECT_NE(folder.status, 0);
  EXPECT_NE(folder.err.find("cannot read '" + path("") + "': it is a folder"), std::string::npos)
      << folder.err;
  const auto missing = run({"db", "import", path("no.json"), "--database", path("a.db")});
  EXPECT_NE(missing.err.find("cannot read '" + path("no.json") + "': No such file or directory"),
            std::string::npos)
      << missing.err;
  ASSERT_EQ(
      run(concat({"bench", "--no-check-plans", "--database", path("b.db")}, bench_args())).status,
      0);
  const auto database = run({"db", "import", path("b.db"), "--database", path("a.db")});
  EXPECT_NE(database.status, 0);
  const std::string b = path("b.db"), a = path("a.db");
  std::string expected = "'" + b;
  expected += "' is a SQLite database, not an export: `ucudnn db merge ";
  expected += b + " --into " + a + "`";
  EXPECT_NE(database.err.find(expected), std::string::npos) << database.err;
  EXPECT_FALSE(std::filesystem::exists(path("a.db")));
}

// The mirror: an export given to merge is named as one, with the import that reads it.
TEST_F(CliTest, MergeNamesAnExportGivenInPlaceOfADatabase) {
  ASSERT_EQ(
      run(concat({"bench", "--no-check-plans", "--database", path("b.db")}, bench_args())).status,
      0);
  ASSERT_EQ(run({"db", "export", path("b.json"), "--database", path("b.db")}).status, 0);
  const auto merged = run({"db", "merge", path("b.json"), "--into", path("a.db")});
  EXPECT_NE(merged.status, 0);
  const std::string expected = "'" + path("b.json") +
                               "' is a JSON export, not a database: `ucudnn db import " +
                               path("b.json") + " --database " + path("a.db") + "` reads its rows";
  EXPECT_NE(merged.err.find(expected), std::string::npos) << merged.err;
  EXPECT_FALSE(std::filesystem::exists(path("a.db")));
}

}  // namespace
}  // namespace ucudnn::testing
