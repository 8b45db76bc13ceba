#pragma once
// The WD tests' training loop on the doubles (preloaded shim, UCUDNN_TOTAL_WORKSPACE_SIZE set):
// a network A B B B C (a repeated shape, as in every ResNet stage) and a second tower of other
// shapes, trained as frameworks drive cuDNN's legacy API, with what the doubles counted per
// iteration; and what the planner itself finds optimal for the same networks.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "device_harness.h"

namespace ucudnn::testing::division {

// A layer: channels in and out, a square filter and its padding, on kSize x kSize images.
struct Shape {
  int c, k, filter, pad;
};
inline constexpr int kSize = 16;
// A B B B C: B three times, one kernel per operation with three runs per iteration.
extern const std::vector<Shape> kNetwork;
// A second tower of other shapes (A' B' B' B' C'), for two towers on two streams.
extern const std::vector<Shape> kTower;

std::uint64_t total_workspace();  // UCUDNN_TOTAL_WORKSPACE_SIZE, as CTest sets it

struct Scenario {
  int handles = 1;               // 2: backward on a second handle, run from another thread
  bool two_streams = false;      // with 2 handles: each its own stream, layers alternating
  bool lazy = false;             // select right before a layer's first call, not up front
  std::vector<int> batches{16};  // per iteration, cycled
  int iterations = 5;
  int second_tower_stops_at = -1;  // from this iteration on, only the first tower runs
  // kNetwork and kTower side by side, each on a handle and stream of its own (none waits for
  // the other), or both on one stream (their work serialized).
  bool towers = false;
  bool towers_on_one_stream = false;
  // When set, the device is filled (by the application) until only this much is free.
  std::size_t leave_free = 0;
};

struct Outcome {
  std::vector<double> iteration_ms;
  std::vector<std::vector<double>> stream_ms;  // per iteration, each stream's own time
  std::vector<TraceCounts> counts;             // per iteration, below the shim
  std::size_t held_bytes = 0;  // device memory ucudnn holds after the last iteration
  int races = 0;
  int failed_allocations = 0;
};

// Trains kNetwork (and kTower) as the scenario says; without towers on one stream shared by
// the handles (PyTorch's threads use the device's current stream).
Outcome train(const Scenario& scenario, std::mt19937_64& random);

// What the planner finds optimal for the towers at `batch` within the total, each tower's
// B kernel run three times per iteration (the shim measures the same model, so times agree
// exactly but for the float the doubles' events report). Towers in one sharing group share a
// segment (one stream); in groups of their own each gets a segment. time_ms: the iteration's
// time when the groups run side by side (the slowest group), and each group's.
struct Optimum {
  double time_ms = 0;
  std::uint64_t arena_bytes = 0;
  std::vector<double> group_ms;
};
Optimum planner_optimum(int batch, const std::vector<const std::vector<Shape>*>& towers,
                        const std::vector<std::size_t>& group_of_tower);
Optimum planner_optimum(int batch);  // kNetwork alone

// Nothing allocated, freed or synchronized from iteration `from` on.
void expect_steady(const Outcome& outcome, std::size_t from, const char* what);
void print(const char* what, const Outcome& outcome);

}  // namespace ucudnn::testing::division
