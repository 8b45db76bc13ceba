#pragma once
// Byte sizes as people write them: "64MiB", "1GiB", "512 KiB", "1.5GB", "4096".
#include <cstdint>
#include <string>
#include <string_view>

#include "core/expected.h"

namespace ucudnn {

// Binary (KiB ... EiB; K ... E) units in any case, and decimal ones (kB ... EB) as written: "KB"
// or "mb" is read as 1000 by some and 1024 by others, so it is an error saying which to write. A
// plain number is bytes, whole, to 2^64 - 1 exactly. The error names the text and the forms
// accepted.
Expected<std::uint64_t> parse_byte_size(std::string_view text);

std::string format_byte_size(std::uint64_t bytes);  // "64 MiB", "1.5 GiB", "100 B"

// A limit to suggest: at least `bytes`, in the largest unit where a whole number is exact or
// rounded up by under 1% ("1065 KiB" for 1090519 bytes, where format_byte_size's "1.0 MiB"
// would be too little).
std::string format_byte_size_at_least(std::uint64_t bytes);

}  // namespace ucudnn
