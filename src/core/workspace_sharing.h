#pragma once
// WD where kernels share (issue 36). Kernels that never run at once (one stream, in order)
// share one segment of the arena: each runs its fastest configuration within the segment, one
// after another, so giving them a segment each could only slow them. Kernels that may overlap
// (other streams, or layers that keep buffers of their own) need segments of their own. A
// sharing group's options are its kernels' fronts merged: a segment of s bytes costs the sum
// of each kernel's weighted fastest time within s. The WD ILP (workspace_division.h) then
// divides the total among the groups. One group is WR within the total, in one segment.
#include <cstdint>
#include <string>
#include <vector>

#include "core/expected.h"
#include "core/pareto_front.h"

namespace ucudnn {

struct SharingKernel {
  std::string name;       // for messages
  ParetoFront front;      // desirable configurations, times unweighted
  double weight = 1;      // runs per iteration
  std::size_t group = 0;  // kernels of one group share its segment in stream order
};

struct SharedDivision {
  std::vector<std::size_t> choice;           // per kernel, the index into its front
  std::vector<std::uint64_t> segment_bytes;  // per group
  std::vector<std::uint64_t> offsets;        // per group, in the arena
  double time_ms = 0;                        // summed over kernels, weighted
  std::uint64_t workspace_bytes = 0;         // the arena, as segment_offsets lays it out
  std::size_t variables = 0;                 // of the ILP among the groups (0: none needed)
};

// A group's segment sizes worth having and their weighted time, as a Pareto front: each point
// is one micro-configuration whose workspace is the segment's size.
ParetoFront merged_front(const std::vector<const SharingKernel*>& members);

// The index of the fastest configuration of `front` within `bytes`; front.size() if none fits.
std::size_t fastest_within(const ParetoFront& front, std::uint64_t bytes);

// Groups are numbered 0..groups-1; a group without kernels gets no bytes. Errors as
// plan_workspace_division's.
Expected<SharedDivision> plan_shared_division(const std::vector<SharingKernel>& kernels,
                                              std::size_t groups, std::uint64_t total_limit,
                                              std::uint64_t alignment = 256);

// Where each member of a stored division runs: members with the same segment_of label share
// one segment, sized for the largest of them, laid out in order of first appearance by
// segment_offsets (core/workspace_division.h). The arena is never larger than the one
// plan_shared_division planned for the same choices, though the offsets may differ: which
// segment goes last, unpadded, depends on the order.
struct SegmentLayout {
  std::vector<std::uint64_t> offset;  // per member
  std::vector<std::uint64_t> bytes;   // per member: its segment's size
  std::uint64_t arena_bytes = 0;
};
SegmentLayout shared_segment_layout(const std::vector<Configuration>& chosen,
                                    const std::vector<std::size_t>& segment_of,
                                    std::uint64_t alignment = 256);

}  // namespace ucudnn
