// oneDNN's convolutions as solvers beside our own: per kernel, the implementation
// onednn_primitives picked, the reorders between the problem's layouts and oneDNN's, their
// places in our workspace, and the scaling and flips oneDNN does not do
// (scaling_and_flip.h).
#include "solvers/onednn.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "geometry_nd.h"
#include "solvers/onednn_primitives.h"
#include "solvers/scaling_and_flip.h"
#include "thread_pool.h"

namespace ucudnn::cpu {

namespace {

using dnnl::memory;

enum class Choice { kDirect, kWinograd, kGemm, kAuto };

// Offsets inside the workspace are kept on cache lines; workspace_bytes adds room to align
// the base as well, so a caller's unaligned buffer costs speed, never correctness.
constexpr std::size_t kAlignment = 64;

std::size_t align_up(std::size_t bytes) {
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

// A problem tensor's part in one operation: its oneDNN argument and the layouts on both
// sides of the (possible) reorder.
struct Port {
  int arg = 0;
  memory::desc user, prim;
  bool reordered = false;
  dnnl::reorder::primitive_desc reorder_pd;  // user -> prim for inputs, prim -> user for the output
  dnnl::reorder reorder;
  std::size_t reorder_scratch = 0;
  std::size_t buffer = 0;  // offset of the prim-layout copy (reordered inputs only)
};

// Everything run() needs for one kernel, built once. Workspace layout (offsets from the
// aligned base), where S is the conv scratchpad (shared with the input reorders'), the
// reordered inputs and the flipped filter, all dead once the convolution has run:
//   output in the problem's layout: [S...][O: output in the user layout]
//   output reordered:               [T: output in oneDNN's layout][S... | U + its scratch]
// O / U receive the result when alpha/beta/flip must be applied by hand.
struct Entry {
  bool applicable = false;
  std::string impl;
  dnnl::primitive_desc pd;
  dnnl::primitive_desc hint;  // forward hint of a backward pd, kept alive for it
  dnnl::primitive conv;
  bool built = false;

  Role inputs[2];
  Role output;
  Port in[2];
  Port out;
  int weights_input = -1;  // index into in[] of the filter when it is flipped on the way in
  bool flip_output = false;

  std::size_t scratch_offset = 0, scratch_bytes = 0;
  std::size_t flip_offset = 0;
  std::size_t result_offset = 0;       // O or U
  std::size_t out_scratch_offset = 0;  // scratchpad of the output reorder
  std::size_t prim_out_offset = 0;     // T
  std::size_t total = 0;
};

std::size_t size_of(const memory::desc& md) {
  return md.get_size();
}

std::unique_ptr<Entry> build_entry(Choice choice, const KernelKey& kernel) {
  auto entry = std::make_unique<Entry>();
  const ConvolutionProblem& problem = kernel.problem;
  if (!is_cpu_nd_problem(problem) || problem.data_type != DataType::kFloat ||
      problem.compute_type != DataType::kFloat)
    return entry;
  Params params{{problem.stride.begin(), problem.stride.end()},
                {problem.dilation.begin(), problem.dilation.end()},
                {problem.padding.begin(), problem.padding.end()}};
  for (auto& dilation : params.dilates) dilation -= 1;  // oneDNN counts the gaps
  const bool flip = problem.mode == ConvolutionMode::kConvolution;
  const Descs user{user_desc(problem.x), user_filter_desc(problem), user_desc(problem.y)};
  const auto any = [](const memory::desc& md) {
    return memory::desc(md.dims(), memory::data_type::f32, memory::format_tag::any);
  };
  const Descs blocked{any(user.x), any(user.w), any(user.y)};
  const dnnl::primitive_attr attr = user_scratchpad();

  switch (kernel.operation) {
    case Operation::kForward:
      entry->inputs[0] = kX, entry->in[0].arg = DNNL_ARG_SRC;
      entry->inputs[1] = kW, entry->in[1].arg = DNNL_ARG_WEIGHTS;
      entry->output = kY, entry->out.arg = DNNL_ARG_DST;
      if (flip) entry->weights_input = 1;
      break;
    case Operation::kBackwardData:
      entry->inputs[0] = kY, entry->in[0].arg = DNNL_ARG_DIFF_DST;
      entry->inputs[1] = kW, entry->in[1].arg = DNNL_ARG_WEIGHTS;
      entry->output = kX, entry->out.arg = DNNL_ARG_DIFF_SRC;
      if (flip) entry->weights_input = 1;
      break;
    case Operation::kBackwardFilter:
      entry->inputs[0] = kX, entry->in[0].arg = DNNL_ARG_SRC;
      entry->inputs[1] = kY, entry->in[1].arg = DNNL_ARG_DIFF_DST;
      entry->output = kW, entry->out.arg = DNNL_ARG_DIFF_WEIGHTS;
      entry->flip_output = flip;
      break;
  }
  const auto user_of = [&](Role role) {
    return role == kX ? user.x : role == kW ? user.w : user.y;
  };
  const dnnl::primitive_attr reorder_attr = user_scratchpad();
  // Fills in a port's layouts and reorder for pd; throws dnnl::error when oneDNN cannot
  // reorder between the two layouts (it cannot, e.g., from a KRSC filter to Winograd's).
  const auto setup = [&](const dnnl::primitive_desc_base& pd, Port& port, Role role,
                         bool is_input) {
    port.user = user_of(role);
    port.prim = pd.query_md(dnnl::query::exec_arg_md, port.arg);
    port.reordered = port.prim != port.user;
    port.reorder_pd = {};
    port.reorder_scratch = 0;
    if (!port.reordered) return;
    port.reorder_pd = is_input
                          ? dnnl::reorder::primitive_desc(cpu_engine(), port.user, cpu_engine(),
                                                          port.prim, reorder_attr)
                          : dnnl::reorder::primitive_desc(cpu_engine(), port.prim, cpu_engine(),
                                                          port.user, reorder_attr);
    port.reorder_scratch = port.reorder_pd.scratchpad_desc().get_size();
  };
  const auto setup_all = [&](const dnnl::primitive_desc_base& pd) {
    for (int i = 0; i < 2; ++i) setup(pd, entry->in[i], entry->inputs[i], true);
    setup(pd, entry->out, entry->output, false);
  };

  const dnnl::algorithm algorithm = choice == Choice::kWinograd
                                        ? dnnl::algorithm::convolution_winograd
                                    : choice == Choice::kAuto ? dnnl::algorithm::convolution_auto
                                                              : dnnl::algorithm::convolution_direct;
  // Candidates in order of preference: the problem's own layout first (no reorders), then
  // oneDNN's preferred one. AUTO only asks oneDNN, as a oneDNN user would. DIRECT takes the
  // reference implementation only when no JIT kernel exists in either layout.
  std::vector<const Descs*> layouts;
  if (choice != Choice::kAuto) layouts.push_back(&user);
  layouts.push_back(&blocked);
  const int passes = choice == Choice::kDirect ? 2 : 1;
  const auto accept = [&](const dnnl::primitive_desc_base& pd, int pass) {
    const std::string impl = pd.impl_info_str();
    const bool wanted = choice == Choice::kDirect ? !is_gemm(impl) && (pass == 1 || !is_ref(impl))
                        : choice == Choice::kGemm ? is_gemm(impl)
                                                  : true;
    if (!wanted) return false;
    try {
      setup_all(pd);
    } catch (const dnnl::error&) {
      return false;
    }
    return true;
  };
  bool found = false;
  for (int pass = 0; pass < passes && !found; ++pass)
    for (const Descs* layout : layouts) {
      try {
        dnnl::primitive_desc hint;
        dnnl::primitive_desc pd = select_pd(
            kernel.operation, algorithm, *layout, params, attr,
            [&](const dnnl::primitive_desc_base& candidate) { return accept(candidate, pass); },
            &hint);
        if (pd) {
          entry->pd = pd;
          entry->hint = hint;
          found = true;
          break;
        }
      } catch (const dnnl::error&) {
      }
    }
  if (!found) return entry;
  // The ports were last filled in for the accepted candidate, whose copy is entry->pd.

  // S: scratchpad (conv and input reorders run one after another), reordered inputs, flip.
  entry->scratch_bytes = entry->pd.scratchpad_desc().get_size();
  for (const Port& port : entry->in)
    entry->scratch_bytes = std::max(entry->scratch_bytes, port.reorder_scratch);
  std::size_t s = align_up(entry->scratch_bytes);
  for (Port& port : entry->in)
    if (port.reordered) port.buffer = s, s += align_up(size_of(port.prim));
  if (entry->weights_input >= 0) entry->flip_offset = s, s += align_up(size_of(user.w));

  const std::size_t result_bytes = align_up(size_of(entry->out.user));
  if (!entry->out.reordered) {
    entry->result_offset = s;
    entry->total = s + result_bytes;
  } else {
    const std::size_t t = align_up(size_of(entry->out.prim));
    entry->prim_out_offset = 0;
    entry->scratch_offset = t;
    for (Port& port : entry->in) port.buffer += t;
    entry->flip_offset += t;
    entry->result_offset = t;
    entry->out_scratch_offset = t + result_bytes;
    entry->total = t + std::max(s, result_bytes + align_up(entry->out.reorder_scratch));
  }
  entry->total += kAlignment;
  entry->impl = entry->pd.impl_info_str();
  if (entry->in[0].reordered || entry->in[1].reordered || entry->out.reordered)
    entry->impl += " +reorder";
  entry->applicable = true;
  return entry;
}

void* tensor_of(const Tensors& tensors, Role role) {
  return role == kX ? tensors.x : role == kW ? tensors.w : tensors.y;
}

class OnednnSolver final : public Solver {
 public:
  OnednnSolver(Choice choice, std::string_view name) : choice_(choice), name_(name) {}

  std::string_view name() const override { return name_; }
  bool applies(const KernelKey& kernel) const override { return entry(kernel).applicable; }
  std::size_t workspace_bytes(const KernelKey& kernel) const override {
    const Entry& e = entry(kernel);
    return e.applicable ? e.total : 0;
  }

  // oneDNN's Winograd is F(4x4, 3x3)-like: it loses about a digit.
  double tolerance(const KernelKey& kernel) const override {
    return choice_ == Choice::kWinograd ? 1e-4 : Solver::tolerance(kernel);
  }

  std::string implementation(const KernelKey& kernel) const {
    const Entry& e = entry(kernel);
    return e.applicable ? e.impl : std::string();
  }

  void run(const KernelKey& kernel, const Tensors& tensors, Scaling scaling, Workspace workspace,
           ThreadPool& pool) const override {
    try {
      const Entry& e = lookup(kernel, true);
      if (!e.applicable) throw std::runtime_error("does not apply to " + kernel.to_string());
      if (workspace.bytes < e.total || (e.total > 0 && workspace.data == nullptr))
        throw std::runtime_error("workspace too small");
      const GeometryNd g(kernel.problem);
      execute(e, g, tensors, scaling, workspace);
      if (e.flip_output || scaling.alpha != 1 || scaling.beta != 0) {
        char* base = aligned_base(workspace);
        combine(g, e.output, reinterpret_cast<const float*>(base + e.result_offset),
                static_cast<float*>(tensor_of(tensors, e.output)), scaling, e.flip_output, pool);
      }
    } catch (const dnnl::error& error) {
      throw std::runtime_error(std::string(name_) + ": oneDNN failed: " + error.what());
    } catch (const std::runtime_error& error) {
      throw std::runtime_error(std::string(name_) + ": " + error.what());
    }
  }

 private:
  static char* aligned_base(const Workspace& workspace) {
    const auto address = reinterpret_cast<std::uintptr_t>(workspace.data);
    return static_cast<char*>(workspace.data) + (align_up(address) - address);
  }

  // Runs the input reorders, the convolution and the output reorder; leaves the result in
  // O / U when alpha, beta or a flip still has to be applied.
  static void execute(const Entry& e, const GeometryNd& g, const Tensors& tensors, Scaling scaling,
                      const Workspace& workspace) {
    const dnnl::engine& engine = cpu_engine();
    dnnl::stream stream(engine);
    char* base = aligned_base(workspace);
    const auto scratch_args = [&](std::unordered_map<int, memory>& args, const memory::desc& md,
                                  std::size_t offset) {
      if (md.get_size() > 0) args.emplace(DNNL_ARG_SCRATCHPAD, memory(md, engine, base + offset));
    };

    std::unordered_map<int, memory> conv_args;
    for (int i = 0; i < 2; ++i) {
      const Port& port = e.in[i];
      void* data = tensor_of(tensors, e.inputs[i]);
      if (i == e.weights_input) {
        float* flipped = reinterpret_cast<float*>(base + e.flip_offset);
        flip_filter(g, static_cast<const float*>(data), flipped);
        data = flipped;
      }
      if (port.reordered) {
        memory src(port.user, engine, data), dst(port.prim, engine, base + port.buffer);
        std::unordered_map<int, memory> args{{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}};
        scratch_args(args, port.reorder_pd.scratchpad_desc(), e.scratch_offset);
        port.reorder.execute(stream, args);
        conv_args.emplace(port.arg, dst);
      } else {
        conv_args.emplace(port.arg, memory(port.prim, engine, data));
      }
    }
    const bool by_hand = e.flip_output || scaling.alpha != 1 || scaling.beta != 0;
    void* out = tensor_of(tensors, e.output);
    void* result = base + e.result_offset;
    void* conv_out = e.out.reordered ? base + e.prim_out_offset : by_hand ? result : out;
    conv_args.emplace(e.out.arg, memory(e.out.prim, engine, conv_out));
    scratch_args(conv_args, e.pd.scratchpad_desc(), e.scratch_offset);
    e.conv.execute(stream, conv_args);
    if (e.out.reordered) {
      std::unordered_map<int, memory> args{
          {DNNL_ARG_FROM, memory(e.out.prim, engine, conv_out)},
          {DNNL_ARG_TO, memory(e.out.user, engine, by_hand ? result : out)}};
      scratch_args(args, e.out.reorder_pd.scratchpad_desc(), e.out_scratch_offset);
      e.out.reorder.execute(stream, args);
    }
    stream.wait();
  }

  const Entry& entry(const KernelKey& kernel) const { return lookup(kernel, false); }

  // build: also JIT-compile the primitives. That waits for the first run, so that applies()
  // and workspace_bytes() over many kernels stay cheap.
  const Entry& lookup(const KernelKey& kernel, bool build) const {
    std::string key = kernel.to_string();
    std::lock_guard lock(mutex_);
    auto it = cache_.find(key);
    if (it == cache_.end()) it = cache_.emplace(std::move(key), build_entry(choice_, kernel)).first;
    Entry& e = *it->second;
    if (build && e.applicable && !e.built) {
      e.conv = dnnl::primitive(e.pd);
      for (Port* port : {&e.in[0], &e.in[1], &e.out})
        if (port->reordered) port->reorder = dnnl::reorder(port->reorder_pd);
      e.built = true;
    }
    return e;
  }

  const Choice choice_;
  const std::string_view name_;
  mutable std::mutex mutex_;
  // Entries are never erased, so references handed out stay valid after the lock is dropped.
  mutable std::unordered_map<std::string, std::unique_ptr<Entry>> cache_;
};

const OnednnSolver& solver(int index) {
  static const OnednnSolver solvers[] = {{Choice::kDirect, "ONEDNN_DIRECT"},
                                         {Choice::kWinograd, "ONEDNN_WINOGRAD"},
                                         {Choice::kGemm, "ONEDNN_GEMM"},
                                         {Choice::kAuto, "ONEDNN_AUTO"}};
  return solvers[index];
}

}  // namespace

std::vector<const Solver*> onednn_solvers() {
  return {&solver(0), &solver(1), &solver(2), &solver(3)};
}

std::string onednn_implementation(const Solver& solver, const KernelKey& kernel) {
  const auto* onednn = dynamic_cast<const OnednnSolver*>(&solver);
  return onednn ? onednn->implementation(kernel) : std::string();
}

}  // namespace ucudnn::cpu
