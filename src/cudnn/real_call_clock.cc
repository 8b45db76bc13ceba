#include "cudnn/real_call_clock.h"

namespace ucudnn::cudnn {

thread_local RealCallClock::State RealCallClock::state_;

}  // namespace ucudnn::cudnn
