#include "user_input/strict_json.h"

#include <set>
#include <vector>

namespace ucudnn {

namespace {

// Where the parser is: each open object or list, with the key or index it is at.
struct Frame {
  bool list = false;
  long index = -1;  // a list's element being read
  std::string key;  // an object's key being read
  std::set<std::string> keys;
};

std::string path_to(const std::vector<Frame>& frames, const std::string& key) {
  std::string path;
  auto field = [&path](const std::string& name) {
    if (!path.empty()) path.push_back('.');
    path.append(name);
  };
  for (std::size_t i = 0; i + 1 < frames.size(); ++i) {
    if (frames[i].list) {
      path.push_back('[');
      path.append(std::to_string(frames[i].index));
      path.push_back(']');
    } else {
      field(frames[i].key);
    }
  }
  field(key);
  return path;
}

}  // namespace

nlohmann::json parse_json_keeping_every_key(std::string_view text,
                                            std::optional<std::string>& duplicate,
                                            bool allow_exceptions) {
  std::vector<Frame> frames;
  auto seen = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    const bool element =
        event == Event::object_start || event == Event::array_start || event == Event::value;
    if (element && !frames.empty() && frames.back().list) ++frames.back().index;
    if (event == Event::object_start || event == Event::array_start)
      frames.emplace_back().list = event == Event::array_start;
    if ((event == Event::object_end || event == Event::array_end) && !frames.empty())
      frames.pop_back();
    if (event == Event::key && !frames.empty() && parsed.is_string()) {
      const std::string key = parsed.get<std::string>();
      if (!frames.back().keys.insert(key).second && !duplicate) duplicate = path_to(frames, key);
      frames.back().key = key;
    }
    return true;
  };
  return nlohmann::json::parse(text, seen, allow_exceptions);
}

std::string written_twice(const std::string& where) {
  return where + ": written twice in one object (JSON would keep one of the two values)";
}

std::string parse_error_text(const nlohmann::json::exception& error) {
  std::string what = error.what();
  if (const auto bracket = what.find("] "); what.starts_with("[") && bracket != std::string::npos)
    what.erase(0, bracket + 2);
  return what;
}

}  // namespace ucudnn
