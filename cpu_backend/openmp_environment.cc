#include "openmp_environment.h"

#include <unistd.h>

#include <climits>
#include <cstdlib>

namespace ucudnn::cpu {

void relaunch_with_passive_openmp(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY")) return;
  setenv("OMP_WAIT_POLICY", "passive", 1);
  // By the binary's own path, so that ps, top and pgrep still name the program ("exe" when run
  // as /proc/self/exe); that one where the path cannot be read.
  char self[PATH_MAX];
  if (const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1); length > 0) {
    self[length] = '\0';
    execv(self, argv);
  }
  execv("/proc/self/exe", argv);  // returns only on failure: then run as we are
}

}  // namespace ucudnn::cpu
