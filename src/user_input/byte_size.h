#pragma once
// Byte sizes as people write them: "64MiB", "1GiB", "512 KiB", "1.5GB", "4096".
#include <cstdint>
#include <string>
#include <string_view>

#include "core/expected.h"

namespace ucudnn {

// Binary (KiB, MiB, GiB, TiB; K, M, G, T) and decimal (kB, MB, GB, TB) units, case-insensitive
// for the binary ones; a plain number is bytes. The error names the text and the forms accepted.
Expected<std::uint64_t> parse_byte_size(std::string_view text);

std::string format_byte_size(std::uint64_t bytes);  // "64 MiB", "1.5 GiB", "100 B"

}  // namespace ucudnn
