// What a graph-API application's engine allows ucudnn's plan (shim/backend/application_numerics.h),
// and that cuDNN's engine configurations are then kept to it (cudnn::allowed): every combination
// of the four notes an application's engine may carry, against every note a candidate may carry.
#include "shim/backend/application_numerics.h"

#include <gtest/gtest.h>

namespace ucudnn::shim {
namespace {

cudnn::EngineNotes notes_of(unsigned bits) {
  cudnn::EngineNotes notes;
  notes.tensor_core = bits & 1;
  notes.down_convert = bits & 2;
  notes.reduced_precision = bits & 4;
  notes.nondeterministic = bits & 8;
  return notes;
}

TEST(ApplicationNumerics, ACandidateMayCarryOnlyNotesTheApplicationsEngineCarries) {
  for (unsigned application = 0; application < 16; ++application) {
    const cudnn::EngineNotes theirs = notes_of(application);
    const ApplicationNumerics allowed = numerics_allowed_by(theirs);
    SCOPED_TRACE("application's engine notes " + std::to_string(application) + ", math " +
                 std::string(name_of(allowed.math)));
    for (unsigned candidate = 0; candidate < 16; ++candidate) {
      const cudnn::EngineNotes ours = notes_of(candidate);
      const bool admitted = cudnn::allowed(ours, allowed.math, allowed.deterministic_only);
      // Tensor cores also where the application's engine converts (conversions are tensor-core
      // work); each other note only where the application's engine carries it.
      const bool tensor_cores =
          theirs.tensor_core || theirs.down_convert || theirs.reduced_precision;
      const bool expected = (!ours.tensor_core || tensor_cores) &&
                            (!ours.down_convert || theirs.down_convert) &&
                            (!ours.reduced_precision || theirs.reduced_precision) &&
                            (!ours.nondeterministic || theirs.nondeterministic);
      EXPECT_EQ(admitted, expected) << "candidate notes " << candidate;
    }
  }
}

TEST(ApplicationNumerics, NotesCudnnCouldNotReadAreTheStrictest) {
  cudnn::EngineNotes unknown{false, true, true, true, true};
  const ApplicationNumerics allowed = numerics_allowed_by(unknown);
  EXPECT_EQ(allowed.math, MathType::kFma);
  EXPECT_TRUE(allowed.deterministic_only);
}

}  // namespace
}  // namespace ucudnn::shim
