// ucudnn-bench-cpu: every CPU solver on AlexNet's and ResNet-50's convolutions, timed
// side by side (interleaved repeats, medians), against oneDNN's own choice; the GEMM phase
// of LOWERING_BATCHED against OpenBLAS's own threading on the same shape; and the µ-cuDNN
// effect on the CPU: WR plans under a per-kernel workspace limit vs the fastest undivided
// solver that fits, both run for real; and in 3-d, our N-d solvers against oneDNN's best on
// C3D's layers.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>

#include "aligned_buffer.h"
#include "core/memoizing_benchmarker.h"
#include "core/workspace_reuse.h"
#include "cpu_benchmarker.h"
#include "gemm.h"
#include "geometry.h"
#include "geometry_nd.h"
#include "host_tensors.h"
#include "networks/network.h"
#include "openmp_environment.h"
#include "plan_executor.h"
#include "solver_registry.h"
#include "thread_pool.h"
#include "user_input/byte_size.h"

using namespace ucudnn;
using namespace ucudnn::cpu;

namespace {

double seconds_of(const std::function<void()>& run) {
  const auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

double geomean(const std::vector<double>& v) {
  if (v.empty()) return std::nan("");
  double log_sum = 0;
  for (double x : v) log_sum += std::log(x);
  return std::exp(log_sum / static_cast<double>(v.size()));
}

// Times each entry `repeats` times, interleaved (one run of each per round), after one
// warm-up round; returns the median seconds of each.
std::vector<double> interleaved_medians(const std::vector<std::function<void()>>& runs,
                                        int repeats) {
  std::vector<std::vector<double>> times(runs.size());
  for (const auto& run : runs) run();
  for (int r = 0; r < repeats; ++r)
    for (std::size_t i = 0; i < runs.size(); ++i) times[i].push_back(seconds_of(runs[i]));
  std::vector<double> medians;
  for (auto& t : times) medians.push_back(median(t));
  return medians;
}

struct Layer {
  std::string name;
  ConvolutionProblem problem;
};

std::vector<Layer> benchmark_layers(std::int64_t batch) {
  std::vector<Layer> layers;
  for (auto& conv : alexnet_convolutions(batch))
    layers.push_back({"alexnet/" + conv.name, conv.problem});
  const std::pair<const char*, std::int64_t> resnet[] = {
      {"res2", 56}, {"res3", 28}, {"res4", 14}, {"res5", 7}};
  std::int64_t channels = 64;
  for (const auto& [name, size] : resnet) {
    layers.push_back({std::string("resnet50/") + name + "_3x3",
                      make_conv2d_problem({batch, channels, size, size, channels, 3, 3, 1, 1})});
    channels *= 2;
  }
  return layers;
}

// The GEMM that LOWERING_BATCHED runs for one group of a kernel: (m, n, k, transposes).
struct GemmShape {
  std::size_t m, n, k;
  Transpose ta, tb;
};
GemmShape batched_gemm_shape(const KernelKey& kernel) {
  const Geometry g(kernel.problem);
  const auto rows = static_cast<std::size_t>(g.cg * g.r * g.s),
             columns = static_cast<std::size_t>(g.n * g.p * g.q);
  const auto kg = static_cast<std::size_t>(g.kg);
  switch (kernel.operation) {
    case Operation::kForward:
      return {kg, columns, rows, Transpose::kNo, Transpose::kNo};
    case Operation::kBackwardData:
      return {rows, columns, kg, Transpose::kYes, Transpose::kNo};
    default:
      return {kg, rows, columns, Transpose::kNo, Transpose::kYes};
  }
}

// Every applicable solver on each layer and operation, interleaved; prints a row per solver
// and returns the medians in `solvers` order.
std::vector<double> time_solvers(const std::string& layer, const KernelKey& kernel,
                                 const std::vector<const Solver*>& solvers, int repeats,
                                 ThreadPool& pool, std::mt19937_64& random) {
  std::size_t workspace_bytes = 0;
  for (const auto* s : solvers)
    workspace_bytes = std::max(workspace_bytes, s->workspace_bytes(kernel));
  HostTensors buffers(kernel.problem, random);
  AlignedBuffer workspace(workspace_bytes);
  std::vector<std::function<void()>> runs;
  for (const auto* s : solvers)
    runs.push_back([&, s] {
      s->run(kernel, buffers.tensors(), {1, 0}, {workspace.data(), workspace.size()}, pool);
    });
  const auto medians = interleaved_medians(runs, repeats);
  const double flops = GeometryNd(kernel.problem).flops();
  for (std::size_t i = 0; i < solvers.size(); ++i)
    std::printf("%-20s %-14s %-22s %10.2f %9.1f %10s\n", layer.c_str(),
                std::string(name_of(kernel.operation)).c_str(),
                std::string(solvers[i]->name()).c_str(), medians[i] * 1e3, flops / medians[i] / 1e9,
                format_byte_size(solvers[i]->workspace_bytes(kernel)).c_str());
  return medians;
}

std::vector<const Solver*> applicable_solvers(const KernelKey& kernel,
                                              const std::function<bool(const Solver&)>& wanted) {
  std::vector<const Solver*> solvers;
  for (const auto* s : all_solvers())
    if (wanted(*s) && s->applies(kernel)) solvers.push_back(s);
  return solvers;
}

constexpr Operation kOperations[] = {Operation::kForward, Operation::kBackwardData,
                                     Operation::kBackwardFilter};

struct SolverTableResults {
  std::vector<double> planner_ratios, winograd_ratios, gemm_fractions;
};

SolverTableResults solver_table(std::int64_t batch, int repeats, ThreadPool& pool,
                                std::mt19937_64& random) {
  std::printf("%-20s %-14s %-22s %10s %9s %10s\n", "layer", "operation", "solver", "ms", "GFLOP/s",
              "workspace");
  SolverTableResults results;
  for (const auto& layer : benchmark_layers(batch)) {
    for (auto op : kOperations) {
      const KernelKey kernel{op, layer.problem};
      const auto solvers = applicable_solvers(kernel, [](const Solver&) { return true; });
      const auto medians = time_solvers(layer.name, kernel, solvers, repeats, pool, random);
      double best = INFINITY, onednn = NAN, winograd = INFINITY;
      for (std::size_t i = 0; i < solvers.size(); ++i) {
        const auto name = solvers[i]->name();
        best = std::min(best, medians[i]);
        if (name == "ONEDNN_AUTO") onednn = medians[i];
        if (name.starts_with("WINOGRAD")) winograd = std::min(winograd, medians[i]);
      }
      if (!std::isnan(onednn)) {
        results.planner_ratios.push_back(onednn / best);
        if (std::isfinite(winograd)) results.winograd_ratios.push_back(onednn / winograd);
        std::printf("%-20s %-14s planner's choice vs oneDNN's: %.2fx\n", layer.name.c_str(),
                    std::string(name_of(op)).c_str(), onednn / best);
      }
      if (find_solver("LOWERING_BATCHED")->applies(kernel)) {
        const auto shape = batched_gemm_shape(kernel);
        std::vector<float> a(shape.m * shape.k, 0.5f), b(shape.k * shape.n, 0.25f),
            c(shape.m * shape.n);
        const std::size_t lda = shape.ta == Transpose::kNo ? shape.k : shape.m;
        const std::size_t ldb = shape.tb == Transpose::kNo ? shape.n : shape.k;
        const auto times = interleaved_medians(
            {[&] {
               parallel_sgemm(pool, shape.ta, shape.tb, shape.m, shape.n, shape.k, 1, a.data(), lda,
                              b.data(), ldb, 0, c.data(), shape.n);
             },
             [&] {
               blas_threaded_sgemm(pool.size(), shape.ta, shape.tb, shape.m, shape.n, shape.k, 1,
                                   a.data(), lda, b.data(), ldb, 0, c.data(), shape.n);
             }},
            repeats);
        results.gemm_fractions.push_back(times[1] / times[0]);
        std::printf(
            "%-20s %-14s LOWERING_BATCHED GEMM %zux%zux%zu: %.1f GFLOP/s, OpenBLAS threaded %.1f "
            "GFLOP/s\n",
            layer.name.c_str(), std::string(name_of(op)).c_str(), shape.m, shape.n, shape.k,
            2.0 * shape.m * shape.n * shape.k / times[0] / 1e9,
            2.0 * shape.m * shape.n * shape.k / times[1] / 1e9);
      }
    }
  }
  return results;
}

// Per operation, the geomean over C3D's layers of oneDNN's best time / our best time.
struct C3dRatios {
  double by_operation[3] = {NAN, NAN, NAN};
};

// C3D's 3x3x3 layers: our N-d solvers (Winograd, lowering) against the best of oneDNN's,
// side by side. DIRECT_ND, the plain loop nest kept as a correct fallback for any shape, is
// left out: it is far slower than every other solver here.
C3dRatios c3d_table(std::int64_t batch, int repeats, ThreadPool& pool, std::mt19937_64& random) {
  const auto network = builtin_network("c3d", batch);
  std::printf("\nC3D, batch %lld: our N-d solvers vs oneDNN's best\n",
              static_cast<long long>(batch));
  std::printf("%-20s %-14s %-22s %10s %9s %10s\n", "layer", "operation", "solver", "ms", "GFLOP/s",
              "workspace");
  C3dRatios ratios;
  std::vector<double> by_operation[3];
  for (const auto& layer : network->layers) {
    for (int o = 0; o < 3; ++o) {
      const KernelKey kernel{kOperations[o], layer.problem};
      const auto solvers =
          applicable_solvers(kernel, [](const Solver& s) { return s.name() != "DIRECT_ND"; });
      const auto medians =
          time_solvers("c3d/" + layer.name, kernel, solvers, repeats, pool, random);
      std::size_t ours = solvers.size(), onednn = solvers.size();
      for (std::size_t i = 0; i < solvers.size(); ++i) {
        std::size_t& best = solvers[i]->name().starts_with("ONEDNN_") ? onednn : ours;
        if (best == solvers.size() || medians[i] < medians[best]) best = i;
      }
      if (ours == solvers.size() || onednn == solvers.size()) continue;
      by_operation[o].push_back(medians[onednn] / medians[ours]);
      std::printf("%-20s %-14s ours (%s) vs oneDNN's best (%s): %.2fx\n",
                  ("c3d/" + layer.name).c_str(), std::string(name_of(kOperations[o])).c_str(),
                  std::string(solvers[ours]->name()).c_str(),
                  std::string(solvers[onednn]->name()).c_str(), by_operation[o].back());
    }
  }
  for (int o = 0; o < 3; ++o) {
    ratios.by_operation[o] = geomean(by_operation[o]);
    std::printf("C3D %s: ours vs oneDNN's best, geomean %.2fx\n",
                std::string(name_of(kOperations[o])).c_str(), ratios.by_operation[o]);
  }
  return ratios;
}

struct WrResults {
  std::map<std::uint64_t, double> speedups;
  std::vector<double> prediction_errors;  // |measured/planned - 1| of every WR plan
};

// The µ-cuDNN effect: AlexNet under per-kernel limits, WR plan vs the fastest undivided solver
// that fits.
WrResults wr_comparison(std::int64_t batch, const BatchSizePolicy& policy,
                        const std::string& policy_name, int repeats, ThreadPool& pool,
                        std::mt19937_64& random) {
  std::printf("\nWR on the CPU: AlexNet, batch %lld, policy %s\n", static_cast<long long>(batch),
              policy_name.c_str());
  CpuBenchmarker device(pool, {1, 3, 0.3, {}});
  MemoizingBenchmarker memo(device);
  std::vector<KernelKey> kernels;
  std::vector<std::string> names;
  std::vector<MicroTable> tables;
  for (const auto& conv : alexnet_convolutions(batch))
    for (auto op : kOperations) {
      kernels.push_back({op, conv.problem});
      names.push_back(conv.name + " " + std::string(name_of(op)));
      std::fprintf(stderr, "benchmarking %s\n", names.back().c_str());
      tables.push_back(measure_micro_table(memo, kernels.back(), policy, kNoWorkspaceLimit));
    }
  WrResults results;
  for (std::uint64_t limit : {std::uint64_t{8} << 20, std::uint64_t{64} << 20}) {
    double plan_total = 0, undivided_total = 0;
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      const auto limited = restrict_to_limit(tables[i], limit);
      auto plan = plan_workspace_reuse(limited);
      const auto* undivided = fastest(limited.candidates.back());
      if (!plan || !undivided) {
        std::printf("%s: nothing fits %s\n", names[i].c_str(), format_byte_size(limit).c_str());
        continue;
      }
      HostTensors buffers(kernels[i].problem, random);
      const Configuration whole{{*undivided}};
      AlignedBuffer workspace(std::max(configuration_workspace_bytes(kernels[i], *plan),
                                       configuration_workspace_bytes(kernels[i], whole)));
      const Workspace ws{workspace.data(), workspace.size()};
      const auto times = interleaved_medians(
          {[&] {
             run_configuration(kernels[i], *plan, buffers.tensors(), {1, 0}, ws, pool);
           },
           [&] {
             run_configuration(kernels[i], whole, buffers.tensors(), {1, 0}, ws, pool);
           }},
          repeats);
      plan_total += times[0];
      undivided_total += times[1];
      results.prediction_errors.push_back(std::abs(times[0] * 1e3 / plan->time_ms() - 1));
      std::printf("%-8s %-22s %-50s %8.2f ms (planned %8.2f) | %-20s %8.2f ms | %.2fx\n",
                  format_byte_size(limit).c_str(), names[i].c_str(), plan->to_string().c_str(),
                  times[0] * 1e3, plan->time_ms(), undivided->algorithm.c_str(), times[1] * 1e3,
                  times[1] / times[0]);
    }
    results.speedups[limit] = undivided_total / plan_total;
    std::printf("%s: WR plan %.1f ms vs fastest undivided that fits %.1f ms: %.2fx\n\n",
                format_byte_size(limit).c_str(), plan_total * 1e3, undivided_total * 1e3,
                results.speedups[limit]);
  }
  return results;
}

}  // namespace

