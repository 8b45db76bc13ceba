#pragma once
// Byte sizes as people write them: "64MiB", "1GiB", "512 KiB", "1.5GB", "4096".
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/expected.h"

namespace ucudnn {

// Binary (KiB ... EiB; K ... E) units in any case, and decimal ones (kB ... EB) as written: "KB"
// or "mb" is read as 1000 by some and 1024 by others, so it is an error saying which to write. A
// plain number is bytes, whole, to 2^64 - 1 exactly. The error names the text and the forms
// accepted.
Expected<std::uint64_t> parse_byte_size(std::string_view text);

// Where `text` is a number without a unit from 1 to 65536: a note that it is bytes, as
// parse_byte_size reads it, since "512" for a workspace is mostly a slip for 512MiB, and costs
// every fast algorithm without a word. nullopt otherwise: 0 (no workspace), and larger numbers,
// which as mebibytes would be more than 64 GiB (bytes meant: 204800).
std::optional<std::string> unitless_size_note(std::string_view text);

// Where `text` is a per-kernel workspace limit of 0, in any spelling: a note that it allows no
// workspace at all, since elsewhere 0 often means no limit (and a total of 0 turns WD off).
std::optional<std::string> zero_limit_note(std::string_view text);

std::string format_byte_size(std::uint64_t bytes);  // "64 MiB", "1.5 GiB", "100 B"

// A limit to suggest: at least `bytes`, in the largest unit it reaches, with the fewest decimals
// (none, one, two; none above TiB) that round it up by under 1% ("1.04 MiB" for 1090519 bytes,
// where format_byte_size's "1.0 MiB" would be too little; "31.2 KiB" for 31936).
// parse_byte_size reads it back as at least `bytes`.
std::string format_byte_size_at_least(std::uint64_t bytes);

}  // namespace ucudnn
