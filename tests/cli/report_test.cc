// `ucudnn report`'s pieces on synthetic measurements: the axes, the page's structure and
// escaping, and `plan --explain`'s reasons.
#include <gtest/gtest.h>
#include <pugixml.hpp>

#include <cstdio>
#include <string>

#include "networks/network_file.h"
#include "plan_explanation.h"
#include "report/axis.h"
#include "report/html_page.h"
#include "report/report_model.h"
#include "support/printed_text.h"
#include "support/table_benchmarker.h"

namespace ucudnn::cli {
namespace {

using report::Axis;

TEST(ReportAxis, LogarithmicWhenTheDataSpanDecadesWithZeroBeforeTheAxis) {
  const Axis axis = Axis::fit({0, 0.004, 2.5, 300}, 40, 300);
  EXPECT_TRUE(axis.logarithmic());
  EXPECT_TRUE(axis.has_zero_place());
  EXPECT_EQ(axis.position(0), 40);
  EXPECT_GE(axis.position(0.004), 56);  // zero stands apart from the axis
  EXPECT_LE(axis.position(300), 300);
  EXPECT_LT(axis.position(0.004), axis.position(2.5));
  EXPECT_LT(axis.position(2.5), axis.position(300));
  // Equal ratios, equal distances.
  EXPECT_NEAR(axis.position(1) - axis.position(0.1), axis.position(100) - axis.position(10), 1e-9);
  const auto ticks = axis.ticks();
  ASSERT_GE(ticks.size(), 4u);
  EXPECT_EQ(ticks.front().label, "0");
  for (const char* label : {"0.01", "0.1", "1", "10", "100"}) {
    bool found = false;
    for (const auto& t : ticks) found = found || t.label == label;
    EXPECT_TRUE(found) << label;
  }
}

TEST(ReportAxis, LinearWithRoundTicksWithinADecade) {
  const Axis axis = Axis::fit({3, 7.3}, 0, 100);
  EXPECT_FALSE(axis.logarithmic());
  std::string labels;
  for (const auto& t : axis.ticks()) labels += t.label + " ";
  EXPECT_EQ(labels, "0 2 4 6 8 ");
  EXPECT_EQ(axis.position(0), 0);
  EXPECT_EQ(axis.position(8), 100);
  // Bars keep a linear axis from zero whatever the span.
  EXPECT_FALSE(Axis::fit({0.01, 500}, 0, 100, /*allow_log=*/false).logarithmic());
}

// A two-layer network (the second repeats the first) measured from a table: algorithm FAST
// needs 6 MiB per sample and gains from larger micro-batches, SLOW needs 1 MiB and gains more.
constexpr const char* kRepeatedLayer =
    R"({"name": "b", "input": [8, 16, 16], "output_channels": 8, "filter": 3, "padding": 1})";
// `scale`: every time multiplied by it.
StoredNetworkPlan synthetic_plan(const std::string& name, std::optional<std::uint64_t> total,
                                 const std::string& second_layer = kRepeatedLayer,
                                 double scale = 1) {
  const std::string text = R"({"format": "ucudnn-network/1", "name": )" +
                           nlohmann::json(name).dump() +
                           R"(, "layers": [
      {"name": "a", "input": [8, 16, 16], "output_channels": 8, "filter": 3, "padding": 1},
      )" + second_layer + "]}";
  auto network = parse_network(text, "test", "test", 4);
  EXPECT_TRUE(network) << network.error();
  StoredNetworkPlan stored;
  stored.request.network = *network;
  stored.request.batch = 4;
  stored.request.backend = "cpu";
  stored.request.policy = BatchSizePolicy::kPowerOfTwo;
  stored.request.workspace_limit = 13 << 20;
  stored.request.total_workspace = total;
  stored.fingerprint = "kind=table";
  stored.database = "synthetic";
  stored.kernels = network_kernels(stored.request.network);
  testing::TableBenchmarker table({"FAST", "SLOW"});
  for (std::int64_t b : {1, 2, 4}) {
    table.set("FAST", b, scale * (1.0 + 0.5 * static_cast<double>(b)),
              static_cast<std::uint64_t>(b) * (6 << 20));
    table.set("SLOW", b, scale * (2.0 + 2.5 * static_cast<double>(b)), 1 << 20);
  }
  stored.plan = plan_network(table, stored.kernels, stored.request);
  return stored;
}

