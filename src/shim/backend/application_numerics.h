#pragma once
// What a graph-API application's engine allows ucudnn's plan for the same convolution. An
// application states its numerics only through the engine it chose: frameworks drop the engines
// whose notes they forbid (PyTorch: NONDETERMINISTIC in deterministic mode, for every operation;
// DOWN_CONVERT_INPUTS always; TENSOR_CORE for float without TF32), so each note the chosen
// engine lacks is read as forbidden, and each it carries as allowed. Notes cuDNN could not read
// are the strictest: no tensor cores, no conversions, deterministic.
#include "core/convolution_problem.h"
#include "cudnn/engine_configurations.h"

namespace ucudnn::shim {

struct ApplicationNumerics {
  // Tensor cores where the engine uses them or converts; each conversion (down-converted inputs,
  // reductions in reduced precision) only where the engine makes it (convolution_problem.h).
  MathType math = MathType::kFma;
  bool deterministic_only = true;
};

ApplicationNumerics numerics_allowed_by(const cudnn::EngineNotes& notes);

}  // namespace ucudnn::shim
