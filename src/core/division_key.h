#pragma once
// How a WD plan is named in the store: by the set of its kernels and their relative runs per
// iteration, whatever the order they were met in. The shim learns the network from the calls
// (first use order, threads interleaved) while `ucudnn bench` reads it from a file: both name
// one network the same way, so that a division made offline is found at run time.
//
// Members that share one segment of the arena (kernels of one stream, issue 36) say so in the
// name: "hash*runs@i;" where i is the listed position of the first member of its segment; a
// member listed without "@" starts a segment of its own. Names stored before sharing existed
// have no "@": every kernel its own segment, as they were divided.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ucudnn {

struct DivisionMember {
  // KernelKey::hash_hex() of the kernel the segment is divided for, "+deterministic" after it
  // where the kernel is kept to deterministic algorithms (the shim's graph API plans)
  std::string kernel_hash;
  std::int64_t runs = 1;  // runs per iteration: a kernel run three times weighs three times
  // Members with the same label share a segment; kOwnSegment: one of its own. Parsed
  // subjects label each member with the listed position of its segment's first member.
  std::int64_t segment = kOwnSegment;
  static constexpr std::int64_t kOwnSegment = -1;
  friend bool operator==(const DivisionMember&, const DivisionMember&) = default;
};

struct DivisionKey {
  std::string subject;             // "network:" then "hash*runs;" per member, sorted by hash
  std::vector<std::size_t> order;  // order[i]: the input member listed i-th (the stored order)
  // segment_of[i]: the listed position of the first member sharing the i-th listed's segment
  std::vector<std::size_t> segment_of;
};

// Runs are divided by their greatest common divisor: an iteration counted twice is the same.
DivisionKey division_key(const std::vector<DivisionMember>& members);

// The members a subject lists, in its order; nullopt for a subject in another form.
std::optional<std::vector<DivisionMember>> parse_division_subject(std::string_view subject);

// Parsed members' segment labels, as shared_segment_layout (core/workspace_sharing.h) takes them.
std::vector<std::size_t> segment_labels(const std::vector<DivisionMember>& parsed);

}  // namespace ucudnn
