#include "core/algorithm_exclusion.h"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>

#include "core/engine_name.h"

namespace ucudnn {

namespace {
std::string trimmed(std::string_view text) {
  const auto begin = text.find_first_not_of(" \t");
  if (begin == std::string_view::npos) return {};
  const auto end = text.find_last_not_of(" \t");
  return std::string(text.substr(begin, end - begin + 1));
}

// The next comma that separates entries: one inside braces belongs to an engine
// configuration's knobs ("cudnn:eng12{k2=1,k3=0}"), unless no '}' closes them before the next
// entry's ':' (a brace left open must not swallow the entries after it).
std::size_t next_separator(std::string_view text, std::size_t start) {
  int depth = 0;
  for (std::size_t i = start; i < text.size(); ++i) {
    if (text[i] == '{') ++depth;
    if (text[i] == '}' && depth > 0) --depth;
    if (text[i] != ',') continue;
    if (depth == 0) return i;
    const auto close = text.find('}', i), colon = text.find(':', i);
    if (close == std::string_view::npos || (colon != std::string_view::npos && colon < close))
      return i;
  }
  return text.size();
}

bool matches(const std::string& pattern, std::string_view name) {
  return fnmatch(pattern.c_str(), std::string(name).c_str(), FNM_CASEFOLD) == 0;
}

// Whether `name` is the engine `engine` ("eng12", canonical) or one of its configurations
// ("eng12{k2=1}"); never where `engine` is empty.
bool is_configuration_of(const std::string& engine, std::string_view name) {
  if (engine.empty()) return false;
  const auto configuration = EngineName::parse(name);
  return configuration && "eng" + std::to_string(configuration->engine) == engine;
}
}  // namespace

AlgorithmExclusion AlgorithmExclusion::parse_leniently(std::string_view text,
                                                       std::vector<std::string>& unreadable) {
  AlgorithmExclusion exclusion;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = next_separator(text, start);
    const std::string entry = trimmed(text.substr(start, comma - start));
    start = comma + 1;
    if (entry.empty()) continue;
    const auto colon = entry.find(':');
    const std::string backend = colon == std::string::npos ? "" : trimmed(entry.substr(0, colon));
    const std::string algorithm =
        colon == std::string::npos ? "" : trimmed(entry.substr(colon + 1));
    if (backend.empty() || algorithm.empty()) {
      unreadable.push_back(entry);
      continue;
    }
    exclusion.patterns_.emplace_back(backend, algorithm);
    std::string lower = algorithm;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const auto engine = EngineName::parse(lower);
    exclusion.whole_engines_.push_back(engine && engine->knobs.empty() ? engine->to_string()
                                                                       : std::string());
  }
  return exclusion;
}

Expected<AlgorithmExclusion> AlgorithmExclusion::parse(std::string_view text) {
  std::vector<std::string> unreadable;
  AlgorithmExclusion exclusion = parse_leniently(text, unreadable);
  if (!unreadable.empty())
    return Error{"'" + unreadable.front() +
                 "' is not backend:ALGORITHM (e.g. cpu:WINOGRAD_F4X4_3X3 or cudnn:eng34*)"};
  return exclusion;
}

bool AlgorithmExclusion::excludes(std::string_view backend, std::string_view algorithm) const {
  for (std::size_t i = 0; i < patterns_.size(); ++i)
    if (entry_excludes(i, backend, algorithm)) return true;
  return false;
}

std::optional<std::string> AlgorithmExclusion::excluded_in(
    const Configuration& configuration) const {
  for (const auto& m : configuration.micro)
    if (excludes(m.backend, m.algorithm)) return m.backend + ":" + m.algorithm;
  if (configuration.offload)
    for (const auto& m : configuration.offload->micro)
      if (excludes(m.backend, m.algorithm)) return m.backend + ":" + m.algorithm;
  return std::nullopt;
}

std::string AlgorithmExclusion::entry(std::size_t i) const {
  return patterns_.at(i).first + ":" + patterns_.at(i).second;
}

