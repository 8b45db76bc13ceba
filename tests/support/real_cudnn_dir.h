#pragma once
// The folder of the real libcudnn.so.9 for the tests that compare with it or run on it:
// $CUDNN_ROOT/lib or /lib64 when set at run time (scripts/gpu-validate.sh sets it where cuDNN
// lives in the Python environment, which a build made on another machine cannot know), else
// the folder the build found cuDNN in.
#include <cstdlib>
#include <filesystem>
#include <string>

namespace ucudnn::testing {

inline std::string real_cudnn_dir() {
  if (const char* root = std::getenv("CUDNN_ROOT"); root && *root)
    for (const char* lib : {"/lib", "/lib64"}) {
      const std::string dir = std::string(root) + lib;
      if (std::filesystem::exists(dir + "/libcudnn.so.9")) return dir;
    }
  return UCUDNN_REAL_CUDNN_DIR;
}

}  // namespace ucudnn::testing
