#pragma once
// A fresh folder under the system's temporary directory, removed with all it holds when the
// test ends (permissions restored first, for tests that take them away).
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace ucudnn::testing {

class TempFolder {
 public:
  explicit TempFolder(const std::string& prefix = "ucudnn-test") {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
    // Tests may drop to an unprivileged user; it must be able to reach inside.
    std::filesystem::permissions(path_, std::filesystem::perms::all);
  }
  ~TempFolder() {
    std::error_code ignored;
    restore_permissions(path_);
    std::filesystem::remove_all(path_, ignored);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;

  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

  // Names in the folder starting with `prefix`, e.g. the files set aside.
  std::vector<std::string> names_starting_with(const std::string& prefix) const {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(path_))
      if (entry.path().filename().string().rfind(prefix, 0) == 0)
        names.push_back(entry.path().filename().string());
    return names;
  }

 private:
  static void restore_permissions(const std::filesystem::path& folder) {
    std::error_code ignored;
    std::filesystem::permissions(folder, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ignored);
    for (const auto& entry : std::filesystem::directory_iterator(folder, ignored))
      if (entry.is_directory(ignored) && !entry.is_symlink(ignored))
        restore_permissions(entry.path());
  }
  std::filesystem::path path_;
};

}  // namespace ucudnn::testing
