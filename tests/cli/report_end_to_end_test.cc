// `ucudnn report` end to end: AlexNet benchmarked on the CPU into a small real database, the
// page read back as XML and compared with `ucudnn plan --json`, and rendered by a headless
// browser (Debian's chromium) where one is installed.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pugixml.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "cli_test_fixture.h"

namespace ucudnn::testing {
namespace {

class ReportTest : public CliTest {
 protected:
  // AlexNet at batch 2 (micro-batches 1 and 2) with WR and WD: about 5 s on 2 cores.
  std::vector<std::string> alexnet() const {
    return {"--network",         "alexnet",    "--batch",           "2",
            "--policy",          "powerOfTwo", "--workspace-limit", "4MiB",
            "--total-workspace", "16MiB",      "--database",        path("alexnet.db")};
  }
  void bench() const {
    const auto r =
        run(concat(concat({"bench"}, alexnet()), {"--repeats", "1", "--no-check-plans"}));
    ASSERT_EQ(r.status, 0) << describe(r);
  }
  std::string report(const std::string& name) const {
    const auto r = run(concat(concat({"report"}, alexnet()), {"--out", path(name)}));
    EXPECT_EQ(r.status, 0) << describe(r);
    EXPECT_NE(r.err.find("wrote " + path(name)), std::string::npos) << r.err;
    return read_file(path(name));
  }
};

std::string attribute(pugi::xml_node node, const char* name) {
  return node.attribute(name).as_string();
}

// Nodes of the page with `element` and `css_class` among their classes.
pugi::xpath_node_set select(const pugi::xml_document& page, const std::string& element,
                            const std::string& css_class) {
  return page.select_nodes(
      ("//" + element + "[contains(concat(' ', @class, ' '), ' " + css_class + " ')]").c_str());
}

TEST_F(ReportTest, AlexNetPageShowsEveryKernelWithPlanJsonsNumbers) {
  bench();
  const std::string html = report("alexnet.html");
  const auto plan_run = run(concat(concat({"plan"}, alexnet()), {"--json"}));
  ASSERT_EQ(plan_run.status, 0) << describe(plan_run);
  const json plan = json::parse(plan_run.out);

  ASSERT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  pugi::xml_document page;
  const auto parsed = page.load_string(html.c_str());
  ASSERT_TRUE(parsed) << "the page is not well-formed: " << parsed.description() << " at byte "
                      << parsed.offset;

  // The data for scripts: exactly `plan --json`'s document, and one figure per kernel.
  const auto data_node = page.select_node("//script[@id='ucudnn-report-data']").node();
  ASSERT_TRUE(data_node);
  EXPECT_EQ(attribute(data_node, "type"), "application/json");
  const json data = json::parse(data_node.child_value());
  EXPECT_EQ(data["plan"], plan);
  const auto& kernels = plan["kernels"];
  ASSERT_EQ(kernels.size(), 15u);  // conv1-conv5, three operations, all distinct
  ASSERT_EQ(data["kernels"].size(), 15u);

  // One front per kernel, with as many points as the data's front.
  std::map<std::string, json> figures;
  for (const auto& figure : data["kernels"]) figures[figure["kernel_hash"]] = figure;
  const auto fronts = select(page, "g", "front");
  ASSERT_EQ(fronts.size(), 15u);
  std::set<std::string> front_hashes;
  for (std::size_t i = 0; i < fronts.size(); ++i) {
    const auto front = fronts[i].node();
    const std::string hash = attribute(front, "data-kernel-hash");
    ASSERT_TRUE(figures.count(hash)) << hash;
    const json& figure = figures[hash];
    front_hashes.insert(hash);
    const auto points = front.select_nodes("circle[@class='front-point']");
    EXPECT_EQ(points.size(), figure["front"].size());
    EXPECT_GE(points.size(), 1u);
    // Sorted by workspace, each faster than the one before: a Pareto front.
    for (std::size_t p = 1; p < figure["front"].size(); ++p) {
      EXPECT_GT(figure["front"][p]["workspace_bytes"], figure["front"][p - 1]["workspace_bytes"]);
      EXPECT_LT(figure["front"][p]["time_ms"], figure["front"][p - 1]["time_ms"]);
    }
  }
  std::set<std::string> plan_hashes;
  for (const auto& k : kernels) plan_hashes.insert(k["kernel_hash"].get<std::string>());
  EXPECT_EQ(front_hashes, plan_hashes);
  // Every kernel's WR plan and WD choice marked on its chart, the limit drawn on each.
  const auto charts = select(page, "svg", "front-chart");
  ASSERT_EQ(charts.size(), 15u);
  for (const auto& chart : charts) {
    EXPECT_EQ(chart.node().select_nodes(".//path[@class='wr-choice']").size(), 1u);
    EXPECT_EQ(chart.node().select_nodes(".//rect[@class='wd-choice']").size(), 1u);
    EXPECT_EQ(chart.node().select_nodes(".//line[@class='limit-line']").size(), 1u);
  }

  // One bar per layer and operation, with the plan's and the undivided algorithm's times, and
  // one block per micro-batch.
  const auto rows = select(page, "g", "kernel-row");
  ASSERT_EQ(rows.size(), 15u);
  double unlimited_ms = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto row = rows[i].node();
    const json& k = kernels[i];
    EXPECT_EQ(attribute(row, "data-layer"), k["layer"]);
    EXPECT_EQ(attribute(row, "data-operation"), k["operation"]);
    const auto bar = row.select_node("rect[@class='plan-bar']").node();
    ASSERT_TRUE(bar) << k["layer"];
    EXPECT_EQ(bar.attribute("data-time-ms").as_double(), k["plan"]["time_ms"].get<double>());
    const auto undivided = row.select_node("rect[@class='undivided-bar']").node();
    ASSERT_TRUE(undivided);
    EXPECT_EQ(undivided.attribute("data-time-ms").as_double(),
              k["undivided"]["time_ms"].get<double>());
    // The unlimited baseline: undivided, no slower than the best within the limit.
    ASSERT_FALSE(k["unlimited"].is_null()) << k["layer"];
    EXPECT_LE(k["unlimited"]["time_ms"].get<double>(), k["undivided"]["time_ms"].get<double>());
    if (k["unlimited"]["time_ms"] < k["undivided"]["time_ms"]) {
      EXPECT_GT(k["unlimited"]["workspace_bytes"].get<std::uint64_t>(),
                k["undivided"]["workspace_bytes"].get<std::uint64_t>())
          << "a faster undivided candidate was left out of the limit for its workspace";
    }
    unlimited_ms += k["unlimited"]["time_ms"].get<double>();
    const auto tick = row.select_node("line[@class='unlimited-mark']").node();
    ASSERT_TRUE(tick) << "the best undivided with no limit, per layer";
    EXPECT_EQ(figures[k["kernel_hash"].get<std::string>()]["unlimited"], k["unlimited"]);
    EXPECT_EQ(tick.attribute("data-time-ms").as_double(), k["unlimited"]["time_ms"].get<double>());
    const auto blocks = row.select_nodes("rect[@class='micro-batch']");
    ASSERT_EQ(blocks.size(), k["plan"]["micro"].size());
    std::int64_t samples = 0;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      EXPECT_EQ(attribute(blocks[b].node(), "data-algorithm"), k["plan"]["micro"][b]["algorithm"]);
      samples += blocks[b].node().attribute("data-batch").as_llong();
    }
    EXPECT_EQ(samples, 2);
    const auto used = row.select_node("rect[@class='workspace-used']").node();
    EXPECT_EQ(used.attribute("data-workspace-bytes").as_ullong(),
              k["plan"]["workspace_bytes"].get<std::uint64_t>());
  }

