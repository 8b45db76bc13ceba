// `ucudnn db vacuum` (commands.h): the file compacted.
#include <filesystem>

#include "db/database_file.h"
#include "db/maintenance/commands.h"

namespace ucudnn::db {

Expected<VacuumResult> vacuum_database(const std::string& path, const sqlite::LockWait& wait) {
  try {
    namespace fs = std::filesystem;
    std::error_code error;
    if (!fs::exists(path, error)) return Error{path + ": no such file"};
    VacuumResult result;
    result.size_before = fs::file_size(path, error);
    {
      // What info and check refuse (an empty file or one without ucudnn's tables) is refused
      // here too: opened for writing, it would be made a ucudnn database.
      auto readable = open_or_error(path, Access::kReadOnly, OpenOptions{wait});
      if (!readable) return Error{readable.error()};
    }
    {
      auto connection = open_or_error(path, Access::kReadWrite, OpenOptions{wait});
      if (!connection) return Error{connection.error()};
      // VACUUM rewrites the file through a temporary copy; it waits for other writers like
      // any write (busy timeout) and leaves the file as it was when it fails.
      connection.value().connection.execute("VACUUM");
    }
    result.size_after = fs::file_size(path, error);
    return result;
  } catch (const std::exception& error) {
    return Error{"vacuuming " + path + ": " + write_error(path, error)};
  }
}

}  // namespace ucudnn::db
