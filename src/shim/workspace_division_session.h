#pragma once
// WD under LD_PRELOAD, for one device: every handle on the device that asks for the same total
// (and batch-size policy) shares one session, so one arena serves the whole network however
// the framework spreads it over threads and handles (PyTorch: a handle per thread, backward on
// the autograd thread).
//
// Learning. The application never says which kernels make up its network, so the session
// watches the runs. An iteration is found when the runs end in two equal copies of a sequence
// that contains every kernel run since learning began (A B B of a network A B B B C is not
// one). The ILP then divides one arena (one cudaMalloc) among the iteration's groups, each
// weighted by its runs in the iteration. Kernels that differ only in the batch size form one
// group with one segment, divided for the largest; the others run a WR plan within it. After
// the division the session follows the iteration a run at a time, which costs no allocation
// or synchronization; a run that departs from it starts learning again (segments stay in use
// meanwhile), and the next iteration found is divided again only when its groups or their
// relative weights differ. Groups not in it then age out.
//
// Stored divisions. A division is stored under the set of its kernels and their runs per
// iteration (core/division_key.h), as `ucudnn bench --total-workspace` stores one made
// offline. When learning finds an iteration, a stored division of it is used, after
// validation, instead of measuring and solving. Before that, at the first kernel the session
// sees, a stored division for this device, total and policy that lists the kernel is taken
// at once: the arena is allocated and each of its kernels runs in its segment from its first
// call, so that a job planned offline measures nothing, from its first iteration on.
//
// A kernel without a segment runs the best WR plan within what is left of the total beside
// the arena, in a scratch buffer: never in the zero bytes the application was told it needs.
// Segments and the scratch buffer remember the stream that last used them; a use on another
// stream first waits for that stream's work (an event, no host synchronization).
//
// Placements are handed out with the session's lock, held until the call has issued its
// work, so that no other handle's call re-divides (and frees the arena) meanwhile. If the
// arena cannot be allocated or the ILP has no solution, the session gives up with one warning
// and frees its memory; calls then run WR in the application's workspace.
#include <cuda_runtime_api.h>

#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "cudnn/device_memory.h"
#include "cudnn/plan_executor.h"
#include "shim/kernel_identity.h"
#include "shim/kernel_planner.h"

namespace ucudnn::shim {

class WorkspaceDivisionSession {
 public:
  explicit WorkspaceDivisionSession(std::uint64_t total_bytes) : total_(total_bytes) {}
  WorkspaceDivisionSession(const WorkspaceDivisionSession&) = delete;
  WorkspaceDivisionSession& operator=(const WorkspaceDivisionSession&) = delete;
  ~WorkspaceDivisionSession();

  std::uint64_t total_bytes() const { return total_; }
  bool given_up() const;

  // A kernel the application asked about (Get/Find): known, not run.
  void note(const KernelIdentity& kernel, const PlannerContext& context);

  // Where a call runs, with the session locked until it is destroyed.
  struct Placement {
    std::unique_lock<std::mutex> lock;
    const cudnn::PlanExecutor* plan;
    void* workspace;
    std::size_t bytes;
  };
  // Counts the run on the way to an iteration (dividing when one is found) and places the
  // kernel in its segment or the scratch buffer, ordered after the last use on another
  // stream. nullopt: run it within the application's workspace.
  std::optional<Placement> place(const KernelIdentity& kernel, const PlannerContext& context,
                                 cudaStream_t stream);
  // While a CUDA graph is captured: a segment the kernel already has a plan in, if its last
  // use was on this stream, changing nothing else. The arena then may be referenced by a
  // graph, so it is never freed again: a later division keeps it, and so does the session's end.
  std::optional<Placement> captured_placement(const KernelIdentity& kernel, cudaStream_t stream);

  // Divides now with every kernel known, weighted by its runs so far (the options API's
  // "optimize now").
  bool solve(const PlannerContext& context);