  // The arena: segments tile the WD workspace, at the offsets `plan --json` gives.
  const json& wd = plan["wd"];
  ASSERT_TRUE(wd.is_object() && wd.contains("workspace_bytes")) << wd.dump();
  const auto segments = select(page, "rect", "arena-segment");
  ASSERT_EQ(segments.size(), wd["segments"].size());
  std::map<std::uint64_t, std::uint64_t> kernels_at;  // offset -> kernels there
  for (const auto& k : wd["kernels"]) ++kernels_at[k["offset"].get<std::uint64_t>()];
  ASSERT_EQ(kernels_at.size(), segments.size());
  std::uint64_t end = 0, summed = 0;
  for (const auto& s : segments) {
    const auto node = s.node();
    const std::uint64_t offset = node.attribute("data-offset").as_ullong();
    EXPECT_EQ(offset, end) << "segments leave a gap or overlap";
    EXPECT_EQ(node.attribute("data-kernels").as_ullong(), kernels_at[offset]);
    end = offset + node.attribute("data-extent-bytes").as_ullong();
    summed += node.attribute("data-extent-bytes").as_ullong();
    EXPECT_FALSE(node.child("title").empty()) << "no hover text";
  }
  EXPECT_EQ(summed, wd["workspace_bytes"].get<std::uint64_t>());

