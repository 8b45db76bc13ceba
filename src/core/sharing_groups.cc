#include "core/sharing_groups.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace ucudnn {

namespace {

// Union-find over streams.
struct Streams {
  std::map<std::uintptr_t, std::size_t> index;
  std::vector<std::size_t> parent;
  std::vector<std::uintptr_t> stream;

  std::size_t of(std::uintptr_t s) {
    auto [it, inserted] = index.try_emplace(s, parent.size());
    if (inserted) {
      parent.push_back(parent.size());
      stream.push_back(s);
    }
    return it->second;
  }
  std::size_t root(std::size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  }
  void join(std::size_t a, std::size_t b) { parent[root(a)] = root(b); }
};

}  // namespace

SharingGroups sharing_groups(const std::vector<SharingMember>& members) {
  Streams streams;
  for (const auto& m : members) {
    if (m.buffer || m.streams.empty()) continue;
    const std::size_t first = streams.of(m.streams.front());
    for (auto s : m.streams) streams.join(streams.of(s), first);
  }
  SharingGroups groups;
  groups.group_of.assign(members.size(), 0);
  std::map<std::size_t, std::size_t> group_of_root;
  std::map<std::string, std::size_t> group_of_buffer;
  std::vector<std::size_t> size;
  std::vector<std::size_t> unplaced;
  auto new_group = [&] {
    size.push_back(0);
    groups.streams.emplace_back();
    groups.buffer.emplace_back();
    return groups.count++;
  };
  for (std::size_t i = 0; i < members.size(); ++i) {
    const auto& m = members[i];
    std::size_t g;
    if (m.buffer) {
      auto [it, inserted] = group_of_buffer.try_emplace(*m.buffer, 0);
      if (inserted) {
        it->second = new_group();
        groups.buffer[it->second] = *m.buffer;
      }
      g = it->second;
    } else if (m.streams.empty()) {
      unplaced.push_back(i);
      continue;
    } else {
      auto [it, inserted] =
          group_of_root.try_emplace(streams.root(streams.of(m.streams.front())), 0);
      if (inserted) it->second = new_group();
      g = it->second;
      for (auto s : m.streams) {
        auto& listed = groups.streams[g];
        if (std::find(listed.begin(), listed.end(), s) == listed.end()) listed.push_back(s);
      }
    }
    groups.group_of[i] = g;
    ++size[g];
  }
  if (!unplaced.empty()) {
    // Asked about, never run: most likely on the stream most kernels run on.
    std::size_t largest = 0;
    for (std::size_t g = 0; g < groups.count; ++g)
      if (!groups.streams[g].empty() &&
          (groups.streams[largest].empty() || size[g] > size[largest]))
        largest = g;
    if (groups.count == 0 || groups.streams[largest].empty()) largest = new_group();
    for (auto i : unplaced) groups.group_of[i] = largest;
  }
  return groups;
}

std::vector<std::string> sharing_reasons(
    const SharingGroups& groups, const std::function<std::string(std::uintptr_t)>& stream_name) {
  auto names = [&](const std::vector<std::uintptr_t>& streams) {
    std::string text;
    for (std::size_t i = 0; i < streams.size(); ++i)
      text.append(i == 0                    ? ""
                  : i + 1 == streams.size() ? " and "
                                            : ", ")
          .append(stream_name(streams[i]));
    return text;
  };
  std::vector<std::size_t> kernels(groups.count, 0);
  for (auto g : groups.group_of) ++kernels[g];
  std::vector<std::string> why(groups.count);
  for (std::size_t g = 0; g < groups.count; ++g) {
    if (groups.buffer[g]) {
      why[g] = "in " + *groups.buffer[g] + ", which the application keeps for it";
      continue;
    }
    std::string others;
    for (std::size_t o = 0; o < groups.count; ++o)
      if (o != g && !groups.streams[o].empty())
        others.append(others.empty() ? "" : "; ")
            .append(std::to_string(kernels[o]))
            .append(kernels[o] == 1 ? " kernel on " : " kernels on ")
            .append(names(groups.streams[o]));
    // Kernels only asked about (Get/Find) when the division is made have no stream yet.
    if (groups.streams[g].empty())
      why[g] = others.empty()
                   ? "not run yet (only asked about), taken to run one after another: nothing "
                     "can overlap them"
                   : "not run yet (only asked about), taken to run one after another; they may "
                     "overlap the " +
                         others;
    else
      why[g] = "on " + names(groups.streams[g]) +
               (groups.streams[g].size() > 1
                    ? " (tied into one segment: some kernel runs on more than one of them, as "
                      "layers of the same shape do, ordered between them by events)"
                    : "") +
               (others.empty() ? ", where every kernel runs: nothing can overlap them"
                               : "; they may overlap the " + others);
  }
  return why;
}

}  // namespace ucudnn
