#include "user_input/setting_names.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ucudnn {
namespace {

std::vector<std::string> said_about(std::vector<const char*> environment) {
  environment.push_back(nullptr);
  return misspelt_settings(environment.data());
}

TEST(SettingNames, AMisspeltSettingIsNamedWithTheOneMeant) {
  const struct {
    const char* entry;
    const char* meant;
  } cases[] = {{"UCUDNN_WORKSPACE_LIMT=8MiB", "UCUDNN_WORKSPACE_LIMIT"},
               {"UCUDNN_LOGLEVEL=info", "UCUDNN_LOG_LEVEL"},
               {"UCUDNN_LOG_LEVLE=info", "UCUDNN_LOG_LEVEL"},
               {"UCUDNN_HYBIRD=on", "UCUDNN_HYBRID"},
               {"UCUDNN_DEVICE=0", "UCUDNN_DEVICES"},
               {"UCUDNN_DISABLED=1", "UCUDNN_DISABLE"},
               {"UCUDNN_BATCHSIZE_POLICY=all", "UCUDNN_BATCH_SIZE_POLICY"},
               {"UCUDNN_EXCLUDE_ALGORITHM=cudnn:FFT", "UCUDNN_EXCLUDE_ALGORITHMS"}};
  for (const auto& c : cases) {
    const auto said = said_about({"PATH=/bin", c.entry});
    ASSERT_EQ(said.size(), 1u) << c.entry;
    const std::string name = std::string(c.entry).substr(0, std::string(c.entry).find('='));
    EXPECT_EQ(said[0],
              name + " is no setting of ucudnn (did you mean " + c.meant + "?); it is ignored");
  }
}

TEST(SettingNames, SettingsAndAProgramsOwnVariablesAreLeftAlone) {
  std::vector<const char*> environment;
  std::vector<std::string> entries;
  for (const auto name : setting_names()) entries.push_back(std::string(name) + "=1");
  for (const auto& entry : entries) environment.push_back(entry.c_str());
  for (const char* own :
       {"UCUDNN_TEST_SEED=5", "UCUDNN_HYBRID_CHILD=1", "UCUDNN_PRELOAD=x.so", "UCUDNN=1",
        "UCUDNN_=1", "UCUDNN_LIMIT=8MiB", "HYBRID=on", "ucudnn_hybrid=on", "UCUDNN_LOG_LEVEL",
        // A site's own, three mistakes from a setting.
        "UCUDNN_BENCHMARK_OUT=x", "UCUDNN_WORKSPACE_LIMIT_MB=8", "UCUDNN_PRELOAD_LIBRARIES=a:b"})
    environment.push_back(own);
  EXPECT_TRUE(said_about(environment).empty());
  EXPECT_TRUE(misspelt_settings(nullptr).empty());
}

}  // namespace
}  // namespace ucudnn