int main(int argc, char** argv) {
  relaunch_with_passive_openmp(argv);
  CLI::App app{"CPU solvers side by side, against oneDNN, and the µ-cuDNN effect on the CPU"};
  std::int64_t batch = 32, wr_batch = 64, c3d_batch = 4;
  int repeats = 5;
  std::string wr_policy = "all";
  std::vector<std::string> parts = {"solvers", "c3d", "wr"};
  app.add_option("--batch", batch, "batch of the solver table (1, 8, 32, ...)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--repeats", repeats, "interleaved repeats; medians are reported")
      ->check(CLI::Range(1, 100));
  app.add_option("--wr-batch", wr_batch, "AlexNet batch of the WR comparison")
      ->check(CLI::Range(1, 1024));
  app.add_option("--wr-policy", wr_policy, "batch size policy of the WR comparison");
  app.add_option("--c3d-batch", c3d_batch, "batch of the C3D comparison")->check(CLI::Range(1, 64));
  app.add_option("--parts", parts, "which parts to run: solvers, c3d, wr (default: all)")
      ->check(CLI::IsMember({"solvers", "c3d", "wr"}));
  CLI11_PARSE(app, argc, argv);
  auto policy = parse_batch_size_policy(wr_policy);
  if (!policy) {
    std::fprintf(stderr, "ucudnn-bench-cpu: --wr-policy: %s\n", policy.error().c_str());
    return 2;
  }
  const auto wanted = [&](const char* part) {
    return std::find(parts.begin(), parts.end(), part) != parts.end();
  };

  ThreadPool pool;
  std::mt19937_64 random(std::random_device{}());
  std::printf(
      "ucudnn-bench-cpu: batch %lld, %u threads, BLAS kernel %s, %d interleaved repeats "
      "(medians)\n\n",
      static_cast<long long>(batch), pool.size(), blas_kernel_name(), repeats);

  SolverTableResults table;
  if (wanted("solvers")) table = solver_table(batch, repeats, pool, random);
  C3dRatios c3d;
  if (wanted("c3d")) c3d = c3d_table(c3d_batch, repeats, pool, random);
  WrResults wr;
  if (wanted("wr")) wr = wr_comparison(wr_batch, *policy, wr_policy, repeats, pool, random);

  std::printf(
      "cpu-summary planner_vs_onednn_geomean=%.2f winograd_vs_onednn=%.2f gemm_fraction=%.2f "
      "wr_speedup_8MiB=%.2f wr_speedup_64MiB=%.2f predicted_vs_measured=%.3f "
      "c3d_forward_vs_onednn=%.2f c3d_backward_data_vs_onednn=%.2f "
      "c3d_backward_filter_vs_onednn=%.2f\n",
      geomean(table.planner_ratios), geomean(table.winograd_ratios), median(table.gemm_fractions),
      wr.speedups.count(std::uint64_t{8} << 20) ? wr.speedups[std::uint64_t{8} << 20] : NAN,
      wr.speedups.count(std::uint64_t{64} << 20) ? wr.speedups[std::uint64_t{64} << 20] : NAN,
      median(wr.prediction_errors), c3d.by_operation[0], c3d.by_operation[1], c3d.by_operation[2]);
  return 0;
}
