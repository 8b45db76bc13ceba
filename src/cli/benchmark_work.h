#pragma once
// The benchmarking of `ucudnn bench` as a list of work items: each distinct micro-batch
// kernel of the network (a kernel at one of the policy's micro-batch sizes; repeated layers
// and shared sizes are measured once) with the algorithms the database does not have yet.
// The list is what a cluster shares out: rank 0 makes it, every rank measures its share
// (share_of), and the results travel back to rank 0 as JSON.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/batch_size_policy.h"
#include "core/benchmark_store.h"
#include "network_kernels.h"
#include "progress.h"
#include "worker.h"

namespace ucudnn::cli {

struct WorkItem {
  std::size_t kernel = 0;  // the first network kernel with this micro-batch kernel
  std::int64_t micro_batch = 0;
  std::vector<std::string> algorithms;  // still to measure
};

struct WorkList {
  std::vector<WorkItem> items;  // only items with something to measure
  std::size_t reused = 0;       // measurements already stored
  std::size_t measurements() const;
};

// `algorithms` lists a kernel's algorithms (the device's Benchmarker::algorithms).
WorkList find_missing_work(const std::vector<NetworkKernel>& kernels, BatchSizePolicy policy,
                           Benchmarker& device, BenchmarkStore& store,
                           const std::string& fingerprint);

// The expected cost of an item, for progress estimates.
double work_weight(const std::vector<NetworkKernel>& kernels, const WorkItem& item);

// The items (indices into work.items, ascending) that rank `rank` of `ranks` measures. The
// heaviest item goes first to the rank with the least work so far (work_weight), so that the
// ranks finish together; items in list order, one rank after another, gave each rank the same
// micro-batch sizes (with 3 ranks, one had every size-1 item and another 4x its work). Every
// rank computes the same shares from the same list.
std::vector<std::size_t> share_of(int rank, int ranks, const std::vector<NetworkKernel>& kernels,
                                  const WorkList& work);

std::string work_to_json(const WorkList& work);
Expected<WorkList> work_from_json(const std::string& text, std::size_t kernel_count);

struct WorkResult {
  std::size_t item = 0;
  std::string algorithm;
  std::optional<Measurement> measurement;  // empty: not supported
};

struct ShareOutcome {
  std::vector<WorkResult> results;  // ordered by item, then algorithm as listed
  std::string error;                // empty unless a worker failed
  // Measurements that could not be taken now (MeasurementUnavailable: memory, a busy device),
  // each warned about and left for a later bench; the first one's description.
  std::size_t unavailable = 0;
  std::string first_unavailable;
};

// Called with each item's results as soon as it is measured, one call at a time whatever the
// workers' threads: where the database is at hand, they are stored then, so that a bench
// stopped midway keeps what it measured.
using ItemMeasured = std::function<void(const std::vector<WorkResult>&)>;

// Measures the items `share` (indices into work.items) with every worker at once, one
// thread per worker, each taking the next item when done with one.
ShareOutcome measure_share(const std::vector<NetworkKernel>& kernels, const WorkList& work,
                           const std::vector<std::size_t>& share,
                           const std::vector<Worker*>& workers, Progress* progress,
                           const ItemMeasured& item_measured = {});

std::string outcome_to_json(const ShareOutcome& outcome);
Expected<ShareOutcome> outcome_from_json(const std::string& text, const WorkList& work);

std::vector<MeasurementRecord> to_records(const std::vector<NetworkKernel>& kernels,
                                          const WorkList& work,
                                          const std::vector<WorkResult>& results,
                                          const std::string& fingerprint,
                                          const std::string& backend);

}  // namespace ucudnn::cli
