// The cuDNN double's graph API runs what it describes: every engine the heuristics offer for a
// convolution computes what the legacy convolution of its algorithm computes (itself checked
// against the float64 reference), with the operation's alpha and beta and the variant pack's
// pointers; its notes, workspace and checks are the cost model's; a fused graph computes the
// convolution, the bias and the ReLU.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "convolution_operation_names.h"
#include "cost_model.h"
#include "test_problem.h"

namespace ucudnn::fakecuda {
namespace {

using testing::Descriptors;
using testing::DeviceBuffer;
using testing::Handle;
using Descriptor = cudnnBackendDescriptor_t;

// Descriptors destroyed at the end of a test.
class Graph {
 public:
  ~Graph() {
    for (auto d : owned_) cudnnBackendDestroyDescriptor(d);
  }
  Descriptor create(cudnnBackendDescriptorType_t type) {
    Descriptor d = nullptr;
    EXPECT_EQ(cudnnBackendCreateDescriptor(type, &d), CUDNN_STATUS_SUCCESS);
    owned_.push_back(d);
    return d;
  }
  template <typename T>
  void set(Descriptor d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
           std::vector<T> values) {
    EXPECT_EQ(
        cudnnBackendSetAttribute(d, name, type, static_cast<int64_t>(values.size()), values.data()),
        CUDNN_STATUS_SUCCESS)
        << name;
  }
  void set(Descriptor d, cudnnBackendAttributeName_t name, Descriptor value) {
    set(d, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, std::vector<Descriptor>{value});
  }
  Descriptor tensor(const TensorShape& shape, cudnnDataType_t type, int64_t uid,
                    bool is_virtual = false) {
    Descriptor t = create(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    set(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, std::vector<cudnnDataType_t>{type});
    set(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, shape.dims);
    set(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, shape.strides);
    set(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, std::vector<int64_t>{uid});
    set(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, std::vector<int64_t>{16});
    if (is_virtual) set(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, std::vector<char>{1});
    EXPECT_EQ(cudnnBackendFinalize(t), CUDNN_STATUS_SUCCESS);
    return t;
  }

 private:
  std::vector<Descriptor> owned_;
};

// The graph of one operation on problem `p`, and the heuristics' configurations for it.
std::vector<Descriptor> configurations(Graph& g, const ConvolutionProblem& p, Operation op,
                                       double alpha, double beta, Descriptor* extra_op = nullptr) {
  const cudnnDataType_t type = testing::cudnn_type(p.data_type);
  Descriptor conv = g.create(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  g.set(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64,
        std::vector<int64_t>{static_cast<int64_t>(p.padding.size())});
  g.set(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE,
        std::vector<cudnnDataType_t>{testing::cudnn_type(p.compute_type)});
  g.set(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE,
        std::vector<cudnnConvolutionMode_t>{
            p.mode == ConvolutionMode::kConvolution ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION});
  g.set(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, p.padding);
  g.set(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, p.padding);
  g.set(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, p.stride);
  g.set(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, p.dilation);
  EXPECT_EQ(cudnnBackendFinalize(conv), CUDNN_STATUS_SUCCESS);
  const ConvolutionOperationNames& n = kConvolutionOperations[static_cast<int>(op)];
  Descriptor operation = g.create(n.type);
  const bool fused = extra_op != nullptr;
  g.set(operation, n.x, g.tensor(p.x, type, 'x'));
  g.set(operation, n.w, g.tensor(p.w, type, 'w'));
  g.set(operation, n.y, g.tensor(p.y, type, fused ? 'c' : 'y', fused));
  g.set(operation, n.conv, conv);
  if (type == CUDNN_DATA_DOUBLE) {
    g.set(operation, n.alpha, CUDNN_TYPE_DOUBLE, std::vector<double>{alpha});
    g.set(operation, n.beta, CUDNN_TYPE_DOUBLE, std::vector<double>{beta});
  } else {
    g.set(operation, n.alpha, CUDNN_TYPE_FLOAT, std::vector<float>{static_cast<float>(alpha)});
    g.set(operation, n.beta, CUDNN_TYPE_FLOAT, std::vector<float>{static_cast<float>(beta)});
  }
  EXPECT_EQ(cudnnBackendFinalize(operation), CUDNN_STATUS_SUCCESS);
  std::vector<Descriptor> ops{operation};
  if (fused) {  // y = relu(conv + bias)
    Descriptor bias = g.tensor(TensorShape::packed({1, p.y.dims[1], 1, 1}), type, 'b');
    Descriptor sum = g.tensor(p.y, type, 's', true);
    Descriptor out = g.tensor(p.y, type, 'y');
    for (auto [mode, in, b, result] :
         {std::tuple{CUDNN_POINTWISE_ADD, 'c', bias, sum},
          std::tuple{CUDNN_POINTWISE_RELU_FWD, 's', Descriptor{}, out}}) {
      Descriptor pw = g.create(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
      g.set(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE,
            std::vector<cudnnPointwiseMode_t>{mode});
      EXPECT_EQ(cudnnBackendFinalize(pw), CUDNN_STATUS_SUCCESS);
      Descriptor pwop = g.create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
      g.set(pwop, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, pw);
      g.set(pwop, CUDNN_ATTR_OPERATION_POINTWISE_XDESC,
            in == 'c' ? g.tensor(p.y, type, 'c', true) : sum);
      if (b) g.set(pwop, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, b);
      g.set(pwop, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, result);
      EXPECT_EQ(cudnnBackendFinalize(pwop), CUDNN_STATUS_SUCCESS);
      ops.push_back(pwop);
    }
    *extra_op = ops.back();
  }
  Descriptor graph = g.create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  g.set(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, ops);
  EXPECT_EQ(cudnnBackendFinalize(graph), CUDNN_STATUS_SUCCESS);
  Descriptor heuristics = g.create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  g.set(heuristics, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph);
  g.set(heuristics, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE,
        std::vector<cudnnBackendHeurMode_t>{CUDNN_HEUR_MODE_A});
  EXPECT_EQ(cudnnBackendFinalize(heuristics), CUDNN_STATUS_SUCCESS);
  int64_t count = 0;
  EXPECT_EQ(cudnnBackendGetAttribute(heuristics, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                     CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr),
            CUDNN_STATUS_SUCCESS);
  std::vector<Descriptor> results(static_cast<std::size_t>(count));
  for (auto& r : results) r = g.create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
  EXPECT_EQ(cudnnBackendGetAttribute(heuristics, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                     CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &count, results.data()),
            CUDNN_STATUS_SUCCESS);
  return results;
}

struct Engine {
  int64_t index = -1;
  bool nondeterministic = false;
};

Engine engine_of(Graph& g, Descriptor configuration) {
  Engine e;
  Descriptor engine = g.create(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  int64_t n = 0;
  EXPECT_EQ(cudnnBackendGetAttribute(configuration, CUDNN_ATTR_ENGINECFG_ENGINE,
                                     CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &engine),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1,
                                     &n, &e.index),
            CUDNN_STATUS_SUCCESS);
  cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
  EXPECT_EQ(
      cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                               CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &n, notes),
      CUDNN_STATUS_SUCCESS);
  for (int64_t i = 0; i < n; ++i)
    e.nondeterministic |= notes[i] == CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC;
  return e;
}

Descriptor plan_of(Graph& g, Descriptor configuration, int64_t* workspace) {
  Descriptor plan = g.create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  g.set(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, configuration);
  EXPECT_EQ(cudnnBackendFinalize(plan), CUDNN_STATUS_SUCCESS);
  int64_t n = 0;
  EXPECT_EQ(cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                     CUDNN_TYPE_INT64, 1, &n, workspace),
            CUDNN_STATUS_SUCCESS);
  return plan;
}

cudnnStatus_t execute(Graph& g, const Handle& handle, Descriptor plan, std::vector<int64_t> uids,
                      std::vector<void*> pointers, void* workspace) {
  Descriptor pack = g.create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  g.set(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, uids);
  g.set(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, pointers);
  g.set(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR,
        std::vector<void*>{workspace});
  EXPECT_EQ(cudnnBackendFinalize(pack), CUDNN_STATUS_SUCCESS);
  return cudnnBackendExecute(handle, plan, pack);
}

std::size_t bytes_of(const ConvolutionProblem& p, const TensorShape& s) {
  return static_cast<std::size_t>(testing::span_elements(s)) * testing::element_size(p.data_type);
}

void upload(const DeviceBuffer& b, const std::vector<unsigned char>& host) {
  EXPECT_EQ(cudaMemcpy(b.get(), host.data(), host.size(), cudaMemcpyHostToDevice), cudaSuccess);
}

std::vector<unsigned char> downloaded(const DeviceBuffer& b) {
  std::vector<unsigned char> host(b.bytes());
  EXPECT_EQ(cudaMemcpy(host.data(), b.get(), host.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  return host;
}

TEST(FakeCudnnGraph, EveryEngineComputesItsLegacyAlgorithm) {
  ucudnn::testing::SeededRandom random;
  Handle handle;
  int engines = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const ConvolutionProblem p = testing::random_problem(random);
    Descriptors legacy(p);
    for (Operation op :
         {Operation::kForward, Operation::kBackwardData, Operation::kBackwardFilter}) {
      SCOPED_TRACE((KernelKey{op, p}.to_string()));
      const double alpha = random.chance(0.5) ? 1.0 : 0.75, beta = random.chance(0.5) ? 0.0 : -0.5;
      Graph g;
      const auto results = configurations(g, p, op, alpha, beta);
      ASSERT_FALSE(results.empty());
      double last_ms = 0;
      for (Descriptor configuration : results) {
        const Engine e = engine_of(g, configuration);
        const Modeled m = model({op, p}, static_cast<int>(e.index));
        ASSERT_TRUE(m.supported) << "engine " << e.index;
        EXPECT_GE(m.time_ms, last_ms) << "the heuristics rank by modeled time";
        last_ms = m.time_ms;
        EXPECT_EQ(e.nondeterministic,
                  !algorithm_model(op, static_cast<int>(e.index))->deterministic);
        int64_t workspace = -1;
        Descriptor plan = plan_of(g, configuration, &workspace);
        EXPECT_EQ(workspace, static_cast<int64_t>(m.workspace_bytes));
        // The same data through the graph and through the legacy call of the same algorithm.
        const auto x = testing::random_tensor_bytes(bytes_of(p, p.x), p.data_type, random.engine());
        const auto w = testing::random_tensor_bytes(bytes_of(p, p.w), p.data_type, random.engine());
        const auto y = testing::random_tensor_bytes(bytes_of(p, p.y), p.data_type, random.engine());
        DeviceBuffer gx(x.size()), gw(w.size()), gy(y.size()), lx(x.size()), lw(w.size()),
            ly(y.size());
        for (const DeviceBuffer* b : {&gx, &lx}) upload(*b, x);
        for (const DeviceBuffer* b : {&gw, &lw}) upload(*b, w);
        for (const DeviceBuffer* b : {&gy, &ly}) upload(*b, y);
        DeviceBuffer space(m.workspace_bytes);
        ASSERT_EQ(
            execute(g, handle, plan, {'x', 'w', 'y'}, {gx.get(), gw.get(), gy.get()}, space.get()),
            CUDNN_STATUS_SUCCESS);
        const float fa = static_cast<float>(alpha), fb = static_cast<float>(beta);
        const void* a = p.data_type == DataType::kDouble ? static_cast<const void*>(&alpha) : &fa;
        const void* b = p.data_type == DataType::kDouble ? static_cast<const void*>(&beta) : &fb;
        cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
        const auto algo = static_cast<int>(e.index);
        if (op == Operation::kForward)
          status =
              cudnnConvolutionForward(handle, a, legacy.x, lx.get(), legacy.w, lw.get(),
                                      legacy.conv, static_cast<cudnnConvolutionFwdAlgo_t>(algo),
                                      space.get(), m.workspace_bytes, b, legacy.y, ly.get());
        else if (op == Operation::kBackwardData)
          status = cudnnConvolutionBackwardData(
              handle, a, legacy.w, lw.get(), legacy.y, ly.get(), legacy.conv,
              static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), space.get(), m.workspace_bytes, b,
              legacy.x, lx.get());
        else
          status = cudnnConvolutionBackwardFilter(
              handle, a, legacy.x, lx.get(), legacy.y, ly.get(), legacy.conv,
              static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), space.get(), m.workspace_bytes, b,
              legacy.w, lw.get());
        ASSERT_EQ(status, CUDNN_STATUS_SUCCESS);
        EXPECT_EQ(downloaded(gx), downloaded(lx));
        EXPECT_EQ(downloaded(gw), downloaded(lw));
        EXPECT_EQ(downloaded(gy), downloaded(ly));
        // A pack without one of the tensors, or a short workspace, is refused.
        EXPECT_EQ(execute(g, handle, plan, {'x', 'w'}, {gx.get(), gw.get()}, space.get()),
                  CUDNN_STATUS_BAD_PARAM);
        if (m.workspace_bytes > 0) {
          EXPECT_EQ(
              execute(g, handle, plan, {'x', 'w', 'y'}, {gx.get(), gw.get(), gy.get()}, nullptr),
              CUDNN_STATUS_BAD_PARAM);
        }
        ++engines;
      }
    }
  }
  EXPECT_GT(engines, 36);
}

TEST(FakeCudnnGraph, AFusedGraphAddsTheBiasAndAppliesTheReLU) {
  ucudnn::testing::SeededRandom random;
  Handle handle;
  ConvolutionProblem p = make_conv2d_problem({2, 3, 6, 6, 4, 3, 3, 1, 1});
  Graph g;
  Descriptor last = nullptr;
  const auto results = configurations(g, p, Operation::kForward, 1, 0, &last);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(engine_of(g, results[0]).index, 0);
  int64_t workspace = -1;
  Descriptor plan = plan_of(g, results[0], &workspace);
  const auto x = testing::random_tensor_bytes(bytes_of(p, p.x), p.data_type, random.engine());
  const auto w = testing::random_tensor_bytes(bytes_of(p, p.w), p.data_type, random.engine());
  const auto bias = testing::random_tensor_bytes(4 * 4, p.data_type, random.engine());
  DeviceBuffer gx(x.size()), gw(w.size()), gb(bias.size());
  upload(gx, x);
  upload(gw, w);
  upload(gb, bias);
  DeviceBuffer gy(bytes_of(p, p.y)), space(static_cast<std::size_t>(workspace));
  ASSERT_EQ(execute(g, handle, plan, {'x', 'w', 'b', 'y'}, {gx.get(), gw.get(), gb.get(), gy.get()},
                    space.get()),
            CUDNN_STATUS_SUCCESS);
  // The convolution alone, through the legacy API, then the epilogue by hand.
  Descriptors legacy(p);
  DeviceBuffer ly(bytes_of(p, p.y));
  const float one = 1, zero = 0;
  const Modeled m = model({Operation::kForward, p}, 1);
  DeviceBuffer legacy_space(m.workspace_bytes);
  ASSERT_EQ(
      cudnnConvolutionForward(handle, &one, legacy.x, gx.get(), legacy.w, gw.get(), legacy.conv,
                              CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, legacy_space.get(),
                              m.workspace_bytes, &zero, legacy.y, ly.get()),
      CUDNN_STATUS_SUCCESS);
  const auto conv = downloaded(ly), fused = downloaded(gy);
  const auto* c = reinterpret_cast<const float*>(conv.data());
  const auto* f = reinterpret_cast<const float*>(fused.data());
  const auto* b = reinterpret_cast<const float*>(bias.data());
  int positive = 0;
  for (int i = 0; i < 2 * 4 * 36; ++i) {
    const float expected = std::max(0.0f, c[i] + b[(i / 36) % 4]);
    EXPECT_NEAR(f[i], expected, 1e-6f) << i;
    positive += expected > 0;
  }
  EXPECT_GT(positive, 0);
  EXPECT_LT(positive, 2 * 4 * 36) << "the ReLU should clip some values";
}

}  // namespace
}  // namespace ucudnn::fakecuda
