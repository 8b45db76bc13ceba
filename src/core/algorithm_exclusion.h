#pragma once
// Algorithms the user forbids (UCUDNN_EXCLUDE_ALGORITHMS, `ucudnn bench
// --exclude-algorithms`): the answer when one misbehaves on some library version, like
// MIOpen's per-solver switches. An excluded algorithm is never benchmarked, never planned,
// and a stored plan that uses it is discarded and planned again.
//
// The text is a comma-separated list of backend:ALGORITHM, e.g.
// "cpu:WINOGRAD_F4X4_3X3,cudnn:FFT*,cudnn:eng12{k2=1,k3=0},cudnn:eng34*"; names compare
// without regard to case, '*' and '?' are wildcards as in shell patterns, and a comma inside
// an engine configuration's braces is part of its name (core/engine_name.h). An engine named
// without knobs ("cudnn:eng12") is the whole engine, each of its configurations: an engine that
// has knobs has no configuration without them, so that name could mean nothing else.
#include <cstddef>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/benchmarker.h"
#include "core/configuration.h"
#include "core/expected.h"

namespace ucudnn {

class AlgorithmExclusion {
 public:
  AlgorithmExclusion() = default;  // excludes nothing
  // An error names the entry that is not backend:ALGORITHM.
  static Expected<AlgorithmExclusion> parse(std::string_view text);
  // Keeps the readable entries and lists the others in `unreadable` (the shim's way: a
  // mistyped entry must not cost the user the others).
  static AlgorithmExclusion parse_leniently(std::string_view text,
                                            std::vector<std::string>& unreadable);

  bool excludes(std::string_view backend, std::string_view algorithm) const;
  // Entry by entry, as parsed: "backend:pattern", and whether it excludes an algorithm, or
  // names a backend.
  std::size_t size() const { return patterns_.size(); }
  std::string entry(std::size_t i) const;
  bool entry_excludes(std::size_t i, std::string_view backend, std::string_view algorithm) const;
  bool entry_names_backend(std::size_t i, std::string_view backend) const;
  // The first excluded algorithm a configuration (device and host share) uses, if any.
  std::optional<std::string> excluded_in(const Configuration& configuration) const;
  bool empty() const { return patterns_.empty(); }
  std::string to_string() const;  // as parsed, canonical: "cpu:WINOGRAD_F4X4_3X3,cudnn:FFT*"

 private:
  std::vector<std::pair<std::string, std::string>> patterns_;  // (backend, algorithm pattern)
  // Per entry: for a whole engine ("eng12", "ENG012"), its canonical name ("eng12"), which
  // names each of its configurations ("eng12{k2=1}"); else empty.
  std::vector<std::string> whole_engines_;
};

// What an exclusion did to the algorithm lists it filtered, so that an entry that excludes
// nothing (a mistyped name) or one that leaves a kernel without any algorithm can be named.
// Lists may be filtered from several threads.
class ExclusionAccount {
 public:
  explicit ExclusionAccount(const AlgorithmExclusion& exclusion)
      : exclusion_(exclusion), entry_used_(exclusion.size(), false) {}
  const AlgorithmExclusion& exclusion() const { return exclusion_; }
  // Removes the excluded ones from `names`, the algorithms `backend` lists for `kernel`.
  void filter(const std::string& backend, const KernelKey& kernel, std::vector<std::string>& names);
  // Whether the candidates of `kernel` (KernelKey::to_string), run from a stored plan, are still
  // worth noting: not noted yet, and some entry naming `backend` has matched nothing so far (a
  // note scans the database's rows of the device). A true answer counts the kernel as noted.
  bool wants_stored_candidates(const std::string& backend, const std::string& kernel);
  // The candidates of a kernel that runs from a stored plan, where nothing is listed or filtered:
  // an entry that matches one is not idle. `complete`: the backend's own list; else those the
  // database has measurements of, which lack those never measured (UCUDNN_BENCHMARK_LIMIT's
  // left-out): an entry then idle may still name one (noted_from_database).
  void note_stored_candidates(const std::string& backend, const std::vector<std::string>& names,
                              bool complete = false);
  // Whether some of `backend`'s candidates were known only from the database's measurements.
  bool noted_from_database(const std::string& backend) const;
  // Of the lists filtered (or noted) so far: the entries that name `backend` and excluded none of
  // its algorithms, and the kernels (KernelKey::to_string) that had algorithms and have none left.
  std::vector<std::string> entries_that_excluded_nothing(const std::string& backend) const;
  std::set<std::string> kernels_left_without_algorithms() const;
  // The kernels for which the backend listed no algorithm at all, before any exclusion (a data
  // type it does not compute).
  std::set<std::string> kernels_listed_without_algorithms() const;
  // Whether a list of `backend`'s has been filtered or noted: before, no entry can be said to be
  // idle.
  bool filtered(const std::string& backend) const;

 private:
  const AlgorithmExclusion& exclusion_;
  mutable std::mutex mutex_;
  std::vector<bool> entry_used_;
  std::set<std::string> backends_filtered_;
  std::set<std::string> backends_noted_from_database_;
  std::set<std::pair<std::string, std::string>> noted_;  // (backend, kernel)
  std::set<std::string> emptied_;
  std::set<std::string> unlisted_;
};

// A device's benchmarker without the excluded algorithms: they are not listed, and asking
// to measure one answers "not supported".
class ExcludingBenchmarker final : public Benchmarker {
 public:
  ExcludingBenchmarker(Benchmarker& device, const AlgorithmExclusion& exclusion)
      : device_(device), own_account_(std::in_place, exclusion), account_(*own_account_) {}
  // Accounts in `account`, which outlives this: a process's account of what its exclusion did.
  ExcludingBenchmarker(Benchmarker& device, ExclusionAccount& account)
      : device_(device), account_(account) {}
  std::string backend_name() const override { return device_.backend_name(); }
  DeviceFingerprint fingerprint() const override { return device_.fingerprint(); }
  std::vector<std::string> algorithms(const KernelKey& kernel) override;
  std::optional<Measurement> benchmark(const KernelKey& kernel, const std::string& algorithm,
                                       std::int64_t micro_batch) override;
  // What the exclusion did to the kernels listed so far.
  const ExclusionAccount& account() const { return account_; }
  // Whether the last list asked for had algorithms and the exclusion took them all (this
  // benchmarker's own: a shared account's record is of every kernel of the process, whose lists
  // may differ from call to call).
  bool emptied_last_list() const { return emptied_last_list_; }

 private:
  Benchmarker& device_;
  std::optional<ExclusionAccount> own_account_;
  ExclusionAccount& account_;
  bool emptied_last_list_ = false;
};

}  // namespace ucudnn
