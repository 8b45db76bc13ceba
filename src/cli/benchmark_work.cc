#include "benchmark_work.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/reduction_precision.h"
#include "core/text.h"

namespace ucudnn::cli {

using nlohmann::json;

std::size_t WorkList::measurements() const {
  std::size_t count = 0;
  for (const auto& item : items) count += item.algorithms.size();
  return count;
}

WorkList find_missing_work(const std::vector<NetworkKernel>& kernels, BatchSizePolicy policy,
                           Benchmarker& device, BenchmarkStore& store,
                           const std::string& fingerprint) {
  WorkList work;
  std::set<std::string> seen;
  const std::string backend = device.backend_name();
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const KernelKey& kernel = kernels[k].key;
    const auto algorithms = device.algorithms(kernel);
    for (auto size : planned_micro_batch_sizes(kernel, policy)) {
      const KernelKey micro = kernel.with_batch(size);
      if (!seen.insert(micro.to_string()).second) continue;
      WorkItem item{k, size, {}};
      for (const auto& algorithm : algorithms) {
        if (store.find_measurement(fingerprint, micro, backend, algorithm))
          ++work.reused;
        else
          item.algorithms.push_back(algorithm);
      }
      if (!item.algorithms.empty()) work.items.push_back(std::move(item));
    }
  }
  return work;
}

double work_weight(const std::vector<NetworkKernel>& kernels, const WorkItem& item) {
  // Each measurement also costs a fixed set-up (buffers, warm-up): as much as ~50 MFLOP.
  constexpr double kSetUpFlops = 5e7;
  return (flops_per_image(kernels[item.kernel].key) * static_cast<double>(item.micro_batch) +
          kSetUpFlops) *
         static_cast<double>(item.algorithms.size());
}

std::vector<std::size_t> share_of(int rank, int ranks, const std::vector<NetworkKernel>& kernels,
                                  const WorkList& work) {
  std::vector<std::size_t> heaviest_first(work.items.size());
  std::vector<double> weight(work.items.size());
  for (std::size_t i = 0; i < work.items.size(); ++i) {
    heaviest_first[i] = i;
    weight[i] = work_weight(kernels, work.items[i]);
  }
  std::stable_sort(heaviest_first.begin(), heaviest_first.end(),
                   [&](std::size_t a, std::size_t b) { return weight[a] > weight[b]; });
  std::vector<double> load(static_cast<std::size_t>(std::max(ranks, 1)), 0.0);
  std::vector<std::size_t> share;
  for (const std::size_t item : heaviest_first) {
    const auto least = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) -
                                                load.begin());  // the lowest rank on ties
    load[least] += weight[item];
    if (least == static_cast<std::size_t>(rank)) share.push_back(item);
  }
  std::sort(share.begin(), share.end());
  return share;
}

std::string work_to_json(const WorkList& work) {
  json items = json::array();
  for (const auto& item : work.items)
    items.push_back({item.kernel, item.micro_batch, item.algorithms});
  return json{{"reused", work.reused}, {"items", std::move(items)}}.dump(
      -1, ' ', false, json::error_handler_t::replace);
}

Expected<WorkList> work_from_json(const std::string& text, std::size_t kernel_count) {
  try {
    const json document = json::parse(text);
    WorkList work;
    work.reused = document.at("reused").get<std::size_t>();
    for (const auto& entry : document.at("items")) {
      WorkItem item{entry.at(0).get<std::size_t>(), entry.at(1).get<std::int64_t>(),
                    entry.at(2).get<std::vector<std::string>>()};
      if (item.kernel >= kernel_count || item.micro_batch < 1)
        return Error{"work list: an item is out of range"};
      work.items.push_back(std::move(item));
    }
    return work;
  } catch (const json::exception& e) {
    return Error{std::string("work list: ") + e.what()};
  }
}

