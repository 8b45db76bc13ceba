#pragma once
// Runs a program as a user would from a shell, with environment variables added or removed,
// and returns its exit status and output: for end-to-end tests of programs under LD_PRELOAD.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "support/file_text.h"

extern char** environ;

namespace ucudnn::testing {

struct ProcessResult {
  int status = -1;  // exit status; 128 + signal when killed by one
  std::string out, err;
};

// `environment`: name -> value to set, or nullopt to remove the variable.
inline ProcessResult run_process(
    const std::vector<std::string>& argv,
    const std::map<std::string, std::optional<std::string>>& environment) {
  std::vector<std::string> variables;
  for (char** e = environ; *e; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    if (!environment.count(name)) variables.push_back(entry);
  }
  for (const auto& [name, value] : environment)
    if (value) variables.push_back(name + "=" + *value);
  std::vector<char*> env_pointers, arg_pointers;
  for (auto& v : variables) env_pointers.push_back(v.data());
  env_pointers.push_back(nullptr);
  std::vector<std::string> args = argv;
  for (auto& a : args) arg_pointers.push_back(a.data());
  arg_pointers.push_back(nullptr);

  char out_path[] = "/tmp/ucudnn-test-out-XXXXXX", err_path[] = "/tmp/ucudnn-test-err-XXXXXX";
  const int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_fd, STDERR_FILENO);
  ProcessResult result;
  pid_t pid = 0;
  if (posix_spawn(&pid, arg_pointers[0], &actions, nullptr, arg_pointers.data(),
                  env_pointers.data()) == 0) {
    int status = 0;
    waitpid(pid, &status, 0);
    result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  posix_spawn_file_actions_destroy(&actions);
  close(out_fd);
  close(err_fd);
  result.out = read_file(out_path);
  result.err = read_file(err_path);
  std::remove(out_path);
  std::remove(err_path);
  return result;
}

}  // namespace ucudnn::testing
