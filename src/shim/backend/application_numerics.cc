#include "shim/backend/application_numerics.h"

namespace ucudnn::shim {

ApplicationNumerics numerics_allowed_by(const cudnn::EngineNotes& notes) {
  if (!notes.known) return {};
  ApplicationNumerics allowed;
  allowed.deterministic_only = !notes.nondeterministic;
  if (notes.down_convert && notes.reduced_precision)
    allowed.math = MathType::kTensorOpAllowConversion;
  else if (notes.reduced_precision)
    allowed.math = MathType::kTensorOpReducedPrecision;
  else if (notes.down_convert)
    allowed.math = MathType::kTensorOpDownConvert;
  else
    allowed.math = notes.tensor_core ? MathType::kTensorOp : MathType::kFma;
  return allowed;
}

}  // namespace ucudnn::shim
