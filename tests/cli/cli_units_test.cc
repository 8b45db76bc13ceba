// The pieces of the `ucudnn` tool that need no device: the kernels of a network and the WD
// key, the work list and results as they travel between ranks, device selection. The plan check
// and the progress bar have files of their own.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "benchmark_work.h"
#include "cluster.h"
#include "common_options.h"
#include "core/memory_store.h"
#include "exclusion_review.h"
#include "network_kernels.h"
#include "support/random_seed.h"
#include "support/scoped_environment.h"
#include "support/table_benchmarker.h"
#ifdef UCUDNN_CLI_HAVE_CUDNN
#include "device_selection.h"
#endif

namespace ucudnn::cli {
namespace {

using Variables = std::map<std::string, std::string>;
Environment environment_of(const Variables& variables) {
  return [variables](const char* name) -> const char* {
    auto found = variables.find(name);
    return found == variables.end() ? nullptr : found->second.c_str();
  };
}

TEST(NetworkKernels, ThreeKernelsPerLayerInFileOrder) {
  const auto kernels = network_kernels(*builtin_network("alexnet", 8));
  ASSERT_EQ(kernels.size(), 15u);
  EXPECT_EQ(kernels[0].label(), "conv1 Forward");
  EXPECT_EQ(kernels[4].label(), "conv2 BackwardData");
  EXPECT_EQ(kernels[14].label(), "conv5 BackwardFilter");
  EXPECT_EQ(kernels[14].key.problem.batch(), 8);
}

TEST(NetworkKernels, RepeatedLayersAreOneKernelInTheNetworkKey) {
  const auto kernels = network_kernels(*builtin_network("resnet50", 2));
  ASSERT_EQ(kernels.size(), 159u);
  const auto distinct = distinct_kernels(kernels);
  std::size_t uses = 0;
  for (const auto& d : distinct) {
    uses += d.uses.size();
    EXPECT_EQ(d.uses.front(), d.first);
    for (auto use : d.uses) EXPECT_EQ(kernels[use].key, kernels[d.first].key);
  }
  EXPECT_EQ(uses, kernels.size());
  EXPECT_LT(distinct.size(), kernels.size());  // res2b and res2c are res2b again, ...
}

// A store that has some measurements, and a table device that lists algorithms.
TEST(BenchmarkWork, ListsOnlyWhatTheStoreLacksOncePerMicroKernel) {
  Network network;
  network.layers = {{"a", make_conv2d_problem({8, 4, 8, 8, 4, 3, 3, 1, 1})},
                    {"b", make_conv2d_problem({8, 4, 8, 8, 4, 3, 3, 1, 1})}};  // a again
  const auto kernels = network_kernels(network);
  testing::TableBenchmarker device({"A", "B"});
  MemoryStore store;
  const std::string fingerprint = device.fingerprint().to_string();
  store.put_measurements(
      {{fingerprint, kernels[0].key.with_batch(4), "table", "A", Measurement{2, 0}, 0}});
  const WorkList work =
      find_missing_work(kernels, BatchSizePolicy::kPowerOfTwo, device, store, fingerprint);
  // 3 operations x sizes 1, 2, 4, 8 x 2 algorithms, layer b repeating a; one stored.
  EXPECT_EQ(work.items.size(), 12u);
  EXPECT_EQ(work.measurements(), 23u);
  EXPECT_EQ(work.reused, 1u);
  for (const auto& item : work.items) EXPECT_LT(item.kernel, 9u);  // never layer b's
}

// A device with no memory for algorithm "B" from micro-batch 4 up.
class ShortOfMemory final : public Benchmarker {
 public:
  std::string backend_name() const override { return "table"; }
  DeviceFingerprint fingerprint() const override { return {{{"kind", "table"}}}; }
  std::vector<std::string> algorithms(const KernelKey&) override { return {"A", "B"}; }
  std::optional<Measurement> benchmark(const KernelKey&, const std::string& algorithm,
                                       std::int64_t micro_batch) override {
    if (algorithm == "B" && micro_batch >= 4) throw MeasurementUnavailable("not enough memory");
    return Measurement{1.0 * static_cast<double>(micro_batch), 0};
  }
};

class ShortOfMemoryWorker final : public Worker {
 public:
  std::string description() const override { return "the table"; }
  std::optional<SideBySideRuns> run_side_by_side(const KernelKey&, const Configuration&,
                                                 const Configuration&, int) override {
    return std::nullopt;
  }