bool AlgorithmExclusion::entry_excludes(std::size_t i, std::string_view backend,
                                        std::string_view algorithm) const {
  if (!entry_names_backend(i, backend)) return false;
  return matches(patterns_.at(i).second, algorithm) ||
         is_configuration_of(whole_engines_.at(i), algorithm);
}

bool AlgorithmExclusion::entry_names_backend(std::size_t i, std::string_view backend) const {
  return matches(patterns_.at(i).first, backend);
}

std::string AlgorithmExclusion::to_string() const {
  std::string text;
  for (std::size_t i = 0; i < patterns_.size(); ++i) {
    if (i > 0) text += ',';
    text += entry(i);
  }
  return text;
}

void ExclusionAccount::filter(const std::string& backend, const KernelKey& kernel,
                              std::vector<std::string>& names) {
  const bool listed = !names.empty();
  {
    std::lock_guard lock(mutex_);
    backends_filtered_.insert(backend);
    if (!listed) unlisted_.insert(kernel.to_string());
  }
  if (exclusion_.empty()) return;
  std::vector<bool> used(exclusion_.size(), false);
  std::erase_if(names, [&](const std::string& name) {
    bool excluded = false;
    for (std::size_t i = 0; i < exclusion_.size(); ++i)
      if (exclusion_.entry_excludes(i, backend, name)) used[i] = excluded = true;
    return excluded;
  });
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < used.size(); ++i)
    if (used[i]) entry_used_[i] = true;
  if (listed && names.empty()) emptied_.insert(kernel.to_string());
}

bool ExclusionAccount::wants_stored_candidates(const std::string& backend,
                                               const std::string& kernel) {
  std::lock_guard lock(mutex_);
  bool idle = false;
  for (std::size_t i = 0; i < exclusion_.size(); ++i)
    idle |= !entry_used_[i] && exclusion_.entry_names_backend(i, backend);
  return idle && noted_.emplace(backend, kernel).second;
}

void ExclusionAccount::note_stored_candidates(const std::string& backend,
                                              const std::vector<std::string>& names,
                                              bool complete) {
  if (names.empty()) return;  // the database knows nothing of the kernel: no evidence either way
  std::lock_guard lock(mutex_);
  backends_filtered_.insert(backend);
  if (!complete) backends_noted_from_database_.insert(backend);
  for (std::size_t i = 0; i < exclusion_.size(); ++i)
    for (const auto& name : names)
      if (!entry_used_[i] && exclusion_.entry_excludes(i, backend, name)) entry_used_[i] = true;
}

std::vector<std::string> ExclusionAccount::entries_that_excluded_nothing(
    const std::string& backend) const {
  std::vector<std::string> idle;
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < exclusion_.size(); ++i)
    if (!entry_used_[i] && exclusion_.entry_names_backend(i, backend))
      idle.push_back(exclusion_.entry(i));
  return idle;
}

std::set<std::string> ExclusionAccount::kernels_left_without_algorithms() const {
  std::lock_guard lock(mutex_);
  return emptied_;
}

std::set<std::string> ExclusionAccount::kernels_listed_without_algorithms() const {
  std::lock_guard lock(mutex_);
  return unlisted_;
}

bool ExclusionAccount::noted_from_database(const std::string& backend) const {
  std::lock_guard lock(mutex_);
  return backends_noted_from_database_.contains(backend);
}

bool ExclusionAccount::filtered(const std::string& backend) const {
  std::lock_guard lock(mutex_);
  return backends_filtered_.contains(backend);
}

std::vector<std::string> ExcludingBenchmarker::algorithms(const KernelKey& kernel) {
  auto names = device_.algorithms(kernel);
  const bool listed = !names.empty();
  account_.filter(device_.backend_name(), kernel, names);
  emptied_last_list_ = listed && names.empty();
  return names;
}

std::optional<Measurement> ExcludingBenchmarker::benchmark(const KernelKey& kernel,
                                                           const std::string& algorithm,
                                                           std::int64_t micro_batch) {
  if (account_.exclusion().excludes(device_.backend_name(), algorithm)) return std::nullopt;
  return device_.benchmark(kernel, algorithm, micro_batch);
}

}  // namespace ucudnn
