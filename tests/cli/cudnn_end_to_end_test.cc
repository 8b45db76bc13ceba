// The `ucudnn` tool end to end with the cudnn backend: without a usable GPU, and on the cuDNN
// test doubles (exact, deterministic times: bit-for-bit comparisons), on one GPU and several.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "cli_test_fixture.h"
#include "support/printed_text.h"

namespace ucudnn::testing {
namespace {

TEST_F(CliTest, CudnnWithoutAUsableGpuSaysSo) {
  const auto r = run(concat({"bench", "--backend", "cudnn", "--no-check-plans"}, bench_args()));
  if (r.status == 0) GTEST_SKIP() << "a GPU is usable here";
  EXPECT_EQ(r.status, 1) << describe(r);
  EXPECT_NE(r.err.find("ucudnn bench: --backend cudnn: "), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("default.db")));
}

TEST_F(CliTest, CudnnOnTheTestDoubles) {
  if (!have_fakecuda()) GTEST_SKIP() << "built without the cuDNN test doubles";
  const auto args = concat(
      {"bench", "--backend", "cudnn", "--database", path("gpu.db"), "--total-workspace", "4MiB"},
      bench_args(8));
  const auto first = run(args, fakecuda());
  ASSERT_EQ(first.status, 0) << describe(first);
  EXPECT_NE(first.out.find("devices: GPU 0 (ucudnn fakecuda test double)"), std::string::npos)
      << first.out;
  EXPECT_NE(first.out.find("WR total, run for real side by side"), std::string::npos);
  EXPECT_NE(first.out.find("outputs: every plan agrees with its undivided baseline"),
            std::string::npos)
      << first.out;
  const auto [measured, reused] = counts(first);
  EXPECT_GT(measured, 0);
  const auto second = run(args, fakecuda());
  ASSERT_EQ(second.status, 0) << describe(second);
  EXPECT_EQ(counts(second), std::make_pair(0L, measured));
  // The doubles' times are exact: the same plan, to the digit, and the verification run takes
  // the planned time.
  EXPECT_EQ(plan_part(second.out), plan_part(first.out));
  // Their microsecond times keep their digits in the tables (three decimals read "0.000").
  EXPECT_EQ(first.out.find(" 0.000 "), std::string::npos) << first.out;

  // Without the doubles there is no GPU: plan finds the database's one fingerprint.
  const auto plan_args = concat(
      {"plan", "--backend", "cudnn", "--database", path("gpu.db"), "--json"}, network_args(8));
  const auto planned = run(plan_args);
  ASSERT_EQ(planned.status, 0) << describe(planned);
  EXPECT_NE(planned.err.find("no usable GPU here: planning for kind=gpu;name=ucudnn fakecuda"),
            std::string::npos)
      << planned.err;
  const json document = json::parse(planned.out);
  EXPECT_EQ(document["kernels"].size(), 12u);
  EXPECT_EQ(document["kernels"][0]["plan"]["micro"][0]["backend"], "cudnn");

  // A second device's results make the choice ambiguous, until --fingerprint names one.
  const auto exported = run({"db", "export", "--database", path("gpu.db")});
  std::string other = exported.out;
  const std::string from = "name=ucudnn fakecuda test double", to = "name=another GPU";
  for (auto at = other.find(from); at != std::string::npos; at = other.find(from, at))
    other.replace(at, from.size(), to);
  std::ofstream(path("other.json")) << other;
  ASSERT_EQ(run({"db", "import", path("other.json"), "--database", path("gpu.db")}).status, 0);
  const auto ambiguous = run(plan_args);
  EXPECT_EQ(ambiguous.status, 2) << describe(ambiguous);
  EXPECT_NE(ambiguous.err.find("for 2 devices; choose one with --fingerprint"), std::string::npos)
      << ambiguous.err;
  const std::string chosen = document["fingerprint"];
  const auto named = run(concat(plan_args, {"--fingerprint", chosen}));
  ASSERT_EQ(named.status, 0) << describe(named);
  EXPECT_EQ(json::parse(named.out), document);
}

// `bench --knob-variants` on doubles whose heuristics offer each split-K engine with its most
// buffers only (as heuristics that choose knobs for speed alone): under a limit those buffers
// do not fit, the same engines with fewer buffers are measured and planned, and the WR plans are
// stored under the mode a job with UCUDNN_KNOB_VARIANTS=on looks up (core/plan_mode.h).
TEST_F(CliTest, CudnnKnobVariantsArePlannedForJobsThatAskForThem) {
  if (!have_fakecuda()) GTEST_SKIP() << "built without the cuDNN test doubles";
  const auto environment = fakecuda({{"FAKECUDA_HEURISTICS_FASTEST_SPLIT", "1"}});
  // conv4's dw takes 9 KiB: four buffers of it do not fit 32 KiB, two do.
  auto args = [&](const std::string& database) {
    return concat({"bench", "--backend", "cudnn", "--repeats", "1", "--database", path(database)},
                  network_args(8, "32KiB"));
  };
  const auto without = run(args("without.db"), environment);
  const auto with = run(concat(args("with.db"), {"--knob-variants"}), environment);
  ASSERT_EQ(without.status, 0) << describe(without);
  ASSERT_EQ(with.status, 0) << describe(with);
  EXPECT_NE(with.out.find(", knob variants for configurations over 32 KiB"), std::string::npos)
      << with.out;
  EXPECT_NE(with.out.find("outputs: every plan agrees with its undivided baseline"),
            std::string::npos)
      << with.out;
  // A plan that runs a split-K engine with fewer buffers than the 4 the heuristics offered
  // ("k12=" is the double's CUDNN_KNOB_TYPE_SPLIT_K_BUF).
  auto fewer_buffers = [](const json& plan) {
    const std::string text = plan.dump();
    return text.find("k12=1}") != std::string::npos || text.find("k12=2}") != std::string::npos;
  };
  // A plan made with variants answers limits from the one it was made under up (below it, more
  // configurations would offer variants); one made without, from its own workspace up.
  auto modes = [&](const std::string& database, int* with_variants, int* from_the_limit) {
    std::set<std::string> found;
    for (const json& plan : rows(path(database)).second) {
      found.insert(plan["mode"].get<std::string>());
      *with_variants += fewer_buffers(plan);
      *from_the_limit += plan["workspace_limit"] == 32 * 1024;
    }
    return found;
  };
  int variants_without = 0, variants_with = 0, from_limit_without = 0, from_limit_with = 0;
  EXPECT_EQ(modes("without.db", &variants_without, &from_limit_without),
            std::set<std::string>{"WR"});
  EXPECT_EQ(modes("with.db", &variants_with, &from_limit_with), std::set<std::string>{"WR+knobs"});
  EXPECT_EQ(variants_without, 0);
  EXPECT_GT(variants_with, 0);
  EXPECT_EQ(from_limit_without, 0);
  EXPECT_EQ(from_limit_with, static_cast<int>(rows(path("with.db")).second.size()));
  EXPECT_GT(counts(with).first, counts(without).first) << "the variants are measured too";

  const auto on_cpu =
      run(concat({"bench", "--backend", "cpu", "--knob-variants", "--database", path("cpu.db")},
                 bench_args()));
  EXPECT_EQ(on_cpu.status, 2) << describe(on_cpu);
  EXPECT_NE(on_cpu.err.find("--knob-variants applies to --backend cudnn"), std::string::npos)
      << on_cpu.err;
  const auto divided = run(
      concat(args("divided.db"), {"--knob-variants", "--total-workspace", "4MiB"}), environment);
  EXPECT_EQ(divided.status, 2) << describe(divided);
  EXPECT_NE(divided.err.find("not to a WD division"), std::string::npos) << divided.err;
}

TEST_F(CliTest, CudnnOnSeveralGpusOfOneModel) {
  if (!have_fakecuda()) GTEST_SKIP() << "built without the cuDNN test doubles";
  const auto args = concat({"bench", "--backend", "cudnn", "--no-check-plans"}, bench_args(8));
  const auto two = run(concat(args, {"--devices", "all", "--database", path("two.db")}),
                       fakecuda({{"FAKECUDA_DEVICE_COUNT", "2"}}));
  ASSERT_EQ(two.status, 0) << describe(two);
  EXPECT_NE(two.out.find("devices: GPU 0 (ucudnn fakecuda test double), GPU 1 (ucudnn fakecuda "
                         "test double)"),
            std::string::npos)
      << two.out;
  const auto one = run(concat(args, {"--database", path("one.db")}), fakecuda());
  ASSERT_EQ(one.status, 0) << describe(one);
  EXPECT_EQ(plan_part(two.out), plan_part(one.out));
  EXPECT_EQ(without_times(rows(path("two.db")).first), without_times(rows(path("one.db")).first));

  // The environment's default, refused for mixed models.
  const auto mixed = run(args, fakecuda({{"FAKECUDA_DEVICE_COUNT", "2"},
                                         {"FAKECUDA_DEVICE_NAMES", "Model A,Model B"},
                                         {"UCUDNN_BENCHMARK_DEVICES", "all"}}));
  EXPECT_EQ(mixed.status, 1) << describe(mixed);
  EXPECT_NE(mixed.err.find("GPUs are of different models (0: Model A, 1: Model B)"),
            std::string::npos)
      << mixed.err;
  const auto missing = run(concat(args, {"--devices", "0,3"}), fakecuda());
  EXPECT_EQ(missing.status, 1) << describe(missing);
  EXPECT_NE(missing.err.find("--devices: GPU 3 does not exist (this machine has 1 GPU)"),
            std::string::npos)
      << missing.err;
  const auto bad = run(args, fakecuda({{"UCUDNN_DEVICES", "first"}}));
  EXPECT_EQ(bad.status, 2) << describe(bad);
  EXPECT_NE(bad.err.find("UCUDNN_DEVICES='first' is not \"all\" or a list"), std::string::npos)
      << bad.err;
}

}  // namespace
}  // namespace ucudnn::testing
