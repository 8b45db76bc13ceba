#pragma once
// JSON that people write or edit by hand (network files, database exports): an object with a key
// given twice is refused. nlohmann::json keeps one of the two values without a word, so a field
// edited in one place and left in another would be read with a value its author may not have
// meant.
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ucudnn {

// As nlohmann::json::parse(text, nullptr, allow_exceptions); `duplicate` names the first key
// given twice in one object, with its path ("layers[3].filter"); the document is parsed whole
// either way.
nlohmann::json parse_json_keeping_every_key(std::string_view text,
                                            std::optional<std::string>& duplicate,
                                            bool allow_exceptions);

// "layers[3].filter: written twice in one object (JSON would keep one of the two values)"
std::string written_twice(const std::string& where);

// A parse error as people read it: "parse error at line 3, column 7: ...", without
// nlohmann::json's "[json.exception.parse_error.101] ".
std::string parse_error_text(const nlohmann::json::exception& error);

}  // namespace ucudnn
