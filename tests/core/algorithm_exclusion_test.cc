#include "core/algorithm_exclusion.h"

#include <gtest/gtest.h>

#include <set>

#include "core/engine_name.h"
#include "core/micro_table.h"
#include "support/table_benchmarker.h"

namespace ucudnn {
namespace {

TEST(AlgorithmExclusion, MatchesBackendAndNameWithoutCaseAndWithWildcards) {
  auto exclusion = AlgorithmExclusion::parse(" cpu:winograd_f4x4_3x3 , cudnn:FFT*,,");
  ASSERT_TRUE(exclusion) << exclusion.error();
  EXPECT_TRUE(exclusion->excludes("cpu", "WINOGRAD_F4X4_3X3"));
  EXPECT_FALSE(exclusion->excludes("cpu", "WINOGRAD_F2X2_3X3"));
  EXPECT_FALSE(exclusion->excludes("cudnn", "WINOGRAD_F4X4_3X3")) << "the backend must match";
  EXPECT_TRUE(exclusion->excludes("cudnn", "FFT"));
  EXPECT_TRUE(exclusion->excludes("cudnn", "FFT_TILING"));
  EXPECT_FALSE(exclusion->excludes("cudnn", "WINOGRAD"));
  EXPECT_FALSE(exclusion->excludes("cpu", "FFT"));
  EXPECT_EQ(exclusion->to_string(), "cpu:winograd_f4x4_3x3,cudnn:FFT*");
  EXPECT_TRUE(AlgorithmExclusion::parse("")->empty());
}

TEST(AlgorithmExclusion, EngineConfigurationsAreNamedWholeAndMatchWildcards) {
  auto exclusion = AlgorithmExclusion::parse("cudnn:eng12{k2=1,k3=0}, cudnn:eng34*,cpu:DIRECT");
  ASSERT_TRUE(exclusion) << exclusion.error();
  EXPECT_EQ(exclusion->to_string(), "cudnn:eng12{k2=1,k3=0},cudnn:eng34*,cpu:DIRECT")
      << "the comma between knobs belongs to the name";
  EXPECT_TRUE(exclusion->excludes("cudnn", "eng12{k2=1,k3=0}"));
  EXPECT_FALSE(exclusion->excludes("cudnn", "eng12{k2=1,k3=1}"));
  EXPECT_FALSE(exclusion->excludes("cudnn", "eng12"));
  EXPECT_TRUE(exclusion->excludes("cudnn", "eng34"));
  EXPECT_TRUE(exclusion->excludes("cudnn", "eng34{k1=4}"));
  EXPECT_TRUE(exclusion->excludes("cpu", "DIRECT"));
  // A brace left open swallows nothing after it.
  const auto open = AlgorithmExclusion::parse("cudnn:eng5{*,cudnn:eng7,cpu:DIRECT");
  ASSERT_TRUE(open) << open.error();
  EXPECT_EQ(open->to_string(), "cudnn:eng5{*,cudnn:eng7,cpu:DIRECT");
  EXPECT_TRUE(open->excludes("cudnn", "eng7"));
  EXPECT_TRUE(open->excludes("cudnn", "eng5{k12=4}"));
}

// "cudnn:eng1" meant engine 1, whose configurations all have knobs ("eng1{k2=0,k12=1}"): it
// matched none of them, and the engine the user meant to exclude ran.
TEST(AlgorithmExclusion, AnEngineNamedWithoutKnobsIsTheWholeEngine) {
  auto exclusion = AlgorithmExclusion::parse("cudnn:eng1,cudnn:ENG7");
  ASSERT_TRUE(exclusion) << exclusion.error();
  EXPECT_EQ(exclusion->to_string(), "cudnn:eng1,cudnn:ENG7") << "as written";
  for (const char* name : {"eng1", "eng1{k2=0,k12=1}", "eng1{k3=-1}", "eng7{k2=4}", "ENG7"})
    EXPECT_TRUE(exclusion->excludes("cudnn", name)) << name;
  for (const char* name : {"eng10", "eng12{k2=0}", "eng17", "eng71{k2=4}", "eng1x", "FFT"})
    EXPECT_FALSE(exclusion->excludes("cudnn", name)) << name;
  EXPECT_FALSE(exclusion->excludes("cpu", "eng1{k2=0}")) << "the backend must match";
  // The engine by its number, however written.
  EXPECT_TRUE(AlgorithmExclusion::parse("cudnn:eng01")->excludes("cudnn", "eng1{k2=0}"));
  EXPECT_TRUE(AlgorithmExclusion::parse("cudnn:eng01")->excludes("cudnn", "eng1"));
  EXPECT_FALSE(AlgorithmExclusion::parse("cudnn:eng01")->excludes("cudnn", "eng10"));
  // A pattern or a configuration stays what it says.
  auto exact = AlgorithmExclusion::parse("cudnn:eng1{k2=0},cudnn:eng2?");
  ASSERT_TRUE(exact) << exact.error();
  EXPECT_FALSE(exact->excludes("cudnn", "eng1{k2=1}"));
  EXPECT_FALSE(exact->excludes("cudnn", "eng2{k2=1}"));
  EXPECT_TRUE(exact->excludes("cudnn", "eng21"));
  // Accounted as used, so that the exit does not call it a slip.
  ExclusionAccount account(*exclusion);
  std::vector<std::string> names = {"eng1{k2=0}", "eng12{k2=0}", "eng7"};
  account.note_stored_candidates("cudnn", names, true);
  EXPECT_EQ(account.entries_that_excluded_nothing("cudnn"), std::vector<std::string>{});
}

TEST(EngineName, ReadsAndWritesOneCanonicalForm) {
  const EngineName name = EngineName::of(12, {{3, 0}, {2, 1}});
  EXPECT_EQ(name.to_string(), "eng12{k2=1,k3=0}") << "knobs by type";
  EXPECT_EQ(EngineName::parse("eng12{k2=1,k3=0}"), name);
  EXPECT_EQ(EngineName::parse("eng7")->to_string(), "eng7");
  EXPECT_EQ(EngineName::parse("eng7{k1=-2}")->knobs.front().second, -2);
  for (const char* bad : {"eng", "eng-1", "eng7{}", "eng7{k3=0,k2=1}", "eng7{k2=1", "eng7x",
                          "IMPLICIT_GEMM", "eng7{k2=1,k2=3}", "eng7{k2}"})
    EXPECT_FALSE(EngineName::parse(bad)) << bad;
  EXPECT_FALSE(is_engine_name("FFT_TILING"));
  EXPECT_TRUE(is_engine_name("eng0"));
}

TEST(AlgorithmExclusion, AnUnreadableEntryIsNamed) {
  auto exclusion = AlgorithmExclusion::parse("cpu:DIRECT,FFT");
  ASSERT_FALSE(exclusion);
  EXPECT_NE(exclusion.error().find("'FFT'"), std::string::npos) << exclusion.error();
  EXPECT_FALSE(AlgorithmExclusion::parse("cpu:"));
  EXPECT_FALSE(AlgorithmExclusion::parse(":DIRECT"));

  std::vector<std::string> unreadable;
  const auto lenient = AlgorithmExclusion::parse_leniently("FFT, cpu:DIRECT", unreadable);
  EXPECT_EQ(unreadable, std::vector<std::string>{"FFT"});
  EXPECT_TRUE(lenient.excludes("cpu", "DIRECT")) << "the readable entries are kept";
}

TEST(AlgorithmExclusion, FindsAnExcludedAlgorithmInEitherShareOfAConfiguration) {
  const auto exclusion = *AlgorithmExclusion::parse("cpu:DIRECT");
  Configuration plan{{{"cudnn", "FFT", 4, 1, 0}}};
  EXPECT_FALSE(exclusion.excluded_in(plan));
  plan.offload = OffloadedShare{{{"cpu", "DIRECT", 2, 1, 0}}, 0.1, 0};
  EXPECT_EQ(exclusion.excluded_in(plan), "cpu:DIRECT");
}

TEST(ExcludingBenchmarker, NeitherListsNorMeasuresAnExcludedAlgorithm) {
  testing::TableBenchmarker table({"A", "B", "AB"});
  for (int b = 1; b <= 4; ++b)
    for (const char* name : {"A", "B", "AB"}) table.set(name, b, 1.0 * b, 0);
  const auto exclusion = *AlgorithmExclusion::parse("table:A*");
  ExcludingBenchmarker allowed(table, exclusion);
  const auto kernel = testing::kernel_with_batch(4);
  EXPECT_EQ(allowed.algorithms(kernel), std::vector<std::string>{"B"});
  EXPECT_FALSE(allowed.benchmark(kernel, "AB", 2));
  EXPECT_EQ(table.calls, 0) << "an excluded algorithm must not even run";
  const MicroTable micro = measure_micro_table(allowed, kernel, BatchSizePolicy::kAll, 0);
  for (const auto& candidates : micro.candidates)
    for (const auto& m : candidates) EXPECT_EQ(m.algorithm, "B");
  EXPECT_EQ(table.calls, 4);
}

TEST(ExcludingBenchmarker, NamesEntriesThatExcludeNothingAndKernelsLeftWithoutAlgorithms) {
  testing::TableBenchmarker table({"A", "B", "AB"});
  const auto exclusion = *AlgorithmExclusion::parse("table:A*,table:C,other:B,t*:B");
  ExcludingBenchmarker allowed(table, exclusion);
  EXPECT_EQ(allowed.account().entries_that_excluded_nothing("table"),
            (std::vector<std::string>{"table:A*", "table:C", "t*:B"}))
      << "nothing was listed yet";
  const auto kernel = testing::kernel_with_batch(4);
  EXPECT_TRUE(allowed.algorithms(kernel).empty());
  // "other:B" names another backend: not this benchmarker's to judge.
  EXPECT_EQ(allowed.account().entries_that_excluded_nothing("table"),
            std::vector<std::string>{"table:C"});
  EXPECT_EQ(allowed.account().kernels_left_without_algorithms(),
            std::set<std::string>{kernel.to_string()});
  // A kernel the device lists nothing for is not one the exclusion emptied.
  testing::TableBenchmarker none(std::vector<std::string>{});
  ExcludingBenchmarker nothing_listed(none, exclusion);
  EXPECT_TRUE(nothing_listed.algorithms(kernel).empty());
  EXPECT_TRUE(nothing_listed.account().kernels_left_without_algorithms().empty());
  const auto partial = *AlgorithmExclusion::parse("table:AB");
  ExcludingBenchmarker some(table, partial);
  EXPECT_EQ(some.algorithms(kernel), (std::vector<std::string>{"A", "B"}));
  EXPECT_TRUE(some.account().entries_that_excluded_nothing("table").empty());
  EXPECT_TRUE(some.account().kernels_left_without_algorithms().empty());
}

// A kernel run from a stored plan lists nothing: the candidates the database knows of it are
// noted instead, so that an entry matching one is not named idle, and one matching none is.
TEST(ExclusionAccount, NotedStoredCandidatesCountAsListedButExcludeNothing) {
  const auto exclusion = *AlgorithmExclusion::parse("cudnn:eng1*,cudnn:nosuch,cpu:DIRECT");
  ExclusionAccount account(exclusion);
  account.note_stored_candidates("cudnn", {});
  EXPECT_FALSE(account.filtered("cudnn")) << "nothing known is no evidence";
  account.note_stored_candidates("cudnn", {"eng0", "eng12{k2=1}"});
  EXPECT_TRUE(account.filtered("cudnn"));
  EXPECT_FALSE(account.filtered("cpu"));
  EXPECT_EQ(account.entries_that_excluded_nothing("cudnn"),
            std::vector<std::string>{"cudnn:nosuch"});
  EXPECT_TRUE(account.kernels_left_without_algorithms().empty());
  EXPECT_TRUE(account.noted_from_database("cudnn"));
  account.note_stored_candidates("cpu", {"DIRECT"}, true);
  EXPECT_FALSE(account.noted_from_database("cpu")) << "the backend's own list is complete";
  EXPECT_TRUE(account.entries_that_excluded_nothing("cpu").empty());
}

// A kernel is noted once, and none once every entry has matched something: a note scans the
// database's rows of the device.
TEST(ExclusionAccount, AKernelsStoredCandidatesAreWantedOnceAndOnlyWhileAnEntryIsIdle) {
  const auto exclusion = *AlgorithmExclusion::parse("cudnn:eng1*");
  ExclusionAccount account(exclusion);
  EXPECT_TRUE(account.wants_stored_candidates("cudnn", "k1"));
  EXPECT_FALSE(account.wants_stored_candidates("cudnn", "k1"));
  EXPECT_FALSE(account.wants_stored_candidates("cpu", "k2")) << "no entry names the CPU";
  account.note_stored_candidates("cudnn", {"eng12"});
  EXPECT_FALSE(account.wants_stored_candidates("cudnn", "k2"));
}

}  // namespace
}  // namespace ucudnn
