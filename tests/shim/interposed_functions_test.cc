// The names the auditor redirects (interposed_functions.h) are exactly the cuDNN functions the
// preload exports (preload.map): one added to one list and not the other would be caught
// through one loading style and missed through another.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "shim/interposed_functions.h"

namespace {

std::set<std::string> exported_cudnn_functions() {
  std::ifstream map(UCUDNN_PRELOAD_MAP);
  std::set<std::string> names;
  bool global = false;
  for (std::string line; std::getline(map, line);) {
    std::istringstream words(line);
    std::string word;
    words >> word;
    if (word == "global:") global = true;
    if (word == "local:") global = false;
    if (global && word.rfind("cudnn", 0) == 0 && word.back() == ';') {
      word.pop_back();
      names.insert(word);
    }
  }
  return names;
}

TEST(InterposedFunctions, TheAuditorRedirectsWhatThePreloadExports) {
#define UCUDNN_NAME(name) #name,
  const std::set<std::string> redirected = {UCUDNN_INTERPOSED_FUNCTIONS(UCUDNN_NAME)};
#undef UCUDNN_NAME
  const auto exported = exported_cudnn_functions();
  EXPECT_GE(exported.size(), 30u);
  EXPECT_EQ(redirected, exported);
}

}  // namespace
