#pragma once
// What the application sets on its graph (backend) API descriptors, recorded as it sets them:
// cuDNN reads attributes back from finalized descriptors only lossily (a finalized operation
// hands back an internal 5-d copy of its tensors without the application's unique ids), so
// ucudnn keeps its own copy. One record per live descriptor, keyed by its address; a record
// lives on while a descriptor that was given it as an attribute does (addresses are reused
// after cudnnBackendDestroyDescriptor, records are not). Thread-safe: every access takes the
// table's lock.
#include <cudnn.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "shim/backend/graph_claim.h"

namespace ucudnn::shim::backend {

struct Record;

struct AttributeValue {
  cudnnBackendAttributeType_t type = CUDNN_TYPE_INT64;
  std::int64_t count = 0;
  std::vector<std::byte> bytes;  // count elements as set
  // CUDNN_TYPE_BACKEND_DESCRIPTOR: the records of the descriptors given, null for one the
  // table never saw (made before ucudnn was loaded, or by cuDNN itself).
  std::vector<std::shared_ptr<const Record>> descriptors;
};

// What ucudnn promised the application about an execution plan it runs (plan_promise.h).
struct PlanPromise;

struct Record {
  cudnnBackendDescriptorType_t type = CUDNN_BACKEND_TENSOR_DESCRIPTOR;
  bool finalized = false;
  std::map<cudnnBackendAttributeName_t, AttributeValue> attributes;
  // An engine configuration cuDNN's heuristics filled: the operation graph it is for (the
  // application set nothing on it).
  std::shared_ptr<const Record> heuristics_graph;
  // An execution plan ucudnn runs, and the engine configuration it was built from: the
  // workspace the application is told. Set under the table's lock on the records themselves
  // (the configuration's through the plan's attribute, never by its address, which a
  // destroyed configuration may have passed on). A configuration holds the promise of the last
  // plan finalized from it, while that plan lives; none once a later plan of it has none.
  mutable std::shared_ptr<const PlanPromise> promise;
  // An operation graph: which of its execution plans ucudnn runs, made when the first of them
  // is planned. An execution plan with a promise: its graph's claim, released with the plan.
  mutable std::shared_ptr<GraphClaim> claim;

  const AttributeValue* find(cudnnBackendAttributeName_t name) const;
  // The attribute's first element as T; nullopt when unset or of another size.
  template <typename T>
  std::optional<T> scalar(cudnnBackendAttributeName_t name) const;
  template <typename T>
  std::vector<T> array(cudnnBackendAttributeName_t name) const;
  // The first descriptor an attribute holds, or null.
  const Record* descriptor(cudnnBackendAttributeName_t name) const;
};

class DescriptorTable {
 public:
  void created(cudnnBackendDescriptor_t d, cudnnBackendDescriptorType_t type);
  // Before cuDNN frees it: from then on the address may be another descriptor's. False when
  // the table had no record of it.
  bool destroyed(cudnnBackendDescriptor_t d);
  // After cuDNN's cudnnBackendInitialize, which empties the descriptor and keeps its type: a
  // fresh record, so that nothing set or planned before is read or run again. Records that
  // other descriptors hold stay as they were, as cuDNN's own copies do. False when the table
  // had no record of it (as for set and finalized).
  bool initialized(cudnnBackendDescriptor_t d);
  // After cuDNN accepted the attribute.
  bool set(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name,
           cudnnBackendAttributeType_t type, std::int64_t count, const void* values);
  bool finalized(cudnnBackendDescriptor_t d);
  // Engine configurations cuDNN's heuristics `results` filled for `heuristics`.
  void heuristics_results(cudnnBackendDescriptor_t heuristics,
                          const cudnnBackendDescriptor_t* results, std::int64_t count);
  // `claim`: the plan's graph's (GraphClaim), which the plan gives up when it goes.
  void promise(cudnnBackendDescriptor_t plan, std::shared_ptr<const PlanPromise> promise,
               std::shared_ptr<GraphClaim> claim);

  // Reads the descriptor's record (null when the table has none) under the table's lock.
  void read(cudnnBackendDescriptor_t d, const std::function<void(const Record*)>& reader) const;
  // The promise of an execution plan or engine configuration, if ucudnn made one.
  std::shared_ptr<const PlanPromise> promise_of(cudnnBackendDescriptor_t d) const;
  // The promise of an execution plan alone (an engine configuration shares its plan's promise,
  // for the workspace it answers, but runs nothing).
  std::shared_ptr<const PlanPromise> execution_plan_promise(cudnnBackendDescriptor_t d) const;
  std::size_t size() const;
  // Changes whenever a record is destroyed or emptied or a promise is made: what a reader
  // caching promise_of's answers (promise_lookup.h) checks, without the lock.
  std::uint64_t epoch() const { return epoch_.load(std::memory_order_acquire); }

 private:
  void changed() { epoch_.fetch_add(1, std::memory_order_acq_rel); }
  std::atomic<std::uint64_t> epoch_{0};
  mutable std::mutex mutex_;
  std::unordered_map<cudnnBackendDescriptor_t, std::shared_ptr<Record>> records_;
};

template <typename T>
std::optional<T> Record::scalar(cudnnBackendAttributeName_t name) const {
  const AttributeValue* a = find(name);
  if (!a || a->count < 1 || a->bytes.size() < sizeof(T) ||
      a->bytes.size() / static_cast<std::size_t>(a->count) != sizeof(T))
    return std::nullopt;
  T value;
  std::memcpy(&value, a->bytes.data(), sizeof(T));
  return value;
}

template <typename T>
std::vector<T> Record::array(cudnnBackendAttributeName_t name) const {
  const AttributeValue* a = find(name);
  std::vector<T> values;
  if (!a || a->count < 1 || a->bytes.size() != static_cast<std::size_t>(a->count) * sizeof(T))
    return values;
  values.resize(static_cast<std::size_t>(a->count));
  std::memcpy(values.data(), a->bytes.data(), a->bytes.size());
  return values;
}

}  // namespace ucudnn::shim::backend
