// `ucudnn bench --total-workspace` and `ucudnn plan` for a network file whose layers run on
// two streams (issue 36): each stream's kernels share one arena segment, the ILP divides the
// total between the streams, and the plan says per kernel where it runs and why; on one stream
// (no "stream" fields) every kernel shares one segment.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "cli_test_fixture.h"

namespace ucudnn::testing {
namespace {

// tiny.json's layers, conv4 (the one whose fast algorithms need micro-batches) on `stream`.
std::string write_network(const std::string& path, int conv4_stream) {
  std::ifstream in(kTiny);
  json network = json::parse(in);
  network["layers"][3]["stream"] = conv4_stream;
  std::ofstream(path) << network.dump(2);
  return path;
}

// On the doubles (exact times), in a total where the two streams' segments are tighter than
// the one segment all kernels would share.
std::vector<std::string> args_for(const std::string& network) {
  return {"--backend", "cudnn",      "--network",         network,  "--batch",           "8",
          "--policy",  "powerOfTwo", "--workspace-limit", "256KiB", "--total-workspace", "256KiB"};
}

class DivisionStreams : public CliTest {};

TEST_F(DivisionStreams, EachStreamsKernelsShareASegmentAndThePlanSaysWhy) {
  if (!have_fakecuda()) GTEST_SKIP() << "built without the cuDNN test doubles";
  const auto two = write_network(path("two.json"), 1), one = write_network(path("one.json"), 0);
  for (const auto& network : {two, one}) {
    const auto bench =
        run(concat({"bench", "--database", path("a.db"), "--repeats", "1", "--no-check-plans"},
                   args_for(network)),
            fakecuda());
    ASSERT_EQ(bench.status, 0) << describe(bench);
  }

  const auto planned =
      run(concat({"plan", "--database", path("a.db"), "--json"}, args_for(two)), fakecuda());
  ASSERT_EQ(planned.status, 0) << describe(planned);
  const json wd = json::parse(planned.out)["wd"];
  ASSERT_EQ(wd["segments"].size(), 2u) << wd.dump(1);
  // conv1, conv2 (conv3 repeats it) on stream 0: six kernels; conv4's three on stream 1.
  std::map<std::size_t, std::set<std::string>> layers_of;
  for (const auto& k : wd["kernels"])
    for (const auto& layer : k["layers"])
      layers_of[k["segment"].get<std::size_t>()].insert(layer.get<std::string>().substr(0, 5));
  ASSERT_EQ(layers_of.size(), 2u);
  for (const auto& [segment, layers] : layers_of) {
    const std::string reason = wd["segments"][segment]["reason"];
    if (layers.count("conv4")) {
      EXPECT_EQ(layers, std::set<std::string>{"conv4"});
      EXPECT_EQ(wd["segments"][segment]["kernels"], 3);
      EXPECT_EQ(reason, "on stream 1; they may overlap the 6 kernels on stream 0");
    } else {
      EXPECT_EQ(layers, (std::set<std::string>{"conv1", "conv2", "conv3"}));
      EXPECT_EQ(reason, "on stream 0; they may overlap the 3 kernels on stream 1");
    }
  }
  EXPECT_LE(wd["workspace_bytes"].get<std::uint64_t>(), 256u << 10) << planned.out;
  EXPECT_NE(wd["subject"].get<std::string>().find('@'), std::string::npos)
      << "the stored name says which kernels share";

  const auto explained =
      run(concat({"plan", "--database", path("a.db"), "--explain"}, args_for(two)), fakecuda());
  ASSERT_EQ(explained.status, 0) << describe(explained);
  const std::regex shared(
      R"(  WD: \S+.* in segment \d \([^)]*\), shared in stream order with 2 other kernels: on )"
      R"(stream 1; they may overlap the 6 kernels on stream 0)");
  int conv4_lines = 0;
  std::istringstream lines(explained.out);
  for (std::string line; std::getline(lines, line);) conv4_lines += std::regex_match(line, shared);
  EXPECT_EQ(conv4_lines, 3) << explained.out;
  EXPECT_NE(explained.out.find("shared in stream order by 3 kernels: on stream 1"),
            std::string::npos)
      << explained.out;

  // One stream: one segment, each kernel its fastest within the total.
  const auto alone =
      run(concat({"plan", "--database", path("a.db"), "--json"}, args_for(one)), fakecuda());
  ASSERT_EQ(alone.status, 0) << describe(alone);
  const json one_wd = json::parse(alone.out)["wd"];
  ASSERT_EQ(one_wd["segments"].size(), 1u);
  EXPECT_EQ(one_wd["segments"][0]["kernels"], 9);
  EXPECT_EQ(one_wd["segments"][0]["reason"],
            "on stream 0, where every kernel runs: nothing can overlap them");
  EXPECT_LT(one_wd["time_ms"].get<double>(), wd["time_ms"].get<double>())
      << "sharing one segment, every kernel may use the whole total";
}

// In a total where one stream gets nothing, its empty segment starts where the other's does:
// still two segments, each with its own kernels and reason. conv1 and conv4 on stream 1 (they
// get the workspace), conv2 and conv3 on stream 0 (it gets none, and its group comes first).
TEST_F(DivisionStreams, AStreamWithAnEmptySegmentKeepsItsOwn) {
  if (!have_fakecuda()) GTEST_SKIP() << "built without the cuDNN test doubles";
  std::ifstream in(kTiny);
  json network = json::parse(in);
  network["layers"][0]["stream"] = network["layers"][3]["stream"] = 1;
  std::ofstream(path("two.json")) << network.dump(2);
  auto args = args_for(path("two.json"));
  args.back() = "1KiB";  // --total-workspace
  const auto bench =
      run(concat({"bench", "--database", path("a.db"), "--repeats", "1", "--no-check-plans"}, args),
          fakecuda());
  ASSERT_EQ(bench.status, 0) << describe(bench);
  const auto planned =
      run(concat({"plan", "--database", path("a.db"), "--json"}, args), fakecuda());
  ASSERT_EQ(planned.status, 0) << describe(planned);
  const json wd = json::parse(planned.out)["wd"];
  ASSERT_EQ(wd["segments"].size(), 2u) << wd.dump(1);
  std::multiset<std::int64_t> kernels;
  std::uint64_t empty = 0;
  for (const auto& segment : wd["segments"]) {
    kernels.insert(segment["kernels"].get<std::int64_t>());
    empty += segment["bytes"].get<std::uint64_t>() == 0;
  }
  EXPECT_EQ(kernels, (std::multiset<std::int64_t>{3, 6})) << wd.dump(1);
  EXPECT_GE(empty, 1u) << "the case this test is about: a segment of 0 bytes\n" << wd.dump(1);
  for (const auto& k : wd["kernels"]) {
    const auto segment = k["segment"].get<std::size_t>();
    const std::string layer = k["layers"][0];
    const bool stream1 = layer.starts_with("conv1") || layer.starts_with("conv4");
    EXPECT_EQ(wd["segments"][segment]["kernels"], stream1 ? 6 : 3) << k.dump();
  }
  // The report's arena: each segment reaches the next one's start, so the empty one must come
  // first where two start at one offset, and every segment holds what its kernels use.
  const auto report =
      run(concat({"report", "--database", path("a.db"), "--out", "-"}, args), fakecuda());
  ASSERT_EQ(report.status, 0) << describe(report);
  const std::string opening = "id=\"ucudnn-report-data\">";
  const auto from = report.out.find(opening), to = report.out.find("</script>", from);
  ASSERT_TRUE(from != std::string::npos && to != std::string::npos);
  const json arena =
      json::parse(report.out.substr(from + opening.size(), to - from - opening.size()))["arena"];
  ASSERT_EQ(arena["segments"].size(), 2u) << arena.dump(1);
  for (const auto& segment : arena["segments"])
    EXPECT_GE(segment["extent_bytes"].get<std::uint64_t>(),
              segment["workspace_bytes"].get<std::uint64_t>())
        << arena.dump(1);
  // The stored division is checked as it is laid out, not as a sum of segments.
  const auto checked = run({"db", "check", "--database", path("a.db")});
  EXPECT_EQ(checked.status, 0) << describe(checked);
}

}  // namespace
}  // namespace ucudnn::testing
