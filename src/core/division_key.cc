#include "core/division_key.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <numeric>
#include <tuple>

namespace ucudnn {

namespace {
constexpr std::string_view kPrefix = "network:";

bool whole_number(std::string_view digits, std::int64_t& value) {
  const auto [at, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  return error == std::errc{} && at == digits.data() + digits.size() && value >= 0;
}
}  // namespace

DivisionKey division_key(const std::vector<DivisionMember>& members) {
  DivisionKey key;
  key.order.resize(members.size());
  std::iota(key.order.begin(), key.order.end(), 0);
  std::sort(key.order.begin(), key.order.end(), [&](std::size_t a, std::size_t b) {
    return std::tie(members[a].kernel_hash, members[a].runs) <
           std::tie(members[b].kernel_hash, members[b].runs);
  });
  std::int64_t divisor = 0;
  for (const auto& m : members) divisor = std::gcd(divisor, std::max<std::int64_t>(m.runs, 1));
  if (divisor == 0) divisor = 1;
  key.subject = kPrefix;
  std::map<std::int64_t, std::size_t> first_listed;  // segment label -> listed position
  for (std::size_t listed = 0; listed < key.order.size(); ++listed) {
    const DivisionMember& m = members[key.order[listed]];
    std::size_t segment = listed;
    if (m.segment != DivisionMember::kOwnSegment)
      segment = first_listed.try_emplace(m.segment, listed).first->second;
    key.segment_of.push_back(segment);
    key.subject.append(m.kernel_hash)
        .append("*")
        .append(std::to_string(std::max<std::int64_t>(m.runs, 1) / divisor));
    if (segment != listed) key.subject.append("@").append(std::to_string(segment));
    key.subject.append(";");
  }
  return key;
}

std::optional<std::vector<DivisionMember>> parse_division_subject(std::string_view subject) {
  if (!subject.starts_with(kPrefix)) return std::nullopt;
  subject.remove_prefix(kPrefix.size());
  std::vector<DivisionMember> members;
  while (!subject.empty()) {
    const auto end = subject.find(';');
    const auto star = subject.find('*');
    if (end == std::string_view::npos || star == std::string_view::npos || star > end)
      return std::nullopt;
    DivisionMember member;
    member.kernel_hash = std::string(subject.substr(0, star));
    auto digits = subject.substr(star + 1, end - star - 1);
    const auto at_sign = digits.find('@');
    member.segment = static_cast<std::int64_t>(members.size());
    if (at_sign != std::string_view::npos) {
      const auto label = digits.substr(at_sign + 1);
      digits = digits.substr(0, at_sign);
      if (!whole_number(label, member.segment) || member.segment >= std::ssize(members) ||
          members[static_cast<std::size_t>(member.segment)].segment != member.segment)
        return std::nullopt;  // a segment is named by its first member, listed before
    }
    if (!whole_number(digits, member.runs) || member.runs < 1 || member.kernel_hash.empty())
      return std::nullopt;
    members.push_back(std::move(member));
    subject.remove_prefix(end + 1);
  }
  return members;
}

std::vector<std::size_t> segment_labels(const std::vector<DivisionMember>& parsed) {
  std::vector<std::size_t> labels;
  for (const auto& member : parsed) labels.push_back(static_cast<std::size_t>(member.segment));
  return labels;
}

}  // namespace ucudnn
