#pragma once
// Which kernels may run at once, and so which may share a segment of WD's arena (issue 36).
// Work on one stream runs in order, so kernels of one stream never overlap: they share. A
// kernel run on several streams ties them together (its segment is ordered between them by
// events), so streams that share a kernel form one group. Kernels of different groups are
// taken to be able to overlap. A kernel that runs in a buffer its application keeps for it
// (UcudnnHandle_t's layer ids, as Caffe keeps one per layer) shares only with kernels of the
// same buffer, as the paper's per-layer WD divides.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ucudnn {

struct SharingMember {
  std::vector<std::uintptr_t> streams;  // where it ran; none known: it joins the largest group
  // The application's own buffer it runs in, if any, named for people ("layer 7's Forward
  // buffer"): members naming one buffer share it.
  std::optional<std::string> buffer;
};

struct SharingGroups {
  std::vector<std::size_t> group_of;  // per member, groups numbered in order of first member
  std::size_t count = 0;
  // Per group: its streams in order of first sight (none for an application's buffer).
  std::vector<std::vector<std::uintptr_t>> streams;
  std::vector<std::optional<std::string>> buffer;  // per group: the application's buffer
};

SharingGroups sharing_groups(const std::vector<SharingMember>& members);

// Per group, for people, why its kernels run where they do: "on stream 1, where every kernel
// runs: nothing can overlap them", "on stream 1; they may overlap the 12 kernels on stream 2",
// "in layer 7's Forward buffer, which the application keeps for it".
std::vector<std::string> sharing_reasons(
    const SharingGroups& groups, const std::function<std::string(std::uintptr_t)>& stream_name);

}  // namespace ucudnn
