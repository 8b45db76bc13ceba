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
  } cases[] = {
      {"UCUDNN_WORKSPACE_LIMT=8MiB", "UCUDNN_WORKSPACE_LIMIT"},
      {"UCUDNN_LOGLEVEL=info", "UCUDNN_LOG_LEVEL"},
      {"UCUDNN_LOG_LEVLE=info", "UCUDNN_LOG_LEVEL"},
      {"UCUDNN_HYBIRD=on", "UCUDNN_HYBRID"},
      {"UCUDNN_DEVICE=0", "UCUDNN_DEVICES"},
      {"UCUDNN_DISABLED=1", "UCUDNN_DISABLE"},
      {"UCUDNN_BATCHSIZE_POLICY=all", "UCUDNN_BATCH_SIZE_POLICY"},
      {"UCUDNN_EXCLUDE_ALGORITHM=cudnn:FFT", "UCUDNN_EXCLUDE_ALGORITHMS"},
      // What people remember of a long name (they were ignored without a word: WD
      // stayed off under UCUDNN_TOTAL_WORKSPACE, the tool's --total-workspace).
      {"UCUDNN_TOTAL_WORKSPACE=1GiB", "UCUDNN_TOTAL_WORKSPACE_SIZE"},
      {"UCUDNN_TOTAL_WORKSPACE_LIMIT=1GiB", "UCUDNN_TOTAL_WORKSPACE_SIZE"},
      {"UCUDNN_WORKSPACE_SIZE=8MiB", "UCUDNN_WORKSPACE_LIMIT or UCUDNN_TOTAL_WORKSPACE_SIZE"},
      {"UCUDNN_BATCH_POLICY=all", "UCUDNN_BATCH_SIZE_POLICY"},
      {"UCUDNN_LOCK_TIMEOUT=2s", "UCUDNN_DATABASE_LOCK_TIMEOUT"},
      // Its words in another order, "max" for "limit" (these were ignored without a word).
      {"UCUDNN_MAX_WORKSPACE=8MiB", "UCUDNN_WORKSPACE_LIMIT"},
      {"UCUDNN_LIMIT_WORKSPACE=8MiB", "UCUDNN_WORKSPACE_LIMIT"},
      {"UCUDNN_WORKSPACE_MAXIMUM=8MiB", "UCUDNN_WORKSPACE_LIMIT"},
      {"UCUDNN_LEVEL_LOG=info", "UCUDNN_LOG_LEVEL"},
      // One word of a setting's name alone (these were ignored without a word, the job at 64 MiB
      // under UCUDNN_WORKSPACE=8MiB).
      {"UCUDNN_WORKSPACE=8MiB",
       "UCUDNN_WORKSPACE_LIMIT or UCUDNN_DEFAULT_WORKSPACE_LIMIT or UCUDNN_TOTAL_WORKSPACE_SIZE"},
      {"UCUDNN_LIMIT=8MiB",
       "UCUDNN_WORKSPACE_LIMIT or UCUDNN_DEFAULT_WORKSPACE_LIMIT or UCUDNN_BENCHMARK_LIMIT"},
      {"UCUDNN_LOG=info", "UCUDNN_LOG_LEVEL"},
      {"UCUDNN_EXCLUDE=cudnn:eng0", "UCUDNN_EXCLUDE_ALGORITHMS"},
      {"UCUDNN_POLICY=all", "UCUDNN_BATCH_SIZE_POLICY"}};
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
        "UCUDNN_=1", "UCUDNN_HOME=/opt/ucudnn", "HYBRID=on", "UCUDNN_LOG_LEVEL",
        // A site's own, three mistakes from a setting.
        "UCUDNN_BENCHMARK_OUT=x", "UCUDNN_WORKSPACE_LIMIT_MB=8", "UCUDNN_PRELOAD_LIBRARIES=a:b",
        // Two words off in any order, "max" for "limit" or not.
        "UCUDNN_LIMIT_MAX=1", "UCUDNN_SIZE_LIMIT=1", "UCUDNN_MAX_SIZE=1",
        "UCUDNN_MAX_BATCH_SIZE=1"})
    environment.push_back(own);
  EXPECT_TRUE(said_about(environment).empty());
  EXPECT_TRUE(misspelt_settings(nullptr).empty());
}

// Settings are read in upper case only: one in lower case was ignored without a word.
TEST(SettingNames, ASettingInLowerCaseIsNamed) {
  const auto said = said_about({"ucudnn_workspace_limit=8MiB", "Ucudnn_Hybrid=auto"});
  ASSERT_EQ(said.size(), 2u);
  EXPECT_EQ(said[0],
            "ucudnn_workspace_limit is no setting of ucudnn (did you mean UCUDNN_WORKSPACE_LIMIT? "
            "names are upper case); it is ignored");
  EXPECT_NE(said[1].find("did you mean UCUDNN_HYBRID?"), std::string::npos) << said[1];
  EXPECT_TRUE(said_about({"ucudnn_own_thing=1"}).empty());
}

}  // namespace
}  // namespace ucudnn
