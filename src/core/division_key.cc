#include "core/division_key.h"

#include <algorithm>
#include <charconv>
#include <numeric>
#include <tuple>

namespace ucudnn {

namespace {
constexpr std::string_view kPrefix = "network:";
}

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
  for (auto i : key.order)
    key.subject += members[i].kernel_hash + "*" +
                   std::to_string(std::max<std::int64_t>(members[i].runs, 1) / divisor) + ";";
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
    const auto digits = subject.substr(star + 1, end - star - 1);
    const auto [at, error] =
        std::from_chars(digits.data(), digits.data() + digits.size(), member.runs);
    if (error != std::errc{} || at != digits.data() + digits.size() || member.runs < 1 ||
        member.kernel_hash.empty())
      return std::nullopt;
    members.push_back(std::move(member));
    subject.remove_prefix(end + 1);
  }
  return members;
}

}  // namespace ucudnn