 private:
  Benchmarker& device_benchmarker() override { return device_; }
  ShortOfMemory device_;
};

// What could not be measured now is counted and named, here and across ranks: bench then says
// so instead of planning without it (it used to call the gap an internal error).
TEST(BenchmarkWork, MeasurementsThatCannotBeTakenNowAreCountedAndNamed) {
  Network network;
  network.layers = {{"a", make_conv2d_problem({8, 4, 8, 8, 4, 3, 3, 1, 1})}};
  const auto kernels = network_kernels(network);
  ShortOfMemoryWorker worker;
  MemoryStore store;
  const WorkList work = find_missing_work(kernels, BatchSizePolicy::kPowerOfTwo,
                                          worker.benchmarker(), store, "table");
  std::vector<std::size_t> share;
  for (std::size_t i = 0; i < work.items.size(); ++i) share.push_back(i);
  ::testing::internal::CaptureStderr();
  const ShareOutcome outcome = measure_share(kernels, work, share, {&worker}, nullptr);
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  // 3 operations x sizes 1, 2, 4, 8: B is short of memory at 4 and 8.
  EXPECT_EQ(outcome.unavailable, 6u) << warnings;
  EXPECT_EQ(outcome.results.size(), 3u * 4 * 2 - 6);
  EXPECT_TRUE(outcome.error.empty()) << outcome.error;
  EXPECT_NE(outcome.first_unavailable.find("B at micro-batch 4 of a "), std::string::npos)
      << outcome.first_unavailable;
  EXPECT_NE(outcome.first_unavailable.find("not enough memory"), std::string::npos)
      << outcome.first_unavailable;
  const auto received = outcome_from_json(outcome_to_json(outcome), work);
  ASSERT_TRUE(received) << received.error();
  EXPECT_EQ(received->unavailable, outcome.unavailable);
  EXPECT_EQ(received->first_unavailable, outcome.first_unavailable);
}

// The weight of each rank's share of `work` among `ranks`, checking that every item is in
// exactly one share, in item order.
std::vector<double> share_weights(const std::vector<NetworkKernel>& kernels, const WorkList& work,
                                  int ranks) {
  std::vector<int> taken(work.items.size(), 0);
  std::vector<double> weights;
  for (int rank = 0; rank < ranks; ++rank) {
    const auto share = share_of(rank, ranks, kernels, work);
    EXPECT_TRUE(std::is_sorted(share.begin(), share.end()));
    double weight = 0;
    for (const std::size_t i : share) {
      ++taken.at(i);
      weight += work_weight(kernels, work.items[i]);
    }
    weights.push_back(weight);
  }
  EXPECT_EQ(taken, std::vector<int>(work.items.size(), 1)) << "every item once";
  return weights;
}

double spread(const std::vector<double>& weights) {
  const auto [lightest, heaviest] = std::minmax_element(weights.begin(), weights.end());
  return *heaviest - *lightest;
}

WorkList all_work(const std::vector<NetworkKernel>& kernels) {
  testing::TableBenchmarker device({"A", "B", "C"});
  MemoryStore store;
  return find_missing_work(kernels, BatchSizePolicy::kPowerOfTwo, device, store,
                           device.fingerprint().to_string());
}

// Each rank's share weighs about the same, whatever the number of ranks: the heaviest and the
// lightest share differ by at most one item.
TEST(BenchmarkWork, SharesWeighAlike) {
  testing::SeededRandom random;
  Network network;
  for (int layer = 0; layer < 6; ++layer) {
    const auto channels = random.uniform(2, 32), size = random.uniform(4, 32);
    network.layers.push_back(
        {"l" + std::to_string(layer),
         make_conv2d_problem({8, channels, size, size, random.uniform(2, 32), 3, 3, 1, 1})});
  }
  const auto kernels = network_kernels(network);
  const WorkList work = all_work(kernels);
  ASSERT_FALSE(work.items.empty());
  double heaviest_item = 0;
  for (const auto& item : work.items)
    heaviest_item = std::max(heaviest_item, work_weight(kernels, item));
  for (int ranks = 1; ranks <= 5; ++ranks) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    EXPECT_LE(spread(share_weights(kernels, work, ranks)), heaviest_item);
  }
}

// The items of a network come kernel by kernel, micro-batch 1, 2, 4, 8 each, so a round robin
// over them (what ranks took before) gave each rank one micro-batch size: with 4 ranks, one had
// every size-8 item, several times the work of the one with the size-1 items.
TEST(BenchmarkWork, SharesAreNotARoundRobin) {
  Network network;
  for (int layer = 0; layer < 4; ++layer)
    network.layers.push_back({"l" + std::to_string(layer),
                              make_conv2d_problem({8, 64 + 16 * layer, 56, 56, 64, 3, 3, 1, 1})});
  const auto kernels = network_kernels(network);
  const WorkList work = all_work(kernels);
  ASSERT_EQ(work.items.size(), 4u * 3 * 4);
  std::vector<double> round_robin(4, 0.0);
  for (std::size_t i = 0; i < work.items.size(); ++i)
    round_robin[i % 4] += work_weight(kernels, work.items[i]);
  const auto shares = share_weights(kernels, work, 4);
  EXPECT_GT(*std::max_element(round_robin.begin(), round_robin.end()),
            4 * *std::min_element(round_robin.begin(), round_robin.end()));
  EXPECT_LT(spread(shares), 0.05 * *std::max_element(shares.begin(), shares.end()));
}

TEST(BenchmarkWork, WorkAndResultsTravelBitForBit) {
  testing::SeededRandom random;
  WorkList work;
  work.reused = static_cast<std::size_t>(random.uniform(0, 1000));
  ShareOutcome outcome;
  for (int i = 0; i < 50; ++i) {
    work.items.push_back({static_cast<std::size_t>(random.uniform(0, 9)),
                          random.uniform(1, 256),
                          {"FFT", "ALGO_1"}});
    std::optional<Measurement> m;
    if (random.chance(0.8)) {
      std::uniform_real_distribution<double> real(0, 100);
      m = Measurement{real(random.engine()),
                      static_cast<std::uint64_t>(random.uniform(0, 1LL << 62)) * 3,
                      real(random.engine()), std::nextafter(real(random.engine()), 1e9),
                      static_cast<int>(random.uniform(1, 100))};
    }
    outcome.results.push_back({static_cast<std::size_t>(i), "FFT", m});
  }
  auto received = work_from_json(work_to_json(work), 10);
  ASSERT_TRUE(received) << received.error();
  EXPECT_EQ(received->reused, work.reused);
  ASSERT_EQ(received->items.size(), work.items.size());
  for (std::size_t i = 0; i < work.items.size(); ++i) {
    EXPECT_EQ(received->items[i].kernel, work.items[i].kernel);
    EXPECT_EQ(received->items[i].micro_batch, work.items[i].micro_batch);
    EXPECT_EQ(received->items[i].algorithms, work.items[i].algorithms);
  }
  auto results = outcome_from_json(outcome_to_json(outcome), work);
  ASSERT_TRUE(results) << results.error();
  ASSERT_EQ(results->results.size(), outcome.results.size());
  for (std::size_t i = 0; i < outcome.results.size(); ++i) {
    const auto& a = outcome.results[i].measurement;
    const auto& b = results->results[i].measurement;
    ASSERT_EQ(a.has_value(), b.has_value());
    if (!a) continue;
    EXPECT_EQ(a->time_ms, b->time_ms);  // exactly: doubles are written in full
    EXPECT_EQ(a->min_ms, b->min_ms);
    EXPECT_EQ(a->max_ms, b->max_ms);
    EXPECT_EQ(a->repeats, b->repeats);
    EXPECT_EQ(a->workspace_bytes, b->workspace_bytes);
  }
  EXPECT_FALSE(work_from_json("{\"reused\": 0, \"items\": [[99, 1, []]]}", 10));
  EXPECT_FALSE(outcome_from_json("not json", work));
}

TEST(Cluster, MpiOnlyWhenALauncherStartedUs) {
  EXPECT_FALSE(launched_by_mpi(environment_of({})));
  EXPECT_TRUE(launched_by_mpi(environment_of({{"OMPI_COMM_WORLD_SIZE", "2"}})));
  EXPECT_TRUE(launched_by_mpi(environment_of({{"PMI_SIZE", "4"}})));
  EXPECT_TRUE(launched_by_mpi(environment_of({{"PMIX_RANK", "0"}})));
  auto single = join_cluster(environment_of({}));
  ASSERT_TRUE(single);
  EXPECT_EQ((*single)->size(), 1);
  EXPECT_EQ((*single)->broadcast("x"), "x");
  EXPECT_EQ((*single)->gather("y"), std::vector<std::string>{"y"});
}

// The exclusion the user set in the environment is named by its variable, in errors as in the
// warnings about its entries (it was named --exclude-algorithms, which the user never typed).
TEST(PlanningRequest, AnExclusionIsNamedByWhereItCameFrom) {
  PlanningOptions options;
  {
    const testing::ScopedEnvironment variable("UCUDNN_EXCLUDE_ALGORITHMS", "abc");
    const auto from_variable = resolve(options);
    ASSERT_FALSE(from_variable);
    EXPECT_EQ(from_variable.error().rfind("UCUDNN_EXCLUDE_ALGORITHMS: 'abc' is not", 0), 0u)
        << from_variable.error();
    options.exclude_algorithms = "cpu:DIRECT";  // the option wins over the variable
    const auto from_option = resolve(options);
    ASSERT_TRUE(from_option) << from_option.error();
    EXPECT_EQ(from_option->excluded_by, "--exclude-algorithms");
    EXPECT_TRUE(from_option->excluded.excludes("cpu", "DIRECT"));
    // Given empty, the option clears the variable's exclusion (bench then stores its plans).
    options.exclude_algorithms = "";
    options.exclude_algorithms_given = true;
    const auto cleared = resolve(options);
    ASSERT_TRUE(cleared) << cleared.error();
    EXPECT_TRUE(cleared->excluded.empty());
    options.exclude_algorithms_given = false;
  }
  const testing::ScopedEnvironment variable("UCUDNN_EXCLUDE_ALGORITHMS", "cpu:nosuch");
  const auto request = resolve(options);
  ASSERT_TRUE(request) << request.error();
  EXPECT_EQ(request->excluded_by, "UCUDNN_EXCLUDE_ALGORITHMS");
  ExclusionAccount account(request->excluded);
  std::vector<std::string> names = {"DIRECT"};
  const auto kernels = network_kernels(request->network);
  for (const auto& kernel : kernels) account.filter("cpu", kernel.key, names);
  const auto review = review_exclusion(account, request->excluded_by, "cpu", kernels, {"cpu"});
  ASSERT_EQ(review.warnings.size(), 1u);
  EXPECT_EQ(
      review.warnings[0].rfind("UCUDNN_EXCLUDE_ALGORITHMS entry 'cpu:nosuch' matched none", 0), 0u)
      << review.warnings[0];
}

#ifdef UCUDNN_CLI_HAVE_CUDNN
TEST(DeviceSelection, OptionThenEnvironmentThenCurrent) {
  auto current = device_choice("", environment_of({}));
  ASSERT_TRUE(current);
  EXPECT_EQ(current->kind, DeviceChoice::Kind::kCurrent);
  auto all = device_choice("", environment_of({{"UCUDNN_BENCHMARK_DEVICES", "all"}}));
  ASSERT_TRUE(all);
  EXPECT_EQ(all->kind, DeviceChoice::Kind::kAll);
  auto listed = device_choice("", environment_of({{"UCUDNN_DEVICES", "1,0"}}));
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->list, (std::vector<int>{1, 0}));
  auto option = device_choice("2", environment_of({{"UCUDNN_DEVICES", "all"}}));
  ASSERT_TRUE(option);
  EXPECT_EQ(option->list, std::vector<int>{2});

