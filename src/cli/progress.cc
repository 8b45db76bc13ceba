#include "progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace ucudnn::cli {

namespace {

int terminal_width(std::FILE* out) {
  winsize size{};
  if (ioctl(fileno(out), TIOCGWINSZ, &size) == 0 && size.ws_col >= 40) return size.ws_col;
  return 80;
}

}  // namespace

std::string format_duration(double seconds) {
  char text[32];
  const long s = std::lround(std::max(0.0, seconds));
  if (s < 60)
    std::snprintf(text, sizeof text, "%ld s", s);
  else if (s < 3600)
    std::snprintf(text, sizeof text, "%ld min %02ld s", s / 60, s % 60);
  else
    std::snprintf(text, sizeof text, "%ld h %02ld min", s / 3600, (s % 3600) / 60);
  return text;
}

Progress::Progress(std::FILE* out, bool terminal, std::size_t steps, double total_weight,
                   std::string prefix)
    : out_(out),
      terminal_(terminal),
      steps_(steps),
      total_weight_(total_weight),
      prefix_(std::move(prefix)) {}

Progress::~Progress() {
  if (terminal_ && drawn_) std::fputc('\n', out_);
}

std::string Progress::eta(double done_weight) const {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (done_weight <= 0 || total_weight_ <= 0) return "ETA ?";
  return "ETA " + format_duration(elapsed * (total_weight_ - done_weight) / done_weight);
}

void Progress::step(const std::string& what, double weight) {
  std::lock_guard lock(mutex_);
  ++done_;
  done_weight_ += weight;
  const std::string left = done_ == steps_ ? "done" : eta(done_weight_);
  if (!terminal_) {
    std::fprintf(out_, "%s[%zu/%zu] %s (%s)\n", prefix_.c_str(), done_, steps_, what.c_str(),
                 left.c_str());
    std::fflush(out_);
    return;
  }
  const int width = terminal_width(out_);
  constexpr int kBar = 24;
  const double fraction = total_weight_ > 0 ? std::min(1.0, done_weight_ / total_weight_) : 1.0;
  const int filled = static_cast<int>(fraction * kBar);
  std::string line = prefix_ + "[" + std::string(filled, '#') + std::string(kBar - filled, '.') +
                     "] " + std::to_string(done_) + "/" + std::to_string(steps_) + " " + left +
                     "  " + what;
  if (static_cast<int>(line.size()) > width - 1) line.resize(width - 1);
  // \r and the erase-line sequence redraw in place; the bar is the only thing on stderr.
  std::fprintf(out_, "\r\033[K%s", line.c_str());
  std::fflush(out_);
  drawn_ = true;
  bar_ = std::move(line);
}

void Progress::say(const std::string& line) {
  std::lock_guard lock(mutex_);
  if (terminal_ && drawn_)
    std::fprintf(out_, "\r\033[K%s\n%s", line.c_str(), bar_.c_str());
  else
    std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
}

}  // namespace ucudnn::cli
