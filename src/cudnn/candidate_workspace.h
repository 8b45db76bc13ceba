#pragma once
// A cuDNN candidate by the name the planner stores: an engine configuration
// ("eng12{k2=1}", core/engine_name.h) or a legacy algorithm ("FFT_TILING"). Its exact workspace
// at a kernel's shape, as cuDNN says it now; nullopt for a name cuDNN does not have or refuses
// at that shape. An engine configuration's execution plan (alpha = 1, beta = 0) is taken from
// `kept` where it holds one, else finalized and kept there (finalized_plans.h; nullptr: not
// kept), so that the executor of a stored plan checked so finalizes none of it again.
#include <cudnn.h>

#include <cstdint>
#include <optional>
#include <string>

#include "core/kernel_key.h"
#include "cudnn/cudnn_api.h"
#include "cudnn/finalized_plans.h"

namespace ucudnn::cudnn {

std::optional<std::uint64_t> candidate_workspace(const CudnnApi& api, cudnnHandle_t handle,
                                                 const KernelKey& kernel, const std::string& name,
                                                 FinalizedPlans* kept = nullptr);

}  // namespace ucudnn::cudnn
