#pragma once
// What the shim's exit line at UCUDNN_LOG_LEVEL=info says about where planning's time went
// (cudnn/measuring_account.h), read back from a program's standard error, and what its "plan
// within" lines say each planned kernel runs.
#include <cstdio>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <utility>

namespace ucudnn::testing {

struct MeasuringLine {
  int kernels = 0, pairs = 0, stopped = 0, plans = 0, queries = 0;
  double total_s = 0, runs_s = 0, plans_s = 0, heuristics_s = 0, allocating_s = 0,
         database_writes_s = 0, rest_s = 0;
};

inline std::optional<MeasuringLine> measuring_line(const std::string& err) {
  // The counts take the singular at one ("1 kernel", "1 query").
  static const std::regex line(
      "measuring (\\d+) kernels? took ([0-9.]+) s: running and timing (\\d+) \\(candidate, "
      "micro-batch\\) pairs? ([0-9.]+) s \\((\\d+) stopped early\\), building plans ([0-9.]+) s "
      "\\((\\d+) finalized\\), cuDNN's heuristics ([0-9.]+) s \\((\\d+) quer(?:y|ies)\\), "
      "allocating ([0-9.]+) s, writing to the database ([0-9.]+) s, the rest ([0-9.]+) s");
  std::smatch m;
  if (!std::regex_search(err, m, line)) return std::nullopt;
  const auto count = [&](int i) { return std::stoi(m[i].str()); };
  const auto seconds = [&](int i) { return std::stod(m[i].str()); };
  MeasuringLine read;
  read.kernels = count(1);
  read.total_s = seconds(2);
  read.pairs = count(3);
  read.runs_s = seconds(4);
  read.stopped = count(5);
  read.plans_s = seconds(6);
  read.plans = count(7);
  read.heuristics_s = seconds(8);
  read.queries = count(9);
  read.allocating_s = seconds(10);
  read.database_writes_s = seconds(11);
  read.rest_s = seconds(12);
  return read;
}

// What "benchmarked N (algorithm, micro-batch) pairs of ..." lines add up to: kernels, pairs.
inline std::pair<int, int> benchmarked_lines(const std::string& err) {
  std::pair<int, int> total{0, 0};
  for (auto at = err.find("benchmarked "); at != std::string::npos;
       at = err.find("benchmarked ", at + 1)) {
    int n = 0;
    if (std::sscanf(err.c_str() + at, "benchmarked %d (algorithm", &n) != 1) continue;
    ++total.first;
    total.second += n;
  }
  return total;
}

// What the "benchmarked N (algorithm, micro-batch) pairs of ... (T ran and were timed; ..."
// lines' T add up to: the pairs the exit line's "running and timing" counts.
inline int timed_in_benchmarked_lines(const std::string& err) {
  int total = 0;
  for (auto at = err.find(" ran and "); at != std::string::npos;
       at = err.find(" ran and ", at + 1)) {
    const auto open = err.rfind('(', at);
    int n = 0;
    if (open != std::string::npos && std::sscanf(err.c_str() + open, "(%d ran and", &n) == 1)
      total += n;
  }
  return total;
}

// "outside measuring, N plans finalized": the execution plans made where nothing was measured
// (those that run, those that check a stored plan); nullopt where the line lacks it.
inline std::optional<int> plans_finalized_outside_measuring(const std::string& err) {
  const auto at = err.find("outside measuring, ");
  int plans = 0;
  if (at == std::string::npos ||
      std::sscanf(err.c_str() + at, "outside measuring, %d plan", &plans) != 1)
    return std::nullopt;
  return plans;
}

// "N pairs timed without holding the stream, their times with the host's issuing in them (M
// gates timed out)": N and M; nullopt where the line lacks it.
inline std::optional<std::pair<int, int>> ungated_pairs(const std::string& err) {
  static const std::regex part(
      "(\\d+) pairs? timed without holding the stream, their times with the host's issuing in "
      "them \\((\\d+) gates? timed out\\)");
  std::smatch m;
  if (!std::regex_search(err, m, part)) return std::nullopt;
  return std::pair<int, int>{std::stoi(m[1].str()), std::stoi(m[2].str())};
}

// The execution plans (alpha = 1, beta = 0; and beta = 1 where a BackwardFilter plan's later
// micro-batches add to dw) that the kernels planned in "<Operation> plan within <limit>:
// cudnn:<configuration>:<images>[ xN] + ... (...)" lines run: one per configuration and
// micro-batch size.
inline int plans_that_run(const std::string& err) {
  int plans = 0;
  for (auto at = err.find(" plan within "); at != std::string::npos;
       at = err.find(" plan within ", at + 1)) {
    const auto line_start = err.rfind("info: ", at);
    const bool accumulates =
        line_start != std::string::npos && err.compare(line_start + 6, 15, "BackwardFilter ") == 0;
    const auto from = err.find(": ", at) + 2;
    const auto to = err.find(" (", from);
    const std::string runs = err.substr(from, to - from);
    std::set<std::string> shapes;
    int micro_batches = 0;
    for (std::size_t part = 0; part != std::string::npos;) {
      const auto end = runs.find(" + ", part);
      std::string run = runs.substr(part, end == std::string::npos ? end : end - part);
      part = end == std::string::npos ? end : end + 3;
      int repeats = 1;
      if (const auto times = run.rfind(" x"); times != std::string::npos) {
        repeats = std::stoi(run.substr(times + 2));
        run.resize(times);
      }
      shapes.insert(run);
      micro_batches += repeats;
    }
    const int shape_count = static_cast<int>(shapes.size());
    plans += accumulates && micro_batches > 1 ? 2 * shape_count : shape_count;
  }
  return plans;
}

}  // namespace ucudnn::testing