ShareOutcome measure_share(const std::vector<NetworkKernel>& kernels, const WorkList& work,
                           const std::vector<std::size_t>& share,
                           const std::vector<Worker*>& workers, Progress* progress,
                           const ItemMeasured& item_measured) {
  // Per share position, so that the merged results come out in item order whatever thread
  // measured what.
  std::vector<std::vector<WorkResult>> results(share.size());
  std::atomic<std::size_t> next{0};
  std::mutex error_mutex;     // guards the four below
  std::mutex measured_mutex;  // one item_measured call at a time
  std::string error;
  std::size_t unavailable_count = 0;
  std::string first_unavailable;
  std::set<std::pair<std::size_t, const Worker*>> warned;  // (kernel, worker) said unavailable
  auto run = [&](Worker& worker) {
    try {
      worker.enter_thread();
      for (std::size_t i = next++; i < share.size(); i = next++) {
        {
          std::lock_guard lock(error_mutex);
          if (!error.empty()) return;
        }
        const WorkItem& item = work.items.at(share[i]);
        const KernelKey& kernel = kernels.at(item.kernel).key;
        for (const auto& algorithm : item.algorithms) {
          try {
            results[i].push_back(
                {share[i], algorithm,
                 worker.benchmarker().benchmark(kernel, algorithm, item.micro_batch)});
          } catch (const MeasurementUnavailable& unavailable) {
            // Not recorded: "not supported" would be remembered; a later bench measures it.
            // Said once per kernel and device (short of memory, most of a kernel's pairs are):
            // the count comes at the end.
            std::lock_guard lock(error_mutex);
            if (warned.emplace(item.kernel, &worker).second) {
              const std::string warning =
                  "ucudnn bench: warning: " + worker.description() + ": " + unavailable.what() +
                  " (not recorded; the other measurements of " + kernels[item.kernel].label() +
                  " that cannot be taken are counted at the end)";
              if (progress)
                progress->say(warning);
              else
                std::fprintf(stderr, "%s\n", warning.c_str());
            }
            if (unavailable_count++ == 0)
              first_unavailable = algorithm + " at micro-batch " +
                                  std::to_string(item.micro_batch) + " of " +
                                  kernels[item.kernel].label() + ": " + unavailable.what();
          }
        }
        if (item_measured) {
          std::lock_guard lock(measured_mutex);
          item_measured(results[i]);
        }
        if (progress)
          progress->step(kernels[item.kernel].label() + ", micro-batch " +
                             std::to_string(item.micro_batch) + ": " +
                             counted(item.algorithms.size(), "algorithm") +
                             (workers.size() > 1 ? " on " + worker.description() : ""),
                         work_weight(kernels, item));
      }
    } catch (const std::exception& e) {
      std::lock_guard lock(error_mutex);
      if (error.empty()) error = worker.description() + ": " + e.what();
    }
  };
  if (workers.size() == 1) {
    run(*workers.front());
  } else {
    std::vector<std::jthread> threads;
    for (Worker* worker : workers) threads.emplace_back([&run, worker] { run(*worker); });
  }
  ShareOutcome outcome;
  outcome.error = error;
  outcome.unavailable = unavailable_count;
  outcome.first_unavailable = first_unavailable;
  for (auto& part : results)
    for (auto& result : part) outcome.results.push_back(std::move(result));
  return outcome;
}

std::string outcome_to_json(const ShareOutcome& outcome) {
  json results = json::array();
  for (const auto& r : outcome.results) {
    json measurement = nullptr;
    if (const auto& m = r.measurement)
      measurement = {m->time_ms, m->min_ms, m->max_ms, m->repeats, m->workspace_bytes};
    results.push_back({r.item, r.algorithm, std::move(measurement)});
  }
  // Doubles are written with enough digits to read back bit for bit.
  return json{{"error", outcome.error},
              {"unavailable", outcome.unavailable},
              {"first_unavailable", outcome.first_unavailable},
              {"results", std::move(results)}}
      .dump(-1, ' ', false, json::error_handler_t::replace);
}

Expected<ShareOutcome> outcome_from_json(const std::string& text, const WorkList& work) {
  try {
    const json document = json::parse(text);
    ShareOutcome outcome;
    outcome.error = document.at("error").get<std::string>();
    // Absent from a rank of an older ucudnn: none.
    outcome.unavailable = document.value("unavailable", std::size_t{0});
    outcome.first_unavailable = document.value("first_unavailable", std::string());
    for (const auto& entry : document.at("results")) {
      WorkResult result{entry.at(0).get<std::size_t>(), entry.at(1).get<std::string>(), {}};
      if (result.item >= work.items.size())
        return Error{"results: item " + std::to_string(result.item) + " is out of range"};
      if (const auto& m = entry.at(2); !m.is_null())
        result.measurement =
            Measurement{m.at(0).get<double>(), m.at(4).get<std::uint64_t>(), m.at(1).get<double>(),
                        m.at(2).get<double>(), m.at(3).get<int>()};
      outcome.results.push_back(std::move(result));
    }
    return outcome;
  } catch (const json::exception& e) {
    return Error{std::string("results: ") + e.what()};
  }
}

std::vector<MeasurementRecord> to_records(const std::vector<NetworkKernel>& kernels,
                                          const WorkList& work,
                                          const std::vector<WorkResult>& results,
                                          const std::string& fingerprint,
                                          const std::string& backend) {
  std::vector<MeasurementRecord> records;
  records.reserve(results.size());
  for (const auto& r : results) {
    const WorkItem& item = work.items.at(r.item);
    records.push_back({fingerprint, kernels.at(item.kernel).key.with_batch(item.micro_batch),
                       backend, r.algorithm, r.measurement, 0});
  }
  return records;
}

}  // namespace ucudnn::cli
