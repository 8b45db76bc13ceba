#include "db/layered_store.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "core/memory_store.h"
#include "db/default_store.h"
#include "db/sqlite_store.h"
#include "db_test_support.h"

namespace ucudnn {
namespace {

using namespace ucudnn::testing;

struct Layers {
  TempFolder folder;
  std::string user = folder.file("user/ucudnn.db");
  std::string system = folder.file("site/ucudnn.db");

  Layers() {
    SqliteStore site(system);
    site.put_measurements({supported(gpu_fingerprint(), kernel(4), "FFT", 9.0, 90),
                           supported(gpu_fingerprint(), kernel(4), "WINOGRAD", 3.0, 30)});
    site.put_plan(plan_key(gpu_fingerprint()), sample_plan(32));
    site.put_plan(plan_key(gpu_fingerprint(), 16), sample_plan(16));
  }

  LayeredStore open(Warnings& warnings) {
    return LayeredStore(std::make_unique<SqliteStore>(
                            user, store_options(StoreAccess::kReadWrite, warnings.sink())),
                        std::make_unique<SqliteStore>(
                            system, store_options(StoreAccess::kShared, warnings.sink())));
  }
};

TEST(LayeredStore, TheUserLayerWinsAndTheSystemLayerIsNeverWritten) {
  Layers layers;
  const auto system_bytes = read_file(layers.system);
  const auto system_time = std::filesystem::last_write_time(layers.system);
  Warnings warnings;
  {
    auto store = layers.open(warnings);
    // Only the system knows it: the system answers.
    auto fft = store.find_measurement(gpu_fingerprint(), kernel(4), "cudnn", "FFT");
    ASSERT_TRUE(fft);
    EXPECT_EQ(fft->measurement->time_ms, 9.0);
    EXPECT_EQ(store.find_plan(plan_key(gpu_fingerprint())), sample_plan(32));

    // The user measures it again: the user's answer wins from now on.
    store.put_measurements({supported(gpu_fingerprint(), kernel(4), "FFT", 1.0, 10, 1)});
    store.put_plan(plan_key(gpu_fingerprint()), sample_plan(30));
    EXPECT_EQ(
        store.find_measurement(gpu_fingerprint(), kernel(4), "cudnn", "FFT")->measurement->time_ms,
        1.0)
        << "the user layer wins even with an older measurement";
    EXPECT_EQ(store.find_plan(plan_key(gpu_fingerprint())), sample_plan(30));
    EXPECT_EQ(store.find_measurement(gpu_fingerprint(), kernel(4), "cudnn", "WINOGRAD")
                  ->measurement->time_ms,
              3.0);
    EXPECT_EQ(store.find_plan(plan_key(gpu_fingerprint(), 16)), sample_plan(16));

    // New results go to the user layer only.
    store.put_measurements({unsupported(gpu_fingerprint(), kernel(8), "FFT")});
    EXPECT_TRUE(store.find_measurement(gpu_fingerprint(), kernel(8), "cudnn", "FFT"));
    EXPECT_FALSE(store.system()->find_measurement(gpu_fingerprint(), kernel(8), "cudnn", "FFT"));
    EXPECT_EQ(static_cast<SqliteStore*>(store.system())->state(), StoreState::kReadOnly);
  }
  EXPECT_EQ(read_file(layers.system), system_bytes);
  EXPECT_EQ(std::filesystem::last_write_time(layers.system), system_time);
  EXPECT_FALSE(std::filesystem::exists(layers.system + "-journal"));
  EXPECT_EQ(warnings.count(), 0u) << warnings.all();
}

// Which candidates a device offered for a kernel, read back without the device: every name
// with a result (unsupported ones too) at any of the micro-kernels asked, from both layers,
// each once, sorted; another backend, device or kernel counts for nothing. The memory store,
// the reference, answers the same.
TEST(LayeredStore, MeasuredAlgorithmsAreEveryNameWithAResultAtTheKernelsAsked) {
  Layers layers;
  Warnings warnings;
  auto store = layers.open(warnings);
  MemoryStore memory;
  const std::vector<MeasurementRecord> records = {
      supported(gpu_fingerprint(), kernel(4), "FFT", 9.0, 90),
      supported(gpu_fingerprint(), kernel(4), "WINOGRAD", 3.0, 30),
      supported(gpu_fingerprint(), kernel(2), "eng12{k2=1,k3=0}", 1.0, 10),
      unsupported(gpu_fingerprint(), kernel(1), "eng7"),
      supported(gpu_fingerprint(), kernel(8), "eng99", 1.0, 10)};
  store.put_measurements({records.begin() + 2, records.end()});  // the rest is the system's
  memory.put_measurements(records);
  const std::set<std::string> asked = {kernel(1).to_string(), kernel(2).to_string(),
                                       kernel(4).to_string()};
  const std::vector<std::string> expected = {"FFT", "WINOGRAD", "eng12{k2=1,k3=0}", "eng7"};
  EXPECT_EQ(store.measured_algorithms(gpu_fingerprint(), "cudnn", asked), expected);
  EXPECT_EQ(memory.measured_algorithms(gpu_fingerprint(), "cudnn", asked), expected);
  EXPECT_TRUE(store.measured_algorithms(gpu_fingerprint(), "cpu", asked).empty());
  EXPECT_TRUE(store.measured_algorithms("kind=other", "cudnn", asked).empty());
  EXPECT_TRUE(store.measured_algorithms(gpu_fingerprint(), "cudnn", {}).empty());
  EXPECT_EQ(warnings.count(), 0u) << warnings.all();
}

TEST(LayeredStore, ABadSystemDatabaseIsIgnoredNotReplaced) {
  Layers layers;
  write_file(layers.system, "not a database at all, and not ours to fix");
  Warnings warnings;
  auto store = layers.open(warnings);
  EXPECT_FALSE(store.find_measurement(gpu_fingerprint(), kernel(4), "cudnn", "FFT"));
  store.put_measurements({supported(gpu_fingerprint(), kernel(4), "FFT", 1.0, 10)});
  EXPECT_TRUE(store.find_measurement(gpu_fingerprint(), kernel(4), "cudnn", "FFT"));
  ASSERT_EQ(warnings.count(), 1u) << warnings.all();
  EXPECT_NE(warnings.messages[0].find("system benchmark database " + layers.system),
            std::string::npos)
      << warnings.all();
  EXPECT_EQ(read_file(layers.system), "not a database at all, and not ours to fix");
  for (const auto& entry : std::filesystem::directory_iterator(layers.folder.file("site")))
    if (entry.path().filename() != "ucudnn.db.lock") {
      EXPECT_EQ(entry.path().filename(), "ucudnn.db") << "nothing is set aside";
    }
}

TEST(LayeredStore, AMissingSystemDatabaseIsOneWarning) {
  TempFolder folder;
  Warnings warnings;
  LayeredStore store(
      std::make_unique<SqliteStore>(folder.file("user.db"),
                                    store_options(StoreAccess::kReadWrite, warnings.sink())),
      std::make_unique<SqliteStore>(folder.file("nowhere/site.db"),
                                    store_options(StoreAccess::kShared, warnings.sink())));
  store.put_plan(plan_key(gpu_fingerprint()), sample_plan());
  EXPECT_EQ(store.find_plan(plan_key(gpu_fingerprint())), sample_plan());
  EXPECT_EQ(warnings.count(), 1u) << warnings.all();
  EXPECT_FALSE(std::filesystem::exists(folder.file("nowhere"))) << "read-only creates nothing";
}

// A folder or a text file given as the system database is named as what it is, as the user's
// database is: SQLite's own word for a folder opened immutable was "disk I/O error".
TEST(LayeredStore, ASystemDatabaseThatIsNoDatabaseFileIsNamedAsWhatItIs) {
  TempFolder folder;
  std::filesystem::create_directory(folder.file("site"));
  std::ofstream(folder.file("notes.txt")) << "site benchmarks live elsewhere\n";
  for (const auto& [file, said] : {std::pair<std::string, std::string>{"site", ": a directory"},
                                   {"notes.txt", ": a text file, not a SQLite database"}}) {
    Warnings warnings;
    SqliteStore system(folder.file(file), store_options(StoreAccess::kShared, warnings.sink()));
    EXPECT_EQ(system.state(), StoreState::kDisabled);
    ASSERT_EQ(warnings.count(), 1u) << warnings.all();
    EXPECT_NE(warnings.messages[0].find(folder.file(file) + " is not used" + said),
              std::string::npos)
        << warnings.all();
  }
}

Environment fake_environment(std::map<std::string, std::string> values) {
  auto shared = std::make_shared<const std::map<std::string, std::string>>(std::move(values));
  return [shared](const char* name) -> const char* {
    auto found = shared->find(name);
    return found == shared->end() ? nullptr : found->second.c_str();
  };
}

TEST(DefaultStore, LocationsFollowTheEnvironment) {
  EXPECT_EQ(database_locations(fake_environment({{"UCUDNN_DATABASE", "/data/u.db"},
                                                 {"XDG_CACHE_HOME", "/xdg"},
                                                 {"HOME", "/home/ada"}}))
                .user,
            "/data/u.db");
  EXPECT_EQ(
      database_locations(fake_environment({{"XDG_CACHE_HOME", "/xdg"}, {"HOME", "/home/ada"}}))
          .user,
      "/xdg/ucudnn/ucudnn.db");
  EXPECT_EQ(
      database_locations(fake_environment({{"XDG_CACHE_HOME", "relative"}, {"HOME", "/home/ada"}}))
          .user,
      "/home/ada/.cache/ucudnn/ucudnn.db")
      << "a relative XDG_CACHE_HOME is ignored";
  EXPECT_EQ(database_locations(fake_environment({{"HOME", "/home/ada"}})).user,
            "/home/ada/.cache/ucudnn/ucudnn.db");
  EXPECT_NE(database_locations(fake_environment({})).user, "")
      << "without HOME, the passwd entry's home folder";
  auto both = database_locations(
      fake_environment({{"HOME", "/home/ada"}, {"UCUDNN_SYSTEM_DATABASE", "/shared/site.db"}}));
  EXPECT_EQ(both.system, "/shared/site.db");
  EXPECT_EQ(database_locations(fake_environment({{"HOME", "/h"}})).system, "");
  // Relative paths are made absolute where the process started (a program that changed its
  // folder later opened another file), ":memory:" is kept.
  const auto here = std::filesystem::current_path();
  const auto relative = database_locations(fake_environment(
      {{"UCUDNN_DATABASE", "runs/../u.db"}, {"UCUDNN_SYSTEM_DATABASE", "site.db"}}));
  EXPECT_EQ(relative.user, (here / "u.db").string());
  EXPECT_EQ(relative.system, (here / "site.db").string());
  EXPECT_EQ(database_locations(fake_environment({{"UCUDNN_DATABASE", ":memory:"}})).user,
            ":memory:");
  // In another case it made a file ":MEMORY:" in the working folder, without a word.
  EXPECT_EQ(database_locations(fake_environment({{"UCUDNN_DATABASE", ":MEMORY:"}})).user,
            ":memory:");
}

// A "~/" the shell did not expand (quoted, after --database=, set by a program) is the home
// folder: it used to make a folder named "~" in the working directory.
TEST(DefaultStore, ALeadingTildeIsTheHomeFolder) {
  const auto home = fake_environment({{"HOME", "/home/ada"},
                                      {"UCUDNN_DATABASE", "~/runs/u.db"},
                                      {"UCUDNN_SYSTEM_DATABASE", "~/site.db"}});
  EXPECT_EQ(database_locations(home).user, "/home/ada/runs/u.db");
  EXPECT_EQ(database_locations(home).system, "/home/ada/site.db");
  const auto ada = fake_environment({{"HOME", "/home/ada"}});
  EXPECT_EQ(home_expanded("~", ada), "/home/ada");
  for (const char* unchanged : {"~ada/u.db", "runs/~/u.db", "/abs/u.db", "u~.db", ":memory:", ""})
    EXPECT_EQ(home_expanded(unchanged, ada), unchanged);
}

TEST(DefaultStore, OpensTheUserDatabaseOverTheSystemDatabase) {
  Layers layers;
  Warnings warnings;
  auto environment = fake_environment(
      {{"UCUDNN_DATABASE", layers.user}, {"UCUDNN_SYSTEM_DATABASE", layers.system}});
  {
    auto store =
        open_default_store(store_options(StoreAccess::kReadWrite, warnings.sink()), environment);
    ASSERT_TRUE(dynamic_cast<LayeredStore*>(store.get()));
    EXPECT_TRUE(store->find_measurement(gpu_fingerprint(), kernel(4), "cudnn", "FFT"));
    store->put_plan(plan_key(cpu_fingerprint()), sample_plan());
  }
  SqliteStore user(layers.user);
  EXPECT_EQ(user.find_plan(plan_key(cpu_fingerprint())), sample_plan());
  EXPECT_EQ(warnings.count(), 0u) << warnings.all();

  auto xdg = fake_environment({{"XDG_CACHE_HOME", layers.folder.file("xdg")}});
  auto store = open_default_store(store_options(StoreAccess::kReadWrite, warnings.sink()), xdg);
  ASSERT_TRUE(dynamic_cast<SqliteStore*>(store.get()));
  EXPECT_EQ(static_cast<SqliteStore*>(store.get())->path(),
            layers.folder.file("xdg/ucudnn/ucudnn.db"));
  EXPECT_TRUE(std::filesystem::exists(layers.folder.file("xdg/ucudnn/ucudnn.db")));

  auto memory = fake_environment({{"UCUDNN_DATABASE", kInMemoryDatabase}});
  auto in_memory =
      open_default_store(store_options(StoreAccess::kReadWrite, warnings.sink()), memory);
  in_memory->put_plan(plan_key(cpu_fingerprint()), sample_plan());
  EXPECT_EQ(in_memory->find_plan(plan_key(cpu_fingerprint())), sample_plan());
  EXPECT_EQ(warnings.count(), 0u) << warnings.all();
}

}  // namespace
}  // namespace ucudnn
