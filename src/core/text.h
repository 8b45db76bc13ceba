#pragma once
// Small text helpers shared by the parsers of names people type (policies, networks,
// log levels, environment values).
#include <cstddef>
#include <string>
#include <string_view>

namespace ucudnn {

// ASCII case-insensitive equality.
bool equals_ignoring_case(std::string_view a, std::string_view b);

// "1 kernel", "3 kernels": `noun` in the singular, its plural made with "s".
std::string counted(std::size_t count, std::string_view noun);
// The same with a plural of its own: counted(3, "query", "queries").
std::string counted(std::size_t count, std::string_view noun, std::string_view plural);

// `word` as a POSIX shell reads it back, for a command line to paste: as it is where nothing in
// it is special, else in single quotes.
std::string shell_word(const std::string& word);

}  // namespace ucudnn
