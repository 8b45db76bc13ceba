#include "shim/no_plan_warning.h"

#include "shim/log.h"
#include "user_input/byte_size.h"

namespace ucudnn::shim {

void say_no_plan(const PlannerContext& context, const KernelKey& kernel, std::uint64_t limit,
                 const std::string& error) {
  const std::string what =
      "no plan for " + kernel.to_string() + " within " + format_byte_size(limit);
  if (error == kEveryCandidateExcluded) {
    const std::string exclusion =
        context.exclusion_account ? " (" + context.exclusion_account->exclusion().to_string() + ")"
                                  : std::string();
    if (!warn_once("no-plan-excluded",
                   what + ": " + error + exclusion +
                       "; passing the call through, as every call of a kernel so left "
                       "(UCUDNN_LOG_LEVEL=info names each)"))
      log(LogLevel::kInfo, what + ": " + error + "; passing the call through");
  } else if (context.may_measure || error != kNotEveryMeasurementStored) {
    warn_once("no-plan:" + kernel.to_string() + std::to_string(limit),
              what + ": " + error + "; passing the call through");
  } else if (!warn_once("no-plan-unmeasured",
                        what + ": not every measurement of it is stored, and this call does not "
                               "measure (UCUDNN_BENCHMARK_IN=find: only Find* calls do); passing "
                               "it through, as every call of a kernel without a stored plan "
                               "(UCUDNN_LOG_LEVEL=info names each; `ucudnn bench` measures "
                               "them ahead)")) {
    log(LogLevel::kInfo,
        what + ": not every measurement of it is stored; passing the call through");
  }
}

}  // namespace ucudnn::shim
