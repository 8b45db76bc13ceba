#pragma once
// `ucudnn bench`'s set-up on each rank: the request, the workers (CPU, or this rank's share of
// its node's GPUs) and the summary every rank sends the others, so that all of them decide
// alike whether to go on (verdict), and rank 0 can say what the ranks share.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench_command.h"
#include "cluster.h"
#include "planning.h"
#include "worker.h"

namespace ucudnn::cli {

// What each rank tells the others after setting up.
struct RankSetup {
  int status = 0;  // 0: ready; else the exit status
  std::string error;
  std::string fingerprint;
  std::string devices;
  std::string host;       // the node's name; empty from a rank of an older ucudnn
  std::string addresses;  // the devices' addresses on the node (Worker::address), as devices
};
std::string to_json(const RankSetup& setup);
RankSetup rank_setup_from_json(const std::string& text);

struct Setup {
  std::optional<PlanningRequest> request;
  std::vector<std::unique_ptr<Worker>> workers;
  RankSetup summary;
};
Setup set_up(const BenchOptions& options, const Cluster& cluster,
             const Expected<NetworkText>& network);

// The common verdict of all ranks' set-ups: the exit status and what rank 0 says.
std::pair<int, std::string> verdict(const std::vector<RankSetup>& setups);

// Ranks of one node on the same GPUs (by their addresses: ranks may number them alike, each
// with a CUDA_VISIBLE_DEVICES of its own) measure side by side and disturb each other's
// timings: a note naming them, or nullopt.
std::optional<std::string> shared_gpus_note(const std::vector<RankSetup>& setups);

}  // namespace ucudnn::cli
