#pragma once
// Work the cuDNN double issues on a handle's stream: run now, or recorded into the graph
// when the stream captures (the runtime double's fakecuda_capture), as a GPU library's
// kernel launches are.
#include <cuda_runtime_api.h>

#include <functional>

#include "fakecuda_hooks.h"

namespace ucudnn::fakecuda {

// True when the work was captured rather than run.
inline bool run_on_stream(cudaStream_t stream, std::function<void()> work) {
  auto* owned = new std::function<void()>(std::move(work));
  const auto run = [](void* context) { (*static_cast<std::function<void()>*>(context))(); };
  const auto release = [](void* context) { delete static_cast<std::function<void()>*>(context); };
  if (fakecuda_capture(stream, run, owned, release)) return true;
  run(owned);
  release(owned);
  return false;
}

}  // namespace ucudnn::fakecuda
