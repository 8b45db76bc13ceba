#pragma once
// Whether a device has memory to spare for a workspace larger than the one the application
// chose: where the user set no workspace limit, ucudnn may answer a graph-API plan with a plan
// that needs more workspace than the application's engine (up to the default limit) only while
// the device's free memory leaves ample room after it. Under memory pressure (the application
// holds nearly all of it, and passes over the engines whose workspace it cannot allocate) every
// plan stays within its engine's workspace, so that ucudnn never makes the application need
// memory it does not have.
#include <cstdint>

namespace ucudnn::shim {

// A sixteenth of the device, and at least this, must stay free after `bytes` more.
inline constexpr std::uint64_t kLeastMemoryLeftFree = 1ull << 30;

// `device`'s free memory (cudaMemGetInfo: no synchronization) less `bytes` leaves at least
// max(kLeastMemoryLeftFree, total / 16); false where the runtime cannot tell.
bool memory_to_spare(int device, std::uint64_t bytes);

}  // namespace ucudnn::shim