  auto bad_option = device_choice("0,x", environment_of({}));
  ASSERT_FALSE(bad_option);
  EXPECT_EQ(bad_option.error(),
            "--devices='0,x' is not \"all\" or a list of device numbers like 0,1");
  auto bad_variable = device_choice("", environment_of({{"UCUDNN_DEVICES", "-1"}}));
  ASSERT_FALSE(bad_variable);
  EXPECT_EQ(bad_variable.error(),
            "UCUDNN_DEVICES='-1' is not \"all\" or a list of device numbers like 0,1");
}

TEST(DeviceSelection, ResolvesOnTheMachine) {
  EXPECT_EQ(*resolve_devices({}, 4, 2), std::vector<int>{2});
  EXPECT_EQ(*resolve_devices({DeviceChoice::Kind::kAll, {}}, 3, 0), (std::vector<int>{0, 1, 2}));
  auto missing = resolve_devices({DeviceChoice::Kind::kList, {0, 3}}, 2, 0);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error(), "--devices: GPU 3 does not exist (this machine has 2 GPUs)");
  auto twice = resolve_devices({DeviceChoice::Kind::kList, {1, 1}}, 2, 0);
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error(), "--devices: GPU 1 is listed twice");
  // Named by what gave the list: the user set a variable, not the option.
  auto from_variable = device_choice("", environment_of({{"UCUDNN_DEVICES", "0,7"}}));
  ASSERT_TRUE(from_variable);
  auto missing_there = resolve_devices(*from_variable, 2, 0);
  ASSERT_FALSE(missing_there);
  EXPECT_EQ(missing_there.error(),
            "UCUDNN_DEVICES: GPU 7 does not exist (this machine has 2 GPUs)");
}

TEST(DeviceSelection, RanksOfANodeShareItsDevices) {
  const std::vector<int> four = {0, 1, 2, 3};
  EXPECT_EQ(devices_of_local_rank(four, 0, 1), four);
  EXPECT_EQ(devices_of_local_rank(four, 1, 4), std::vector<int>{1});
  EXPECT_EQ(devices_of_local_rank(four, 1, 2), (std::vector<int>{1, 3}));
  EXPECT_EQ(devices_of_local_rank({0, 1}, 3, 4), std::vector<int>{1});
}

TEST(DeviceSelection, RefusesMixedModels) {
  EXPECT_FALSE(mixed_models_error({{0, "NVIDIA H100"}, {1, "NVIDIA H100"}}));
  auto mixed = mixed_models_error({{0, "NVIDIA H100"}, {1, "NVIDIA A100"}});
  ASSERT_TRUE(mixed);
  EXPECT_NE(mixed->find("different models (0: NVIDIA H100, 1: NVIDIA A100)"), std::string::npos)
      << *mixed;
}
#endif

}  // namespace
}  // namespace ucudnn::cli