TEST(ReportPage, WellFormedWithTheDataExactEvenForHostileNames) {
  const std::string name = "net</script><b>&amp;\"'";
  const StoredNetworkPlan stored = synthetic_plan(name, 20 << 20);
  const auto model = report::build_report_model(stored);
  const std::string html = report::html_page(model);
  pugi::xml_document page;
  const auto parsed = page.load_string(html.c_str());
  ASSERT_TRUE(parsed) << parsed.description() << " at " << parsed.offset;
  EXPECT_EQ(std::string(page.select_node("//title").node().child_value()),
            "ucudnn report: " + name + ", batch 4, cpu");
  EXPECT_EQ(page.select_nodes("//b").size(), 0u) << "the name became markup";
  const auto scripts = page.select_nodes("//script");
  ASSERT_EQ(scripts.size(), 1u);
  const std::string raw = scripts[0].node().child_value();
  // Raw text to a browser: the JSON must not hold what would end the element.
  EXPECT_EQ(raw.find('<'), std::string::npos);
  EXPECT_EQ(html.find("</script><b>"), std::string::npos);
  const auto data = nlohmann::json::parse(raw);
  EXPECT_EQ(data, model.to_json());
  EXPECT_EQ(data["plan"]["network"], name);

  // Layer b repeats layer a: three distinct kernels, six rows.
  EXPECT_EQ(model.kernels.size(), 3u);
  EXPECT_EQ(page.select_nodes("//g[@class='front']").size(), 3u);
  EXPECT_EQ(page.select_nodes("//g[@class='kernel-row']").size(), 6u);
  EXPECT_EQ(model.kernels[0].name(), "a Forward (x2)");

  // The front: SLOW undivided (1 MiB, 12 ms), then FAST at 1, 2 and 4 samples (6, 12 and
  // 24 MiB; 6, 4 and 3 ms); the limit (13 MiB) leaves the last out: WR takes FAST:2 x2.
  const auto& k = model.kernels[0];
  ASSERT_EQ(k.front.size(), 4u);
  EXPECT_EQ(k.front[0].to_string(), "table:SLOW:4");
  EXPECT_EQ(k.front[1].to_string(), "table:FAST:1 x4");
  EXPECT_EQ(k.front[3].to_string(), "table:FAST:4");
  ASSERT_TRUE(k.wr);
  EXPECT_EQ(k.wr->to_string(), "table:FAST:2 x2");
  EXPECT_EQ(k.measured.size(), 6u);
  EXPECT_DOUBLE_EQ(k.measured[0].whole_batch_ms, 6.0);  // FAST:1, 1.5 ms for one sample

  // WD: 20 MiB for three kernels on one stream: one segment they share, each its fastest
  // within 20 MiB (FAST undivided, 24 MiB, does not fit: FAST:2 x2).
  ASSERT_TRUE(model.arena);
  ASSERT_EQ(model.arena->segments.size(), 1u);
  EXPECT_EQ(model.arena->segments[0].kernels.size(), 3u);
  EXPECT_EQ(model.arena->segments[0].used, 12u << 20);
  EXPECT_EQ(model.arena->segments[0].extent, model.arena->workspace_bytes);
  EXPECT_NE(model.arena->segments[0].reason.find("nothing can overlap"), std::string::npos);
  EXPECT_EQ(page.select_nodes("//rect[@class='arena-segment']").size(), 1u);
  for (const auto& kernel : model.kernels) EXPECT_EQ(kernel.wd, kernel.wr);
}

// Layers on two streams may run at once: each stream's kernels get a segment of their own,
// and the division of 20 MiB between them is drawn and explained.
TEST(ReportPage, KernelsOfTwoStreamsEachGetASegment) {
  const StoredNetworkPlan stored = synthetic_plan(
      "net", 20 << 20,
      R"({"name": "b", "input": [8, 16, 16], "output_channels": 16, "filter": 3, "padding": 1,
          "stream": 1})");
  const auto model = report::build_report_model(stored);
  ASSERT_TRUE(model.arena);
  ASSERT_EQ(model.arena->segments.size(), 2u);
  std::uint64_t extents = 0;
  for (const auto& s : model.arena->segments) {
    extents += s.extent;
    EXPECT_EQ(s.kernels.size(), 3u);
    EXPECT_NE(s.reason.find("they may overlap the 3 kernels on stream "), std::string::npos)
        << s.reason;
  }
  EXPECT_EQ(extents, model.arena->workspace_bytes);
  EXPECT_LE(model.arena->workspace_bytes, 20u << 20);
  const std::string html = report::html_page(model);
  pugi::xml_document page;
  ASSERT_TRUE(page.load_string(html.c_str()));
  EXPECT_EQ(page.select_nodes("//rect[@class='arena-segment']").size(), 2u);
  EXPECT_EQ(model.plan["wd"]["segments"].size(), 2u);
}

