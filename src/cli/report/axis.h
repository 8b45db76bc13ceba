#pragma once
// Where a value lands along a figure's axis. Linear, or logarithmic when the data span more
// than a decade (workspaces from KiB to hundreds of MiB, times of fast and slow algorithms);
// a log axis cannot show zero, so zero (algorithms that need no workspace) gets its own place
// just before the axis starts.
#include <string>
#include <vector>

namespace ucudnn::cli::report {

class Axis {
 public:
  // Fitted to `values` (finite, >= 0), drawn from pixel `from` to pixel `to` (to < from for
  // an upward y axis). `allow_log`: false keeps it linear (bars start at zero).
  static Axis fit(const std::vector<double>& values, double from, double to, bool allow_log = true);

  double position(double value) const;
  bool logarithmic() const { return logarithmic_; }
  bool has_zero_place() const { return zero_place_; }

  struct Tick {
    double value;
    double position;
    std::string label;
  };
  // About five ticks at round values (1, 2, 5 times a power of ten), zero's place included.
  std::vector<Tick> ticks() const;

 private:
  bool logarithmic_ = false;
  bool zero_place_ = false;
  double low_ = 0, high_ = 1;  // the data range shown (log axes: both > 0)
  double from_ = 0, to_ = 1;   // pixels of low_ and high_
  double zero_at_ = 0;         // pixel of zero on a log axis
};

}  // namespace ucudnn::cli::report
