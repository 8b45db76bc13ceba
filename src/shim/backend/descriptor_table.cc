#include "shim/backend/descriptor_table.h"

#include <atomic>
#include <cstring>

#include "cudnn/backend_api.h"
#include "shim/log.h"

namespace ucudnn::shim::backend {

const AttributeValue* Record::find(cudnnBackendAttributeName_t name) const {
  auto found = attributes.find(name);
  return found == attributes.end() ? nullptr : &found->second;
}

const Record* Record::descriptor(cudnnBackendAttributeName_t name) const {
  const AttributeValue* a = find(name);
  return a && !a->descriptors.empty() ? a->descriptors.front().get() : nullptr;
}

namespace {

// Whether `target` is `from` or among the records `from` holds, directly or through others.
bool reaches(const Record* from, const Record* target, std::vector<const Record*>& seen) {
  if (!from) return false;
  if (from == target) return true;
  for (const Record* s : seen)
    if (s == from) return false;
  seen.push_back(from);
  if (reaches(from->heuristics_graph.get(), target, seen)) return true;
  for (const auto& [name, value] : from->attributes)
    for (const auto& held : value.descriptors)
      if (reaches(held.get(), target, seen)) return true;
  return false;
}

// An engine configuration answers the workspace of the last plan finalized from it, and only
// while that plan lives: its answer once a plan that ucudnn does not run (or runs otherwise) was
// made from it, or once its plan went, is cuDNN's own. (`only`: clear it only if it is that
// promise.)
void forget_configuration_promise(const Record& plan, const PlanPromise* only) {
  if (plan.type != CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR) return;
  const Record* configuration = plan.descriptor(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG);
  if (configuration && (!only || configuration->promise.get() == only))
    configuration->promise.reset();
}

// Said once: a framework that passes over plans it cannot allocate does so for every kernel.
void passed_over() {
  static std::atomic<bool> said{false};
  if (!log_enabled(LogLevel::kInfo) || said.exchange(true)) return;
  log(LogLevel::kInfo,
      "a graph API plan that answered ucudnn's workspace went without running (the "
      "application passed it over: it could not, or would not, allocate that): its graph's "
      "other plans run cuDNN's engines, as they would alone");
}

// A record that goes (destroyed, or emptied by cudnnBackendInitialize): its plan gives up its
// graph's claim, and its configuration the promise it lent.
void retire(const Record& record, cudnnBackendDescriptor_t d) {
  if (record.claim && record.type == CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR &&
      record.claim->release(d))
    passed_over();
  if (record.promise) forget_configuration_promise(record, record.promise.get());
}

}  // namespace

void DescriptorTable::created(cudnnBackendDescriptor_t d, cudnnBackendDescriptorType_t type) {
  auto record = std::make_shared<Record>();
  record->type = type;
  std::lock_guard lock(mutex_);
  records_[d] = std::move(record);
}

bool DescriptorTable::destroyed(cudnnBackendDescriptor_t d) {
  std::lock_guard lock(mutex_);
  auto found = records_.find(d);
  if (found == records_.end()) return false;
  retire(*found->second, d);
  records_.erase(found);
  changed();
  return true;
}

bool DescriptorTable::initialized(cudnnBackendDescriptor_t d) {
  auto record = std::make_shared<Record>();
  std::lock_guard lock(mutex_);
  auto found = records_.find(d);
  if (found == records_.end()) return false;
  record->type = found->second->type;
  retire(*found->second, d);
  found->second = std::move(record);
  changed();
  return true;
}

bool DescriptorTable::set(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name,
                          cudnnBackendAttributeType_t type, std::int64_t count,
                          const void* values) {
  const std::size_t element = cudnn::backend_element_size(type);
  if (count < 0 || (count > 0 && (!values || element == 0))) {
    std::lock_guard lock(mutex_);
    return records_.count(d) > 0;
  }
  AttributeValue value;
  value.type = type;
  value.count = count;
  value.bytes.resize(static_cast<std::size_t>(count) * element);
  if (!value.bytes.empty()) std::memcpy(value.bytes.data(), values, value.bytes.size());
  std::lock_guard lock(mutex_);
  auto found = records_.find(d);
  if (found == records_.end()) return false;
  if (type == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
    const auto* given = static_cast<const cudnnBackendDescriptor_t*>(values);
    for (std::int64_t i = 0; i < count; ++i) {
      auto referenced = records_.find(given[i]);
      std::shared_ptr<const Record> held;
      // A descriptor given (through others) to itself is no graph cuDNN can run; holding it
      // would keep the records alive forever, so it is recorded as one the table never saw.
      std::vector<const Record*> seen;
      if (referenced != records_.end() &&
          !reaches(referenced->second.get(), found->second.get(), seen))
        held = referenced->second;
      value.descriptors.push_back(std::move(held));
    }
  }
  found->second->attributes[name] = std::move(value);
  return true;
}

bool DescriptorTable::finalized(cudnnBackendDescriptor_t d) {
  std::lock_guard lock(mutex_);
  auto found = records_.find(d);
  if (found == records_.end()) return false;
  found->second->finalized = true;
  // A new plan of the configuration: until ucudnn promises something for it, the
  // configuration's workspace is cuDNN's answer again.
  forget_configuration_promise(*found->second, nullptr);
  return true;
}

void DescriptorTable::heuristics_results(cudnnBackendDescriptor_t heuristics,
                                         const cudnnBackendDescriptor_t* results,
                                         std::int64_t count) {
  std::lock_guard lock(mutex_);
  auto found = records_.find(heuristics);
  if (found == records_.end() || !results) return;
  const AttributeValue* graph = found->second->find(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH);
  if (!graph || graph->descriptors.empty()) return;
  for (std::int64_t i = 0; i < count; ++i)
    if (auto result = records_.find(results[i]); result != records_.end()) {
      result->second->heuristics_graph = graph->descriptors.front();
      result->second->finalized = true;
    }
}

void DescriptorTable::promise(cudnnBackendDescriptor_t plan,
                              std::shared_ptr<const PlanPromise> promise,
                              std::shared_ptr<GraphClaim> claim) {
  std::lock_guard lock(mutex_);
  auto found = records_.find(plan);
  if (found == records_.end()) return;
  found->second->promise = promise;
  found->second->claim = std::move(claim);
  changed();
  // Frameworks read the workspace from the engine configuration too (cudnn-frontend v1).
  if (const Record* configuration =
          found->second->descriptor(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG))
    configuration->promise = promise;
}

void DescriptorTable::read(cudnnBackendDescriptor_t d,
                           const std::function<void(const Record*)>& reader) const {
  std::lock_guard lock(mutex_);
  auto found = records_.find(d);
  reader(found == records_.end() ? nullptr : found->second.get());
}

std::shared_ptr<const PlanPromise> DescriptorTable::promise_of(cudnnBackendDescriptor_t d) const {
  std::lock_guard lock(mutex_);
  auto found = records_.find(d);
  return found == records_.end() ? nullptr : found->second->promise;
}

std::shared_ptr<const PlanPromise> DescriptorTable::execution_plan_promise(
    cudnnBackendDescriptor_t d) const {
  std::lock_guard lock(mutex_);
  auto found = records_.find(d);
  if (found == records_.end() || found->second->type != CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR)
    return nullptr;
  return found->second->promise;
}

std::size_t DescriptorTable::size() const {
  std::lock_guard lock(mutex_);
  return records_.size();
}

}  // namespace ucudnn::shim::backend
