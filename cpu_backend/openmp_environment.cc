#include "openmp_environment.h"

#include <unistd.h>

#include <cstdlib>

namespace ucudnn::cpu {

void relaunch_with_passive_openmp(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY")) return;
  setenv("OMP_WAIT_POLICY", "passive", 1);
  execv("/proc/self/exe", argv);  // returns only on failure: then run as we are
}

}  // namespace ucudnn::cpu
