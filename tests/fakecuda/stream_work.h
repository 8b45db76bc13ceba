#pragma once
// Work the cuDNN double issues on a handle's stream, as a GPU library's kernel launch: its
// cost (virtual time, trace line) is taken at once and its effect on memory runs in stream
// order, or both are recorded into the graph when the stream captures (the runtime double's
// fakecuda_issue).
#include <cuda_runtime_api.h>

#include <functional>

#include "fakecuda_hooks.h"

namespace ucudnn::fakecuda {

// True when the work was captured rather than issued. `scratch`: the workspace it uses.
inline bool run_on_stream(cudaStream_t stream, std::function<void()> compute,
                          std::function<void()> account = {}, const void* scratch = nullptr,
                          std::size_t scratch_bytes = 0) {
  struct Kernel {
    std::function<void()> compute, account;
  };
  auto* owned = new Kernel{std::move(compute), std::move(account)};
  const auto run = [](void* context) { static_cast<Kernel*>(context)->compute(); };
  const auto cost = [](void* context) {
    if (auto& account = static_cast<Kernel*>(context)->account) account();
  };
  const auto release = [](void* context) { delete static_cast<Kernel*>(context); };
  return fakecuda_issue(stream, run, cost, owned, release, scratch, scratch_bytes) != 0;
}

}  // namespace ucudnn::fakecuda
