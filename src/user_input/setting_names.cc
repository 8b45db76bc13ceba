#include "user_input/setting_names.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <iterator>

#include "user_input/typing_distance.h"

namespace ucudnn {

namespace {

// Read by the shim (shim/settings.cc); the tool reads the database, device and exclusion ones too.
constexpr std::string_view kSettings[] = {"UCUDNN_DISABLE",
                                          "UCUDNN_BATCH_SIZE_POLICY",
                                          "UCUDNN_WORKSPACE_LIMIT",
                                          "UCUDNN_DEFAULT_WORKSPACE_LIMIT",
                                          "UCUDNN_TOTAL_WORKSPACE_SIZE",
                                          "UCUDNN_DATABASE",
                                          "UCUDNN_SYSTEM_DATABASE",
                                          "UCUDNN_DATABASE_LOCK_TIMEOUT",
                                          "UCUDNN_LOG_LEVEL",
                                          "UCUDNN_BENCHMARK_REPEATS",
                                          "UCUDNN_BENCHMARK_LIMIT",
                                          "UCUDNN_BENCHMARK_IN",
                                          "UCUDNN_HYBRID",
                                          "UCUDNN_EXCLUDE_ALGORITHMS",
                                          "UCUDNN_GRAPH_PLANS",
                                          "UCUDNN_CANDIDATES",
                                          "UCUDNN_KNOB_VARIANTS",
                                          "UCUDNN_DEVICES",
                                          "UCUDNN_BENCHMARK_DEVICES"};
// Read by scripts/ucudnn-run and the benchmarks: no one word of theirs is taken for them.
constexpr std::string_view kHelperVariables[] = {
    "UCUDNN_PRELOAD_LIBRARY",     "UCUDNN_AUDIT_LIBRARY",  "UCUDNN_RUN_AUDIT",
    "UCUDNN_OVERHEAD_REAL_CUDNN", "UCUDNN_OVERHEAD_SHAPE", "UCUDNN_OVERHEAD_CHILD",
    "UCUDNN_BLAS_CORETYPE"};

}  // namespace

const std::vector<std::string_view>& setting_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> all(std::begin(kSettings), std::end(kSettings));
    all.insert(all.end(), std::begin(kHelperVariables), std::end(kHelperVariables));
    return all;
  }();
  return names;
}

namespace {

constexpr std::string_view kPrefix = "UCUDNN_";

std::vector<std::string_view> words_of(std::string_view name) {
  std::vector<std::string_view> words;
  name.remove_prefix(kPrefix.size());
  while (!name.empty()) {
    const auto end = std::min(name.find('_'), name.size());
    if (end > 0) words.push_back(name.substr(0, end));
    name.remove_prefix(std::min(end + 1, name.size()));
  }
  return words;
}

// Words a setting's name is remembered by in place of its own.
bool synonyms(std::string_view a, std::string_view b) {
  constexpr std::string_view kBounds[] = {"SIZE", "LIMIT", "MAX", "MAXIMUM"};
  const auto bound = [&](std::string_view w) {
    return std::find(std::begin(kBounds), std::end(kBounds), w) != std::end(kBounds);
  };
  return a != b && bound(a) && bound(b);
}

// Mistakes between the words of two names of as many words, in any order (UCUDNN_LIMIT_WORKSPACE):
// a word of the other's free, its synonym one, a word of neither two.
std::size_t word_mistakes(const std::vector<std::string_view>& mine,
                          const std::vector<std::string_view>& its) {
  std::vector<bool> taken(its.size(), false), matched(mine.size(), false);
  const auto match = [&](auto same) {
    for (std::size_t i = 0; i < mine.size(); ++i)
      for (std::size_t j = 0; j < its.size() && !matched[i]; ++j)
        if (!taken[j] && same(mine[i], its[j])) matched[i] = taken[j] = true;
  };
  match([](std::string_view a, std::string_view b) { return a == b; });
  const auto exact = static_cast<std::size_t>(std::count(matched.begin(), matched.end(), true));
  match(synonyms);
  const auto close = static_cast<std::size_t>(std::count(matched.begin(), matched.end(), true));
  return (close - exact) + 2 * (mine.size() - close);
}

// A name that is a setting's with one word left out (UCUDNN_TOTAL_WORKSPACE, UCUDNN_BATCH_POLICY)
// or with its words in another order and at most one taken for its synonym
// (UCUDNN_TOTAL_WORKSPACE_LIMIT, UCUDNN_MAX_WORKSPACE), or one word of a
// setting's name alone (UCUDNN_WORKSPACE, UCUDNN_LOG, UCUDNN_POLICY): what people remember of a
// long name. A setting's name with a word added (UCUDNN_HYBRID_CHILD) is left alone: programs
// name their own variables so.
bool remembered_as(std::string_view name, std::string_view setting) {
  const auto mine = words_of(name), its = words_of(setting);
  if (mine.empty()) return false;
  if (mine.size() == 1) return std::find(its.begin(), its.end(), mine.front()) != its.end();
  if (mine.size() + 1 == its.size()) {
    std::size_t matched = 0;
    for (const auto word : its)
      if (matched < mine.size() && mine[matched] == word) ++matched;
    return matched == mine.size();
  }
  return mine.size() == its.size() && word_mistakes(mine, its) <= 1;
}

std::string upper_case(std::string_view text) {
  std::string upper(text);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return upper;
}

}  // namespace

std::vector<std::string> misspelt_settings(const char* const* environment) {
  std::vector<std::string> said;
  if (!environment) return said;
  for (const char* const* entry = environment; *entry; ++entry) {
    const std::string_view text = *entry;
    const std::string_view name = text.substr(0, text.find('='));
    const auto& names = setting_names();
    // A setting's name in another case: names are upper case.
    if (name.substr(0, kPrefix.size()) != kPrefix) {
      if (upper_case(name.substr(0, kPrefix.size())) != kPrefix) continue;
      const std::string upper = upper_case(name);
      if (std::find(names.begin(), names.end(), upper) != names.end())
        said.push_back(std::string(name) + " is no setting of ucudnn (did you mean " + upper +
                       "? names are upper case); it is ignored");
      continue;
    }
    if (std::find(names.begin(), names.end(), name) != names.end()) continue;
    // Mistakes allowed grow with the name: one in a short one (HYBIRD), two in a long one. Three
    // would take a site's own UCUDNN_BENCHMARK_OUT for UCUDNN_BENCHMARK_IN.
    const std::size_t allowed = std::clamp<std::size_t>((name.size() - kPrefix.size()) / 6, 1, 2);
    std::string meant(nearest_within(name, names, allowed).value_or(""));
    if (meant.empty())
      for (const std::string_view known : kSettings)
        if (remembered_as(name, known)) meant += (meant.empty() ? "" : " or ") + std::string(known);
    if (!meant.empty())
      said.push_back(std::string(name) + " is no setting of ucudnn (did you mean " + meant +
                     "?); it is ignored");
  }
  return said;
}

}  // namespace ucudnn
