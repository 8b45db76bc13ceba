#pragma once
// graph_conv's command line: what each option means is in graph_conv.cc's opening comment.
#include <cudnn.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>

#include "command_line.h"
#include "graph_plans.h"
#include "network_layers.h"

namespace ucudnn::examples::graph_conv_cli {

struct Options {
  int batch = 8;
  unsigned seed = 1;
  int iterations = 2;
  int layers = static_cast<int>(std::size(kLayers));
  bool fused = false;
  bool deterministic = false;
  bool handle_attributes = true;
  bool capture = false;
  PackStyle packs;      // how each execution's variant pack is built
  int engine_rank = 0;  // take the n-th configuration that finalizes (0: the heuristics' first)
  bool engine_only = false;  // finalize no configuration before it
  int engine_index = -1;     // build this engine by its global index (-1: the heuristics')
  float filter_beta = 0;
  cudnnDataType_t data_type = CUDNN_DATA_FLOAT;  // of every tensor; computed in float
  bool channels_last = false;       // every layer NHWC, as PyTorch's channels_last models
  bool benchmark = false;           // time every plan that finalizes, keep the fastest
  long long workspace_memory = -1;  // bytes a plan's workspace may take (-1: any)
  bool populate = false;            // native CUDA graphs (cudnnBackendPopulateCudaGraph)
  std::string dump;
};

// With a problem: it and the usage on stderr, exit status 2; without (--help): the usage on
// stdout, exit status 0.
[[noreturn]] inline void usage(const std::string& problem) {
  if (!problem.empty()) std::fprintf(stderr, "graph_conv: %s\n", problem.c_str());
  std::fprintf(problem.empty() ? stdout : stderr,
               "usage: graph_conv [--batch N] [--seed S] [--iterations I] [--layers L] "
               "[--graph conv|fused]\n"
               "                  [--deterministic] [--no-handle] [--capture] [--engine-rank R]\n"
               "                  [--engine-only R] [--engine-index E] [--packs-elsewhere] "
               "[--pack-intermediates]\n"
               "                  [--filter-beta B] [--dump FILE]\n"
               "                  [--data-type float|half|bf16] [--channels-last]\n"
               "                  [--benchmark] [--workspace-memory SIZE] [--populate]\n");
  std::exit(problem.empty() ? 0 : 2);
}

inline Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string option = argv[i];
    if (option == "--help" || option == "-h") usage("");
    if (option == "--deterministic") {
      o.deterministic = true;
      continue;
    }
    if (option == "--no-handle") {
      o.handle_attributes = false;
      continue;
    }
    if (option == "--capture") {
      o.capture = true;
      continue;
    }
    if (option == "--packs-elsewhere") {
      o.packs.elsewhere = true;
      continue;
    }
    if (option == "--pack-intermediates") {
      o.packs.intermediates = true;
      continue;
    }
    if (option == "--channels-last") {
      o.channels_last = true;
      continue;
    }
    if (option == "--populate") {
      o.populate = true;
      continue;
    }
    if (option == "--benchmark") {
      o.benchmark = true;
      continue;
    }
    refuse_unknown(option,
                   {"--batch", "--seed", "--iterations", "--layers", "--graph", "--engine-rank",
                    "--engine-only", "--engine-index", "--filter-beta", "--data-type",
                    "--workspace-memory", "--dump"},
                   usage);
    if (i + 1 >= argc) usage(option + " needs a value");
    const std::string value = argv[++i];
    if (option == "--batch")
      o.batch = static_cast<int>(parse_integer(option, value, 1, usage));
    else if (option == "--seed")
      o.seed = static_cast<unsigned>(parse_integer(option, value, 0, usage));
    else if (option == "--iterations")
      o.iterations = static_cast<int>(parse_integer(option, value, 1, usage));
    else if (option == "--layers") {
      const long long layers = parse_integer(option, value, 1, usage);
      if (layers > static_cast<long long>(std::size(kLayers)))
        usage("--layers: " + value + " is more than the " + std::to_string(std::size(kLayers)) +
              " layers the example has");
      o.layers = static_cast<int>(layers);
    } else if (option == "--graph" && (value == "conv" || value == "fused"))
      o.fused = value == "fused";
    else if (option == "--engine-rank" || option == "--engine-only") {
      o.engine_rank = static_cast<int>(parse_integer(option, value, 0, usage));
      o.engine_only = option == "--engine-only";
    } else if (option == "--engine-index")
      o.engine_index = static_cast<int>(parse_integer(option, value, 0, usage));
    else if (option == "--filter-beta") {
      char* end = nullptr;
      o.filter_beta = std::strtof(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !std::isfinite(o.filter_beta))
        usage("--filter-beta: '" + value + "' is not a finite number");
    } else if (option == "--data-type")
      o.data_type = parse_data_type(value, usage);
    else if (option == "--workspace-memory")
      o.workspace_memory = static_cast<long long>(parse_bytes(option, value, usage));
    else if (option == "--dump")
      o.dump = dump_path(value, usage);
    else
      usage("unknown option or value: " + option + " " + value);
  }
  return o;
}

}  // namespace ucudnn::examples::graph_conv_cli
