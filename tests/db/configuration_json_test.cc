#include "db/configuration_json.h"

#include <gtest/gtest.h>

#include <limits>

#include "support/random_seed.h"

namespace ucudnn::db {
namespace {

using ucudnn::testing::SeededRandom;

TEST(ConfigurationJson, RoundTripsExactly) {
  SeededRandom random;
  auto micro_list = [&](std::int64_t fewest) {
    std::vector<MicroConfiguration> list;
    for (auto n = random.uniform(fewest, 5); n > 0; --n)
      list.push_back(MicroConfiguration{
          random.chance(0.5) ? "cudnn" : "cpu", "ALGO_" + std::to_string(random.uniform(0, 9)),
          random.uniform(1, std::numeric_limits<std::int64_t>::max()),
          std::uniform_real_distribution<double>(0, 1e6)(random.engine()),
          static_cast<std::uint64_t>(random.engine()())});
    return list;
  };
  for (int round = 0; round < 200; ++round) {
    std::vector<Configuration> plan(static_cast<std::size_t>(random.uniform(0, 4)));
    for (auto& configuration : plan) {
      // A CPU/GPU hybrid configuration may leave the device no share.
      const bool hybrid = random.chance(0.4);
      configuration.micro = micro_list(hybrid ? 0 : 1);
      if (hybrid)
        configuration.offload = OffloadedShare{
            micro_list(1), std::uniform_real_distribution<double>(0, 10)(random.engine()),
            static_cast<std::uint64_t>(random.engine()())};
    }
    auto back = configurations_from_text(configurations_to_text(plan));
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(*back, plan);
  }
}

TEST(ConfigurationJson, ErrorsNameTheField) {
  const std::pair<const char*, const char*> cases[] = {
      {"{}", ": {} is not a list of configurations"},
      {"[3]", "[0]: 3 is not an object"},
      {"[{}]", "[0].micro: missing"},
      {"[{\"micro\": {}}]", "[0].micro: {} is not a list"},
      {"[{\"micro\": [{}]}]", "[0].micro[0].backend: missing"},
      {"[{\"micro\": [{\"backend\": \"a\", \"algorithm\": \"b\", \"batch\": 2, \"time_ms\": 1, "
       "\"workspace_bytes\": 0}, {\"backend\": \"a\", \"algorithm\": \"b\", \"batch\": -2, "
       "\"time_ms\": 1, \"workspace_bytes\": 0}]}]",
       "[0].micro[1].batch: -2 is not an integer >= 1"},
      {"[{\"micro\": [{\"backend\": \"a\", \"algorithm\": \"b\", \"batch\": 2, \"time_ms\": 1, "
       "\"workspace_bytes\": 18446744073709551616}]}]",
       "[0].micro[0].workspace_bytes: 1.8446744073709552e+19 is not a non-negative integer"},
      {"[", ": not valid JSON"},
      {"[{\"micro\": [], \"offload\": 1}]", "[0].offload: 1 is not an object"},
      {"[{\"micro\": [], \"offload\": {\"micro\": []}}]",
       "[0].offload.micro: an offloaded share has no micro-batches"},
      {"[{\"micro\": [], \"offload\": {\"micro\": [{\"backend\": \"cpu\", \"algorithm\": "
       "\"b\", \"batch\": 2, \"time_ms\": 1, \"workspace_bytes\": 0}], \"copy_ms\": -1, "
       "\"device_bytes\": 0}}]",
       "[0].offload.copy_ms: -1 is not a finite number >= 0"},
  };
  for (const auto& [text, expected] : cases) {
    auto parsed = configurations_from_text(text);
    ASSERT_FALSE(parsed) << text;
    EXPECT_EQ(parsed.error(), expected) << text;
  }
}

TEST(ConfigurationJson, DeepNestingIsJustInvalid) {
  const std::string deep = std::string(1'000'000, '[') + std::string(1'000'000, ']');
  EXPECT_FALSE(configurations_from_text(deep));
  const std::string unclosed(1'000'000, '{');
  EXPECT_FALSE(configurations_from_text(unclosed));
  // A deep value parsed elsewhere (an import file) gives an error that shows it briefly.
  auto value = nlohmann::json::parse(deep);
  auto parsed = configurations_from_json(value);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error(), "[0]: [[[...]]] is not an object");
}

}  // namespace
}  // namespace ucudnn::db
