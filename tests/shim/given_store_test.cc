// The shim opens no database itself: its front ends hand it a store through store_source.h,
// and this test is a front end that hands it its own (a MemoryStore that counts how it was
// asked for), to show that the registry uses whatever store it is given.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/memory_store.h"
#include "shim/registry.h"
#include "shim/store_source.h"

namespace ucudnn::shim {

namespace {
int stores_opened = 0;
std::vector<std::string> paths_asked;
}  // namespace

std::unique_ptr<BenchmarkStore> open_store(const Settings&) {
  ++stores_opened;
  return std::make_unique<MemoryStore>();
}

std::unique_ptr<BenchmarkStore> open_store_at(const std::string& path) {
  paths_asked.push_back(path);
  if (path == "refused.db") return nullptr;
  return std::make_unique<MemoryStore>();
}

namespace {

const PlanKey kKey{"test-device", "a kernel", "powerOfTwo", 1 << 20, "WR"};

std::vector<Configuration> one_plan() {
  Configuration configuration;
  configuration.micro.push_back({"cudnn", "FFT", 8, 1.5, 4096});
  return {configuration};
}

TEST(GivenStore, TheRegistryUsesTheStoreItsFrontEndGives) {
  Registry& registry = Registry::instance();
  BenchmarkStore& store = registry.store();
  EXPECT_EQ(&registry.store(), &store);
  EXPECT_EQ(stores_opened, 1) << "the store is asked for once per process";
  EXPECT_NE(dynamic_cast<MemoryStore*>(&store), nullptr);
  store.put_plan(kKey, one_plan());
  EXPECT_EQ(registry.store().find_plan(kKey), one_plan());

  EXPECT_FALSE(registry.use_database("refused.db"));
  EXPECT_EQ(&registry.store(), &store) << "a store that cannot open leaves the old one in use";
  EXPECT_TRUE(registry.use_database("other.db"));
  EXPECT_EQ(paths_asked, (std::vector<std::string>{"refused.db", "other.db"}));
  EXPECT_NE(&registry.store(), &store);
  EXPECT_FALSE(registry.store().find_plan(kKey)) << "the new store is the one given";
  EXPECT_EQ(stores_opened, 1);
}

}  // namespace
}  // namespace ucudnn::shim
