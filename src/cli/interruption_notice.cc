#include "interruption_notice.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>

namespace ucudnn::cli {

namespace {

// A signal handler reaches nothing but statics: one notice at a time, set up by its constructor.
std::atomic<std::size_t> items_stored{0};
const char* command_name = "";
struct sigaction previous_interrupt, previous_terminate;

void write_text(const char* text) {
  for (std::size_t left = std::strlen(text); left > 0;) {
    const ssize_t wrote = ::write(STDERR_FILENO, text, left);
    if (wrote <= 0) return;
    text += wrote;
    left -= static_cast<std::size_t>(wrote);
  }
}

void on_signal(int signal) {
  char count[24];
  std::size_t n = items_stored.load(), at = sizeof count - 1;
  count[at] = '\0';
  do {
    count[--at] = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n > 0 && at > 0);
  write_text("\nucudnn ");
  write_text(command_name);
  write_text(": interrupted; (kernel, micro-batch) items measured and stored: ");
  write_text(count + at);
  write_text("; the same command measures only the rest\n");
  // What the signal did before: its default (the process ends), or a handler set before this.
  sigaction(signal, signal == SIGINT ? &previous_interrupt : &previous_terminate, nullptr);
  std::raise(signal);
}

// A signal ignored before (a job started in the background, under nohup) stays ignored.
void install(int signal, struct sigaction& previous) {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  sigaction(signal, nullptr, &previous);
  if (previous.sa_handler != SIG_IGN) sigaction(signal, &action, nullptr);
}

}  // namespace

InterruptionNotice::InterruptionNotice(const char* command) {
  items_stored = 0;
  command_name = command;
  install(SIGINT, previous_interrupt);
  install(SIGTERM, previous_terminate);
}

InterruptionNotice::~InterruptionNotice() {
  sigaction(SIGINT, &previous_interrupt, nullptr);
  sigaction(SIGTERM, &previous_terminate, nullptr);
}

void InterruptionNotice::stored() {
  items_stored.fetch_add(1);
}

}  // namespace ucudnn::cli
