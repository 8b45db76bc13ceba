#include "shim/workspace_division_session.h"

#include "cudnn/current_device.h"
#include "shim/log.h"
#include "shim/no_plan_warning.h"
#include "user_input/byte_size.h"

namespace ucudnn::shim {

bool WorkspaceDivisionSession::given_up() const {
  std::lock_guard lock(mutex_);
  return given_up_;
}

int WorkspaceDivisionSession::index_of(const KernelIdentity& kernel) {
  auto [it, inserted] = index_.try_emplace(kernel, static_cast<int>(entries_.size()));
  if (inserted) {
    Entry& e = entries_.emplace_back();
    e.kernel = kernel;
    // Kernels that must run deterministically are twins of their own: their plans may not be
    // an unrestricted twin's.
    e.twins = {kernel.key.with_batch(1), kernel.layer, kernel.deterministic_only};
  }
  return it->second;
}

void WorkspaceDivisionSession::note(const KernelIdentity& kernel, const PlannerContext& context) {
  std::lock_guard lock(mutex_);
  if (given_up_) return;
  const int k = index_of(kernel);
  adopt_stored_division(kernel, context);
  take_stored_segment(k, context);
}

void WorkspaceDivisionSession::release_memory() {
  for (auto& e : entries_) {
    e.segment = -1;
    e.in_segment.reset();
    e.no_plan_in_segment = false;
    e.divided = false;
    e.waiting.reset();
    e.no_waiting_plan = false;
  }
  twin_segment_.clear();
  segments_.clear();
  stored_segments_.clear();
  division_subject_.clear();
  divided_iteration_.clear();
  // cudaFree waits for the work still using these.
  scratch_.reset();
  scratch_region_ = {};
  scratch_refused_ = UINT64_MAX;
  keep_if_captured();
  arena_.reset();
}

void WorkspaceDivisionSession::give_up(const std::string& why) {
  given_up_ = true;
  release_memory();
  warn_once("wd-given-up",
            "workspace division (UCUDNN_TOTAL_WORKSPACE_SIZE=" + format_byte_size(total_) +
                ") is off: " + why + "; planning each kernel in the application's workspace (WR)");
}

void WorkspaceDivisionSession::keep_if_captured() {
  // Deliberately never freed: a graph may be replayed at any time for the rest of the process.
  if (arena_captured_ && arena_) new cudnn::DeviceBuffer(std::move(*arena_));
  arena_captured_ = false;
}

WorkspaceDivisionSession::~WorkspaceDivisionSession() {
  keep_if_captured();
}

std::optional<Configuration> WorkspaceDivisionSession::reported_configuration(
    const KernelIdentity& kernel, const PlannerContext& context, bool retry_failed) {
  std::lock_guard lock(mutex_);
  const int k = index_of(kernel);
  if (!given_up_) {
    adopt_stored_division(kernel, context);
    take_stored_segment(k, context);
  }
  Entry& e = entries_[k];
  if (e.in_segment) return e.in_segment->configuration();
  if (!e.best_within_total) {
    if (e.no_plan_within_total && !retry_failed) return std::nullopt;
    const PlannerContext for_it = for_kernel(context, kernel);
    auto plan = plan_reuse(for_it, kernel.key, total_);
    if (!plan) {
      say_no_plan(for_it, kernel.key, total_, plan.error());
      e.no_plan_within_total = true;
      return std::nullopt;
    }
    e.best_within_total = *plan;
  }
  return e.best_within_total;
}

bool WorkspaceDivisionSession::allocate_arena(std::uint64_t bytes, const PlannerContext& context) {
  const cudnn::CurrentDevice on(context.runtime, context.device);
  arena_ = cudnn::DeviceBuffer::allocate(context.runtime, bytes);
  account_held();
  return arena_.has_value();
}

void WorkspaceDivisionSession::account_plan(const Entry& e, const cudnn::PlanExecutor& plan,
                                            std::uint64_t bytes,
                                            const PlannerContext& context) const {
  // The baseline may ask cuDNN's heuristics: only for the line that needs it.
  if (!account_ || !log_enabled(LogLevel::kInfo)) return;
  const auto baseline = undivided_within(for_kernel(context, e.kernel), e.kernel.key, bytes);
  const Configuration& chosen = plan.configuration();
  account_->record(e.kernel.key.to_string(), chosen.time_ms(),
                   baseline ? std::optional<double>(baseline->time_ms) : std::nullopt,
                   plan.workspace_bytes(), plan.runs(), chosen.offload.has_value());
}

void WorkspaceDivisionSession::account_held() const {
  if (account_)
    account_->held((arena_ ? arena_->size() : 0) + (scratch_ ? scratch_->size() : 0), total_);
}

// The kernel's plan in its segment: the division's, or for a batch-size twin of a divided
// kernel WR within that one's segment, planned once (not while captured).
const cudnn::PlanExecutor* WorkspaceDivisionSession::plan_in_segment(
    Entry& e, const PlannerContext* context) {
  if (e.in_segment) return e.in_segment.get();
  if (e.segment < 0) {
    const auto twin = twin_segment_.find(e.twins);
    if (twin == twin_segment_.end()) return nullptr;
    e.segment = twin->second;
  }
  if (e.no_plan_in_segment || !context) return nullptr;
  const std::uint64_t bytes = segments_[static_cast<std::size_t>(e.segment)].bytes;
  auto plan = plan_reuse(for_kernel(*context, e.kernel), e.kernel.key, bytes);
  if (plan) {
    auto executor =
        std::make_shared<cudnn::PlanExecutor>(context->api, context->handle, e.kernel.key, *plan);
    if (executor->workspace_bytes() <= bytes) {
      account_plan(e, *executor, bytes, *context);
      e.in_segment = std::move(executor);
    }
  }
  e.no_plan_in_segment = !e.in_segment;
  return e.in_segment.get();
}

const cudnn::PlanExecutor* WorkspaceDivisionSession::plan_waiting(Entry& e,
                                                                  const PlannerContext& context) {
  const std::uint64_t left = total_ - (arena_ ? arena_->size() : 0);
  if (e.waiting_limit != left) {
    e.waiting.reset();
    e.no_waiting_plan = false;
    e.waiting_limit = left;
  }
  if (!e.waiting && !e.no_waiting_plan) {
    auto plan = plan_reuse(for_kernel(context, e.kernel), e.kernel.key, left);
    if (plan) {
      auto executor =
          std::make_shared<cudnn::PlanExecutor>(context.api, context.handle, e.kernel.key, *plan);
      if (executor->workspace_bytes() <= left) {
        account_plan(e, *executor, left, context);
        e.waiting = std::move(executor);
      }
    }
    e.no_waiting_plan = !e.waiting;
  }
  if (!e.waiting) return nullptr;
  const std::uint64_t needed = e.waiting->workspace_bytes();
  if (needed > (scratch_ ? scratch_->size() : 0)) {
    // A size the device refused is not asked for again at every call (each try costs a
    // cudaMalloc) until the arena's memory is given back.
    if (needed >= scratch_refused_) return nullptr;
    scratch_.reset();  // first: the arena and the scratch buffer never exceed the total
    scratch_region_ = {};
    const cudnn::CurrentDevice on(context.runtime, context.device);
    scratch_ = cudnn::DeviceBuffer::allocate(context.runtime, needed);
    account_held();
    if (!scratch_) {
      scratch_refused_ = needed;
      return nullptr;
    }
    scratch_region_.data = scratch_->data();
    scratch_region_.bytes = needed;
  }
  return e.waiting.get();
}

// Orders this use of the region after its last use when that was on another stream: an event
// recorded there now (after everything issued to it) and waited for here.
bool WorkspaceDivisionSession::order_after_last_use(Region& region, cudaStream_t stream,
                                                    const cudnn::CudaRuntime& runtime) {
  if (region.used && region.last_stream != stream) {
    if (!region.event) region.event = std::make_shared<cudnn::CudaEvent>(runtime);
    if (!region.event->valid() ||
        runtime.cudaEventRecord(region.event->get(), region.last_stream) != cudaSuccess ||
        runtime.cudaStreamWaitEvent(stream, region.event->get(), 0) != cudaSuccess) {
      runtime.cudaGetLastError();  // ours, not the application's
      return false;
    }
  }
  region.used = true;
  region.last_stream = stream;
  return true;
}

std::optional<WorkspaceDivisionSession::Placement> WorkspaceDivisionSession::place(
    const KernelIdentity& kernel, const PlannerContext& context, cudaStream_t stream) {
  std::unique_lock lock(mutex_);
  if (given_up_) return std::nullopt;
  const int k = index_of(kernel);
  adopt_stored_division(kernel, context);
  observe(k, stream, context);
  if (given_up_) return std::nullopt;
  take_stored_segment(k, context);
  Entry& e = entries_[k];
  if (const auto* plan = plan_in_segment(e, &context)) {
    Region& segment = segments_[static_cast<std::size_t>(e.segment)];
    if (order_after_last_use(segment, stream, context.runtime))
      return Placement{std::move(lock), plan, segment.data,
                       static_cast<std::size_t>(plan->workspace_bytes())};
  }
  if (const auto* plan = plan_waiting(e, context))
    if (order_after_last_use(scratch_region_, stream, context.runtime))
      return Placement{std::move(lock), plan, scratch_region_.data,
                       static_cast<std::size_t>(plan->workspace_bytes())};
  return std::nullopt;
}

std::optional<WorkspaceDivisionSession::Placement> WorkspaceDivisionSession::captured_placement(
    const KernelIdentity& kernel, cudaStream_t stream) {
  std::unique_lock lock(mutex_);
  if (given_up_ || !arena_) return std::nullopt;
  auto found = index_.find(kernel);
  if (found == index_.end()) return std::nullopt;
  Entry& e = entries_[found->second];
  const auto* plan = plan_in_segment(e, nullptr);
  if (!plan) return std::nullopt;
  Region& segment = segments_[static_cast<std::size_t>(e.segment)];
  // Ordering across streams would record into a stream outside the capture: not done.
  if (segment.used && segment.last_stream != stream) return std::nullopt;
  arena_captured_ = true;
  segment.used = true;
  segment.last_stream = stream;
  return Placement{std::move(lock), plan, segment.data,
                   static_cast<std::size_t>(plan->workspace_bytes())};
}

}  // namespace ucudnn::shim
