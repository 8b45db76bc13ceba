#pragma once
// conv_network's command line: what each option means is in conv_network.cc's opening comment.
#include <cudnn.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "command_line.h"

namespace ucudnn::examples::conv_network_cli {

enum class Select { kV7, kFind, kFindEx };

struct Options {
  int batch = 16;
  unsigned seed = 1;
  int iterations = 3;
  Select select = Select::kV7;
  std::size_t workspace_limit = std::size_t{64} << 20;
  bool workspace_limit_given = false;
  std::string dump;
  int threads = 1;
  cudnnDataType_t data_type = CUDNN_DATA_FLOAT;  // of every tensor; computed in float
  bool channels_last = false;                    // every layer NHWC
  cudnnMathType_t math_type = CUDNN_DEFAULT_MATH;
};

// With a problem: it and the usage on stderr, exit status 2; without (--help): the usage on
// stdout, exit status 0.
#ifdef UCUDNN_HANDLE
inline constexpr const char* kProgram = "conv_network_ucudnn";
#else
inline constexpr const char* kProgram = "conv_network";
#endif
[[noreturn]] inline void usage(const std::string& problem) {
  if (!problem.empty()) std::fprintf(stderr, "%s: %s\n", kProgram, problem.c_str());
  std::fprintf(problem.empty() ? stdout : stderr,
               "usage: %s [--batch N] [--seed S] [--iterations I] "
               "[--select v7|find|findex]\n"
               "                    [--workspace-limit SIZE] "
               "[--dump FILE] [--threads T]\n"
               "                    [--data-type float|half|bf16] [--channels-last]\n"
               "                    [--math-type default|tensor-op|allow-conversion]\n",
               kProgram);
  std::exit(problem.empty() ? 0 : 2);
}

inline Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string option = argv[i], value;
    if (option == "--help" || option == "-h") usage("");
    if (option == "--channels-last") {
      options.channels_last = true;
      continue;
    }
    const auto equals = option.find('=');
    if (equals != std::string::npos) {
      value = option.substr(equals + 1);
      option.resize(equals);
    }
    refuse_unknown(option,
                   {"--batch", "--seed", "--iterations", "--threads", "--workspace-limit", "--dump",
                    "--select", "--data-type", "--math-type"},
                   usage);
    if (equals == std::string::npos) {
      if (i + 1 >= argc) usage(option + " needs a value");
      value = argv[++i];
    }
    if (option == "--batch")
      options.batch = static_cast<int>(parse_integer(option, value, 1, usage));
    else if (option == "--seed")
      options.seed = static_cast<unsigned>(parse_integer(option, value, 0, usage));
    else if (option == "--iterations")
      options.iterations = static_cast<int>(parse_integer(option, value, 1, usage));
    else if (option == "--threads")
      options.threads = static_cast<int>(parse_integer(option, value, 1, usage));
    else if (option == "--workspace-limit") {
      options.workspace_limit = parse_bytes(option, value, usage);
      options.workspace_limit_given = true;
    } else if (option == "--dump")
      options.dump = dump_path(value, usage);
    else if (option == "--select" && value == "v7")
      options.select = Select::kV7;
    else if (option == "--select" && value == "find")
      options.select = Select::kFind;
    else if (option == "--select" && value == "findex")
      options.select = Select::kFindEx;
    else if (option == "--select")
      usage("--select: '" + value + "' is not v7, find or findex");
    else if (option == "--data-type")
      options.data_type = parse_data_type(value, usage);
    else if (option == "--math-type" && value == "default")
      options.math_type = CUDNN_DEFAULT_MATH;
    else if (option == "--math-type" && value == "tensor-op")
      options.math_type = CUDNN_TENSOR_OP_MATH;
    else if (option == "--math-type" && value == "allow-conversion")
      options.math_type = CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
    else if (option == "--math-type")
      usage("--math-type: '" + value + "' is not default, tensor-op or allow-conversion");
    else
      usage("unknown option " + option);
  }
  return options;
}

}  // namespace ucudnn::examples::conv_network_cli