  // What Get/Find report for the kernel: its divided configuration, or before the division
  // the best configuration within the total (the most the division can give it).
  std::optional<Configuration> reported_configuration(const KernelIdentity& kernel,
                                                      const PlannerContext& context);

 private:
  // A stretch of device memory that calls on several streams may share.
  struct Region {
    void* data = nullptr;
    std::uint64_t bytes = 0;
    cudaStream_t last_stream = nullptr;
    bool used = false;
    std::shared_ptr<cudnn::CudaEvent> event;  // made at the first use on a second stream
  };
  struct Group {  // the kernels equal but for the batch size
    std::optional<Region> segment;
    int representative = -1;  // the kernel the segment was divided for
  };
  struct Entry {
    KernelIdentity kernel;
    KernelIdentity group;                             // the kernel at batch size 1: the group's key
    std::shared_ptr<cudnn::PlanExecutor> in_segment;  // the divided plan, or WR within it
    bool no_plan_in_segment = false;
    std::shared_ptr<cudnn::PlanExecutor> waiting;  // WR within what the arena leaves
    std::uint64_t waiting_limit = 0;
    bool no_waiting_plan = false;
    std::optional<Configuration> best_within_total;
    bool looked_up_stored = false;  // in the adopted stored division
  };
  // A segment of the adopted stored division whose kernel has not come yet.
  struct StoredSegment {
    std::uint64_t offset = 0;
    Configuration configuration;
  };

  int index_of(const KernelIdentity& kernel);
  void observe(int kernel, const PlannerContext& context);
  std::optional<std::size_t> repeated_iteration() const;
  bool divide(const std::unordered_map<int, int>& runs, const PlannerContext& context);
  void adopt_stored_division(const KernelIdentity& kernel, const PlannerContext& context);
  void take_stored_segment(int kernel, const PlannerContext& context);
  std::optional<std::vector<Configuration>> stored_division(const std::string& subject,
                                                            const std::vector<int>& kernels,
                                                            const PlannerContext& context);
  bool allocate_arena(std::uint64_t bytes, const PlannerContext& context);
  bool install(const std::vector<KernelIdentity>& groups, const std::vector<int>& representatives,
               const std::vector<Configuration>& chosen, const PlannerContext& context);
  const cudnn::PlanExecutor* plan_in_segment(Entry& e, Group& g, const PlannerContext* context);
  const cudnn::PlanExecutor* plan_waiting(Entry& e, const PlannerContext& context);
  bool order_after_last_use(Region& region, cudaStream_t stream, const cudnn::CudaRuntime& runtime);
  void release_memory();
  void give_up(const std::string& why);
  void keep_if_captured();

  mutable std::mutex mutex_;
  std::uint64_t total_;
  std::vector<Entry> entries_;  // every kernel known, in order of first sight
  std::unordered_map<KernelIdentity, int, KernelIdentityHash> index_;
  std::unordered_map<KernelIdentity, Group, KernelIdentityHash> groups_;

  // Learning: the runs since it began, and which kernels they hold.
  std::vector<int> history_;
  std::unordered_map<int, int> history_runs_;
  // Following: the iteration found, where in it the next run should be, and the runs per
  // group that the division in place was weighted by.
  std::vector<int> iteration_;
  std::size_t position_ = 0;
  bool following_ = false;
  std::unordered_map<KernelIdentity, int, KernelIdentityHash> divided_weights_;  // per group
  std::string division_subject_;  // the store's name of the division in place

  // The stored division taken before learning, by kernel hash; looked for once.
  std::unordered_map<std::string, StoredSegment> stored_segments_;
  bool looked_for_stored_ = false;
  bool stored_division_invalid_ = false;

  std::optional<cudnn::DeviceBuffer> arena_;
  std::optional<cudnn::DeviceBuffer> scratch_;
  Region scratch_region_;
  bool arena_captured_ = false;  // a captured graph may use it: never freed
  bool given_up_ = false;
};

}  // namespace ucudnn::shim
