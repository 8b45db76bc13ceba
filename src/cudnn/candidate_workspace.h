#pragma once
// A cuDNN candidate by the name the planner stores: an engine configuration
// ("eng12{k2=1}", core/engine_name.h) or a legacy algorithm ("FFT_TILING"). Its exact workspace
// at a kernel's shape, as cuDNN says it now; nullopt for a name cuDNN does not have or refuses
// at that shape.
#include <cudnn.h>

#include <cstdint>
#include <optional>
#include <string>

#include "core/kernel_key.h"
#include "cudnn/cudnn_api.h"

namespace ucudnn::cudnn {

std::optional<std::uint64_t> candidate_workspace(const CudnnApi& api, cudnnHandle_t handle,
                                                 const KernelKey& kernel, const std::string& name);

}  // namespace ucudnn::cudnn