  // The summary says the totals `plan --json` gives.
  char speedup[32];
  std::snprintf(speedup, sizeof speedup, ": %.2fx", plan["wr_total"]["speedup"].get<double>());
  EXPECT_NE(html.find(speedup), std::string::npos) << speedup;
  EXPECT_NEAR(plan["wr_total"]["unlimited_ms"].get<double>(), unlimited_ms, 1e-9 * unlimited_ms);
  EXPECT_NE(html.find("unlimited best"), std::string::npos);
  EXPECT_NE(html.find(plan["fingerprint"].get<std::string>()), std::string::npos);

  // Self-contained: no script to run, nothing to fetch.
  EXPECT_EQ(page.select_nodes("//script").size(), 1u);
  EXPECT_EQ(page.select_nodes("//*[@src]").size(), 0u);
  EXPECT_EQ(page.select_nodes("//link").size(), 0u);
  for (const char* scheme : {"https:", "url(http"})
    EXPECT_EQ(html.find(scheme), std::string::npos) << scheme;
}

TEST_F(ReportTest, PlanExplainsEveryKernel) {
  bench();
  const auto r = run(concat(concat({"plan"}, alexnet()), {"--explain"}));
  ASSERT_EQ(r.status, 0) << describe(r);
  const auto at = r.out.find("Why each plan won (WR, per-kernel limit 4 MiB):");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string why = r.out.substr(at);
  auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (auto p = why.find(what); p != std::string::npos; p = why.find(what, p + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("\n  undivided within 4 MiB: "), 15u);
  EXPECT_EQ(count("\n  plan: cpu:"), 15u);
  EXPECT_EQ(count("\n  a larger limit: "), 15u);
  // JSON is for scripts; the explanation is for people: asking for both is a usage error.
  const auto both = run(concat(concat({"plan"}, alexnet()), {"--explain", "--json"}));
  EXPECT_EQ(both.status, 2) << describe(both);
  EXPECT_NE(both.err.find("excludes"), std::string::npos) << both.err;
}

TEST_F(ReportTest, MissingMeasurementsAreTheSameErrorAsPlans) {
  const auto r = run(concat(concat({"report"}, alexnet()), {"--out", path("never.html")}));
  EXPECT_EQ(r.status, 1) << describe(r);
  EXPECT_NE(r.err.find("ucudnn report: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" measurements the database does not have, of 15 kernels: conv1 Forward"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("run `ucudnn bench --network alexnet --batch 2"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(path("never.html")));
}

// Where nothing fits, the page still shows every kernel, and the status is plan's: 1. An
// exclusion that leaves a kernel no algorithm at all is the user's error, not the limit's: plan
// and report say so and draw nothing.
TEST_F(ReportTest, KernelsWithoutAPlanAreDrawnAndFailAsPlanDoes) {
  const auto bench =
      run(concat({"bench", "--database", path("t.db"), "--no-check-plans"}, bench_args()));
  ASSERT_EQ(bench.status, 0) << describe(bench);
  // DIRECT is the only algorithm that needs no workspace.
  const auto args = concat({"--database", path("t.db"), "--exclude-algorithms", "cpu:DIRECT"},
                           network_args(4, "0"));
  const auto plan = run(concat({"plan"}, args));
  EXPECT_EQ(plan.status, 1) << describe(plan);
  EXPECT_NE(plan.out.find("conv1 Forward        nothing fits 0 B"), std::string::npos) << plan.out;
  const auto r = run(concat({"report", "--out", path("none.html")}, args));
  EXPECT_EQ(r.status, plan.status) << describe(r);
  EXPECT_NE(r.err.find(
                "ucudnn report: no plan for 12 of the 12 kernels (no configuration covers batch 4"),
            std::string::npos)
      << r.err;
  EXPECT_NE(read_file(path("none.html")).find("nothing fits"), std::string::npos);

  const auto everything =
      concat({"--database", path("t.db"), "--exclude-algorithms", "cpu:*"}, network_args());
  for (const std::string command : {"plan", "report"}) {
    auto words = concat({command}, everything);
    if (command == "report") words = concat(words, {"--out", path("excluded.html")});
    const auto excluded = run(words);
    EXPECT_EQ(excluded.status, 1) << describe(excluded);
    EXPECT_NE(excluded.err.find("ucudnn " + command +
                                ": --exclude-algorithms 'cpu:*' excludes every cpu algorithm of "
                                "12 of the 12 kernels, e.g. conv1 Forward: nothing is left to "
                                "plan them with"),
              std::string::npos)
        << excluded.err;
    EXPECT_EQ(excluded.out.find("nothing fits"), std::string::npos) << excluded.out;
    EXPECT_FALSE(std::filesystem::exists(path("excluded.html")));
  }
}

TEST_F(ReportTest, AnUnwritableOutputIsNamedAndLeavesNothing) {
  bench();
  const std::string target = path("no-such-folder") + "/report.html";
  const auto r = run(concat(concat({"report"}, alexnet()), {"--out", target}));
  EXPECT_EQ(r.status, 1) << describe(r);
  EXPECT_NE(r.err.find("--out: cannot write '" + target + "'"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("no-such-folder")));

  // A file its owner made read-only stays as it is, even for root (CI runs as root, whom the
  // kernel lets write anything).
  const std::string kept = path("kept.html");
  write_file(kept, "mine");
  std::filesystem::permissions(kept, std::filesystem::perms::owner_read |
                                         std::filesystem::perms::group_read |
                                         std::filesystem::perms::others_read);
  const auto read_only = run(concat(concat({"report"}, alexnet()), {"--out", kept}));
  EXPECT_EQ(read_only.status, 1) << describe(read_only);
  EXPECT_NE(read_only.err.find("--out: cannot write '" + kept + "': Permission denied"),
            std::string::npos)
      << read_only.err;
  EXPECT_EQ(read_file(kept), "mine");

  const auto empty = run(concat(concat({"report"}, alexnet()), {"--out", ""}));
  EXPECT_EQ(empty.status, 2) << describe(empty);
  EXPECT_NE(empty.err.find("--out: an empty file name"), std::string::npos) << empty.err;
  EXPECT_TRUE(empty.out.empty()) << "nothing written to standard output";
}

// The page goes where --out says without replacing what is there when that is not a regular file
// (a pipe, a device), and through a link into the file it names; a destination that cannot take
// it (a full device, standard output on one) fails the command.
TEST_F(ReportTest, AnOutputThatIsAPipeOrALinkIsWrittenNotReplaced) {
  bench();
  const std::string whole = report("whole.html");
  ASSERT_FALSE(whole.empty());

  const std::string pipe = path("pipe.html");
  ASSERT_EQ(::mkfifo(pipe.c_str(), 0600), 0);
  const int reader = ::open(pipe.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  // Room for the whole page, so that the writer never waits for this test to read.
  ASSERT_GE(::fcntl(reader, F_SETPIPE_SZ, 1 << 20), static_cast<int>(whole.size()));
  const auto piped = run(concat(concat({"report"}, alexnet()), {"--out", pipe}));
  EXPECT_EQ(piped.status, 0) << describe(piped);
  std::string received(whole.size() + 1, '\0');
  const ssize_t got = ::read(reader, received.data(), received.size());
  ::close(reader);
  received.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  EXPECT_TRUE(received == whole) << "read " << received.size() << " of " << whole.size()
                                 << " bytes through the pipe";
  EXPECT_TRUE(std::filesystem::is_fifo(pipe)) << "the pipe was replaced by a file";

  std::filesystem::create_symlink("whole.html", path("link.html"));
  const std::string linked = report("link.html");
  EXPECT_TRUE(linked == whole) << "the link's file holds " << linked.size() << " bytes";
  EXPECT_TRUE(std::filesystem::is_symlink(path("link.html")));

  if (std::filesystem::is_character_file("/dev/full")) {
    const auto full = run(concat(concat({"report"}, alexnet()), {"--out", "/dev/full"}));
    EXPECT_EQ(full.status, 1) << describe(full);
    EXPECT_NE(full.err.find("--out: writing '/dev/full' failed: No space left on device"),
              std::string::npos)
        << full.err;
    EXPECT_TRUE(std::filesystem::is_character_file("/dev/full"));
    const auto standard =
        run_with_output_to("/dev/full", concat(concat({"report"}, alexnet()), {"--out", "-"}));
    EXPECT_EQ(standard.status, 1) << describe(standard);
    EXPECT_NE(standard.err.find("ucudnn report: standard output could not be written"),
              std::string::npos)
        << standard.err;
  }
}

// Where Debian's chromium is installed (scripts/test.sh installs it), else empty.
std::string browser() {
  if (const char* named = std::getenv("UCUDNN_TEST_BROWSER")) return named;
  for (const char* candidate : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (::access(candidate, X_OK) == 0) return candidate;
  return "";
}

std::vector<std::string> headless(const std::string& profile) {
  return {browser(),
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--hide-scrollbars",
          "--enable-logging=stderr",
          "--v=0",
          "--user-data-dir=" + profile};
}

TEST_F(ReportTest, HeadlessBrowserRendersThePage) {
  if (browser().empty()) GTEST_SKIP() << "no chromium installed (scripts/test.sh installs it)";
  bench();
  const std::string html = report("alexnet.html");
  const std::string url = "file://" + path("alexnet.html");

  // The DOM the browser built: every figure where the page put it, the data intact.
  auto dom = run_process(concat(headless(path("profile-dom")), {"--dump-dom", url}), {});
  ASSERT_EQ(dom.status, 0) << describe(dom);
  pugi::xml_document page;
  ASSERT_TRUE(page.load_string(html.c_str()));
  auto count = [](const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count(dom.out, "class=\"front\""), 15u);
  EXPECT_EQ(count(dom.out, "class=\"kernel-row\""), 15u);
  EXPECT_EQ(count(dom.out, "class=\"arena-segment\""),
            select(page, "rect", "arena-segment").size());
  const auto script = dom.out.find("id=\"ucudnn-report-data\">");
  ASSERT_NE(script, std::string::npos);
  const auto start = dom.out.find('>', script) + 1;
  const json data = json::parse(dom.out.substr(start, dom.out.find("</script>", start) - start));
  EXPECT_EQ(data.dump(), json::parse(page.select_node("//script").node().child_value()).dump());
  for (const char* problem : {"Uncaught", "ERROR:CONSOLE", "Failed to load"})
    EXPECT_EQ(dom.err.find(problem), std::string::npos) << problem << "\n" << dom.err;

  // A screenshot of the size asked for, with something drawn on it.
  const std::string png = path("alexnet.png");
  auto shot = run_process(concat(headless(path("profile-shot")),
                                 {"--window-size=1200,1800", "--screenshot=" + png, url}),
                          {});
  ASSERT_EQ(shot.status, 0) << describe(shot);
  const std::string image = read_file(png);
  ASSERT_GT(image.size(), 24u);
  EXPECT_EQ(image.substr(1, 3), "PNG");
  auto be32 = [&](std::size_t at) {
    return (std::uint32_t(std::uint8_t(image[at])) << 24) |
           (std::uint32_t(std::uint8_t(image[at + 1])) << 16) |
           (std::uint32_t(std::uint8_t(image[at + 2])) << 8) |
           std::uint32_t(std::uint8_t(image[at + 3]));
  };
  EXPECT_EQ(be32(16), 1200u);
  EXPECT_EQ(be32(20), 1800u);
  // A blank page of this size compresses to a few KiB; figures and text make far more.
  EXPECT_GT(image.size(), 60u * 1024) << "the screenshot looks empty";
  EXPECT_LT(image.size(), 20u * 1024 * 1024);
  for (const char* problem : {"Uncaught", "ERROR:CONSOLE"})
    EXPECT_EQ(shot.err.find(problem), std::string::npos) << problem << "\n" << shot.err;
}

}  // namespace
}  // namespace ucudnn::testing
