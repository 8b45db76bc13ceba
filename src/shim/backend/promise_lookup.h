#pragma once
// The promise of an execution plan at Execute, looked up through a small cache of the calling
// thread: frameworks execute the same few plans again and again from two or three threads, and
// the descriptor table's lock would be shared between them. An entry holds the table's answer
// (a promise, or none) with the table's epoch; any destruction, emptying or new promise in the
// table changes the epoch and sends the next lookup to the table.
#include <cudnn.h>

#include "shim/backend/descriptor_table.h"
#include "shim/backend/plan_promise.h"

namespace ucudnn::shim::backend {

// Null when ucudnn made no promise for `plan`. The promise stays alive until this thread's next
// lookup.
const PlanPromise* promise_for_execution(const DescriptorTable& table,
                                         cudnnBackendDescriptor_t plan);

}  // namespace ucudnn::shim::backend