TEST(ReportPage, ADivisionThatDoesNotFitIsSaidNotDrawn) {
  // Every configuration needs at least 1 MiB.
  const StoredNetworkPlan stored = synthetic_plan("net", 512 << 10);
  const auto model = report::build_report_model(stored);
  EXPECT_FALSE(model.arena);
  ASSERT_FALSE(model.division_error.empty());
  const std::string html = report::html_page(model);
  EXPECT_NE(html.find("No division: " + model.division_error), std::string::npos);
  EXPECT_EQ(html.find("class=\"arena-segment\""), std::string::npos);
  EXPECT_TRUE(report::build_report_model(stored).to_json()["arena"].is_null());

  const StoredNetworkPlan wr_only = synthetic_plan("net", std::nullopt);
  const auto page = report::html_page(report::build_report_model(wr_only));
  EXPECT_EQ(page.find("Workspace division"), std::string::npos);
  EXPECT_EQ(page.find("class=\"arena-segment\""), std::string::npos);
}

TEST(PlanExplanation, NamesTheUndividedThatFitAndWhatALargerLimitBuys) {
  const StoredNetworkPlan stored = synthetic_plan("net", std::nullopt);
  const KernelPlan& a = stored.plan.plans[0];
  const auto next = next_pareto_point(a, stored.request.workspace_limit);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->to_string(), "table:FAST:4");  // 24 MiB, 3 ms
  EXPECT_FALSE(next_pareto_point(a, 24u << 20)) << "nothing is faster beyond the fastest";

  const std::string explanation = testing::printed_text([&](std::FILE* out) {
    print_plan_explanation(out, stored.kernels, stored.plan, stored.request);
  });
  EXPECT_NE(explanation.find("a Forward, and b Forward (the same kernel)\n"), std::string::npos)
      << explanation;
  EXPECT_NE(explanation.find("  undivided within 13 MiB: SLOW 12 ms (1 MiB)\n"), std::string::npos)
      << explanation;
  EXPECT_NE(explanation.find("  undivided over the limit: FAST 3 ms (24 MiB)\n"),
            std::string::npos);
  EXPECT_NE(explanation.find("  plan: table:FAST:2 x2, 4 ms in 12 MiB, 2 micro-batches: "
                             "3.00x faster than SLOW undivided\n"),
            std::string::npos)
      << explanation;
  EXPECT_NE(explanation.find("  a larger limit: 24 MiB would give 3 ms with table:FAST:4 "
                             "(1.33x faster)\n"),
            std::string::npos)
      << explanation;
}

// Times as the plan's table prints them (four significant digits): a GPU kernel's hundredths
// of a millisecond are not rounded away, so the ratios said can be read off the times.
TEST(PlanExplanation, SmallTimesKeepTheirDigits) {
  const StoredNetworkPlan stored = synthetic_plan("net", std::nullopt, kRepeatedLayer, 0.0013);
  const std::string explanation = testing::printed_text([&](std::FILE* out) {
    print_plan_explanation(out, stored.kernels, stored.plan, stored.request);
  });
  EXPECT_NE(explanation.find("  undivided within 13 MiB: SLOW 0.0156 ms (1 MiB)\n"),
            std::string::npos)
      << explanation;
  EXPECT_NE(explanation.find("  plan: table:FAST:2 x2, 0.0052 ms in 12 MiB"), std::string::npos)
      << explanation;
  EXPECT_NE(explanation.find("  a larger limit: 24 MiB would give 0.0039 ms with table:FAST:4 "
                             "(1.33x faster)\n"),
            std::string::npos)
      << explanation;
}

}  // namespace
}  // namespace ucudnn::cli
