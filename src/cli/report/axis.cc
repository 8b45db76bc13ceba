#include "report/axis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ucudnn::cli::report {

namespace {

constexpr double kZeroGap = 16;  // pixels between zero's place and a log axis's start

std::string tick_label(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

// A round step (1, 2 or 5 times a power of ten) giving about `count` steps over `span`.
double round_step(double span, int count) {
  const double raw = span / count;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (raw <= m * power) return m * power;
  return 10 * power;
}

}  // namespace

Axis Axis::fit(const std::vector<double>& values, double from, double to, bool allow_log) {
  Axis axis;
  double low_positive = 0, high = 0;
  bool zero = false;
  for (double v : values) {
    if (!std::isfinite(v) || v < 0) continue;
    if (v == 0) zero = true;
    if (v > 0 && (low_positive == 0 || v < low_positive)) low_positive = v;
    high = std::max(high, v);
  }
  axis.from_ = from;
  axis.to_ = to;
  if (allow_log && low_positive > 0 && high / low_positive > 10) {
    axis.logarithmic_ = true;
    axis.low_ = std::pow(10.0, std::floor(std::log10(low_positive) * 4) / 4);
    axis.high_ = std::pow(10.0, std::ceil(std::log10(high) * 4) / 4);
    if (zero) {
      axis.zero_place_ = true;
      axis.zero_at_ = from;
      axis.from_ = from + (to > from ? kZeroGap : -kZeroGap);
    }
    return axis;
  }
  axis.low_ = 0;
  const double step = round_step(high > 0 ? high : 1, 5);
  axis.high_ = std::max(step, std::ceil(high / step) * step);
  return axis;
}

double Axis::position(double value) const {
  if (logarithmic_) {
    if (value <= 0) return zero_place_ ? zero_at_ : from_;
    const double t =
        (std::log10(value) - std::log10(low_)) / (std::log10(high_) - std::log10(low_));
    return from_ + t * (to_ - from_);
  }
  return from_ + (value - low_) / (high_ - low_) * (to_ - from_);
}

std::vector<Axis::Tick> Axis::ticks() const {
  std::vector<Tick> ticks;
  if (logarithmic_) {
    if (zero_place_) ticks.push_back({0, zero_at_, "0"});
    const int first = static_cast<int>(std::floor(std::log10(low_)));
    const int last = static_cast<int>(std::ceil(std::log10(high_)));
    const int decades = last - first;
    // Fewer decades: 1-2-5 in each; many: every decade, or every other.
    std::vector<double> multiples =
        decades <= 2 ? std::vector<double>{1, 2, 5} : std::vector<double>{1};
    const int stride = decades > 6 ? 2 : 1;
    for (int e = first; e <= last; ++e) {
      if ((e - first) % stride) continue;
      for (double m : multiples) {
        const double value = m * std::pow(10.0, e);
        if (value < low_ * 0.999 || value > high_ * 1.001) continue;
        ticks.push_back({value, position(value), tick_label(value)});
      }
    }
    return ticks;
  }
  const double step = round_step(high_ - low_, 5);
  const int count = static_cast<int>(std::llround((high_ - low_) / step));
  for (int i = 0; i <= count; ++i) {
    const double value = low_ + i * step;
    ticks.push_back({value, position(value), tick_label(value)});
  }
  return ticks;
}

}  // namespace ucudnn::cli::report
