// The graph (backend) API through the shim, driven with random valid and invalid calls: every
// action is made twice, on descriptors made through the shim and on twins made straight on the
// cuDNN test double, and the shim must answer what cuDNN answers (it records and plans, and
// passes every call through). Descriptors of every type, attributes of the right and wrong
// types and counts, null and unset arguments, whole convolution graphs built, planned and
// executed among them. No call may crash (the suite also runs under AddressSanitizer).
// UCUDNN_FUZZ_CALLS sets the number of actions (default 20000).
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "device_harness.h"
#include "graph_api_fuzz_values.h"
#include "support/random_seed.h"

namespace {

using namespace ucudnn::testing;

// The graph API of one side: the shim's exports, or the double's own functions.
struct Api {
  decltype(&cudnnBackendCreateDescriptor) create;
  decltype(&cudnnBackendDestroyDescriptor) destroy;
  decltype(&cudnnBackendSetAttribute) set;
  decltype(&cudnnBackendGetAttribute) get;
  decltype(&cudnnBackendFinalize) finalize;
  decltype(&cudnnBackendExecute) execute;
  decltype(&cudnnBackendInitialize) initialize;
};

Api shim_api() {
  return {&cudnnBackendCreateDescriptor, &cudnnBackendDestroyDescriptor, &cudnnBackendSetAttribute,
          &cudnnBackendGetAttribute,     &cudnnBackendFinalize,          &cudnnBackendExecute,
          &cudnnBackendInitialize};
}

Api double_api() {
  return {real<decltype(cudnnBackendCreateDescriptor)>("cudnnBackendCreateDescriptor"),
          real<decltype(cudnnBackendDestroyDescriptor)>("cudnnBackendDestroyDescriptor"),
          real<decltype(cudnnBackendSetAttribute)>("cudnnBackendSetAttribute"),
          real<decltype(cudnnBackendGetAttribute)>("cudnnBackendGetAttribute"),
          real<decltype(cudnnBackendFinalize)>("cudnnBackendFinalize"),
          real<decltype(cudnnBackendExecute)>("cudnnBackendExecute"),
          real<decltype(cudnnBackendInitialize)>("cudnnBackendInitialize")};
}

constexpr cudnnBackendDescriptorType_t kTypes[] = {
    CUDNN_BACKEND_TENSOR_DESCRIPTOR,
    CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR,
    CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
    CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
    CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
    CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR,
    CUDNN_BACKEND_ENGINE_DESCRIPTOR,
    CUDNN_BACKEND_ENGINECFG_DESCRIPTOR,
    CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR,
    CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR,
    CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR,
    CUDNN_BACKEND_POINTWISE_DESCRIPTOR,
};

class GraphApiFuzz : public ::testing::Test {
 protected:
  void SetUp() override {
    Dl_info info{};
    ASSERT_TRUE(dladdr(reinterpret_cast<const void*>(&cudnnBackendExecute), &info));
    ASSERT_NE(std::string(info.dli_fname).find("libucudnn_preload.so"), std::string::npos)
        << "run this test with LD_PRELOAD=libucudnn_preload.so (CTest does)";
    ASSERT_EQ(cudnnCreate(&handle_), CUDNN_STATUS_SUCCESS);
    x_ = buffers_.allocate(4 * 8 * 8 * 8);
    w_ = buffers_.allocate(8 * 8 * 9);
    y_ = buffers_.allocate(4 * 8 * 8 * 8);
    workspace_ = buffers_.allocate(1 << 20);
  }
  void TearDown() override {
    for (auto& [side, pool] : pools_)
      for (Descriptor d : pool)
        if (d) (side ? shim_ : double_).destroy(d);
    cudnnDestroy(handle_);
  }

  // The same action on both sides; `record` compares the statuses.
  void record(const std::string& what, cudnnStatus_t shim, cudnnStatus_t cudnn) {
    ++calls_[what];
    if (shim != cudnn && examples_.size() < 20)
      examples_.push_back(what + ": shim " + std::to_string(shim) + ", cuDNN " +
                          std::to_string(cudnn) + " (" + arguments_ + ")");
    if (shim != cudnn) ++mismatches_[what];
  }

  std::size_t any() { return static_cast<std::size_t>(random_.uniform(0, pool(true).size() - 1)); }
  std::vector<Descriptor>& pool(bool shim) { return pools_[shim]; }

  // A descriptor of the pool (both sides' twins), sometimes null.
  Descriptor of(bool shim, std::size_t i) { return i == kNull ? nullptr : pool(shim)[i]; }
  std::size_t draw_index() {
    if (pool(true).empty() || random_.chance(0.03)) return kNull;
    return any();
  }

  void create() {
    // No descriptor type is 60, but 60 is within the enum's range (0 to 63): a value outside it
    // would be undefined behaviour in any C++ library, cuDNN's included, not a case to compare.
    const auto type = random_.chance(0.98) ? kTypes[random_.uniform(0, std::size(kTypes) - 1)]
                                           : static_cast<cudnnBackendDescriptorType_t>(60);
    Descriptor s = nullptr, d = nullptr;
    arguments_ = "type " + std::to_string(type);
    record("CreateDescriptor", shim_.create(type, &s), double_.create(type, &d));
    if (s && d) {
      pool(true).push_back(s);
      pool(false).push_back(d);
    }
  }
  void destroy() {
    const std::size_t i = draw_index();
    arguments_ = "descriptor " + std::to_string(i);
    record("DestroyDescriptor", shim_.destroy(of(true, i)), double_.destroy(of(false, i)));
    if (i != kNull) {
      pool(true).erase(pool(true).begin() + static_cast<std::ptrdiff_t>(i));
      pool(false).erase(pool(false).begin() + static_cast<std::ptrdiff_t>(i));
    }
  }

  // Empties a descriptor (its type stays): what was set, finalized or planned is gone.
  void initialize() {
    const std::size_t i = draw_index();
    arguments_ = "descriptor " + std::to_string(i);
    record("Initialize", shim_.initialize(of(true, i)), double_.initialize(of(false, i)));
  }

  void set() {
    const std::size_t i = draw_index();
    const auto name = any_attribute(random_);
    FuzzValue v = any_value(
        random_, [&] { return draw_index(); },
        [&](bool shim, std::size_t at) { return of(shim, at); }, handle_, {x_, w_, y_});
    // Sometimes a count unlike the array's, or no array at all.
    int64_t count = random_.chance(0.9) ? v.count : random_.uniform(-1, 3);
    if (count > v.count) count = v.count;
    const bool null_array = random_.chance(0.03) || v.shim_bytes.empty();
    arguments_ = "descriptor " + std::to_string(i) + " attribute " + std::to_string(name) +
                 " type " + std::to_string(v.type) + " count " + std::to_string(count);
    record("SetAttribute",
           shim_.set(of(true, i), name, v.type, count, null_array ? nullptr : v.shim_bytes.data()),
           double_.set(of(false, i), name, v.type, count,
                       null_array ? nullptr : v.double_bytes.data()));
  }
  void finalize() {
    const std::size_t i = draw_index();
    arguments_ = "descriptor " + std::to_string(i);
    record("Finalize", shim_.finalize(of(true, i)), double_.finalize(of(false, i)));
  }
  void get() {
    const std::size_t i = draw_index();
    const auto name = any_attribute(random_);
    static const cudnnBackendAttributeType_t kTypesRead[] = {
        CUDNN_TYPE_INT64,  CUDNN_TYPE_DATA_TYPE,          CUDNN_TYPE_FLOAT,
        CUDNN_TYPE_DOUBLE, CUDNN_TYPE_BACKEND_DESCRIPTOR, CUDNN_TYPE_NUMERICAL_NOTE,
        CUDNN_TYPE_BOOLEAN};
    const auto type = kTypesRead[random_.uniform(0, std::size(kTypesRead) - 1)];
    const int64_t requested = random_.uniform(0, 4);
    const bool with_count = random_.chance(0.9), with_array = random_.chance(0.9);
    int64_t shim_count = 0, double_count = 0;
    // Descriptors read back go into twins made for the purpose, of the type the attribute has.
    std::vector<Descriptor> shim_out, double_out;
    std::vector<int64_t> shim_values(8, 0), double_values(8, 0);
    void* shim_array = shim_values.data();
    void* double_array = double_values.data();
    if (type == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
      const auto made = name == CUDNN_ATTR_ENGINECFG_ENGINE ? CUDNN_BACKEND_ENGINE_DESCRIPTOR
                                                            : CUDNN_BACKEND_ENGINECFG_DESCRIPTOR;
      for (int64_t k = 0; k < requested; ++k) {
        Descriptor s = nullptr, d = nullptr;
        shim_.create(made, &s);
        double_.create(made, &d);
        shim_out.push_back(s);
        double_out.push_back(d);
      }
      shim_array = shim_out.data();
      double_array = double_out.data();
    }
    arguments_ = "descriptor " + std::to_string(i) + " attribute " + std::to_string(name) +
                 " type " + std::to_string(type) + " requested " + std::to_string(requested);
    const cudnnStatus_t s =
        shim_.get(of(true, i), name, type, requested, with_count ? &shim_count : nullptr,
                  with_array ? shim_array : nullptr);
    const cudnnStatus_t d =
        double_.get(of(false, i), name, type, requested, with_count ? &double_count : nullptr,
                    with_array ? double_array : nullptr);
    record("GetAttribute", s, d);
    // The workspace of a plan ucudnn runs may be its own; any other value is cuDNN's.
    const bool workspace = name == CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE ||
                           name == CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE;
    if (s == CUDNN_STATUS_SUCCESS && d == CUDNN_STATUS_SUCCESS &&
        type != CUDNN_TYPE_BACKEND_DESCRIPTOR && !workspace &&
        (shim_count != double_count || shim_values != double_values))
      record("GetAttribute values", CUDNN_STATUS_BAD_PARAM, CUDNN_STATUS_SUCCESS);
    for (auto o : shim_out) shim_.destroy(o);
    for (auto o : double_out) double_.destroy(o);
  }
  void execute() {
    const std::size_t plan = draw_index(), pack = draw_index();
    arguments_ = "plan " + std::to_string(plan) + " pack " + std::to_string(pack);
    const cudnnHandle_t h = random_.chance(0.95) ? handle_ : nullptr;
    const cudnnStatus_t s = shim_.execute(h, of(true, plan), of(true, pack));
    const cudnnStatus_t d = double_.execute(h, of(false, plan), of(false, pack));
    if (s != d) {  // what cuDNN said, for the failure message
      char message[256] = "";
      real<decltype(cudnnGetLastErrorString)>("cudnnGetLastErrorString")(message, sizeof message);
      arguments_ += std::string(": ") + message;
    }
    record("Execute", s, d);
  }

  // A whole graph, built right on both sides: the calls above then find valid descriptors to
  // finalize, read and execute among the random ones.
  void build_graph() {
    auto both = [&](cudnnBackendDescriptorType_t type) {
      Descriptor s = nullptr, d = nullptr;
      shim_.create(type, &s);
      double_.create(type, &d);
      pool(true).push_back(s);
      pool(false).push_back(d);
      return pool(true).size() - 1;
    };
    auto set_both = [&](std::size_t i, cudnnBackendAttributeName_t name,
                        cudnnBackendAttributeType_t type, std::vector<int64_t> values) {
      record(
          "SetAttribute (graph)",
          shim_.set(pool(true)[i], name, type, static_cast<int64_t>(values.size()), values.data()),
          double_.set(pool(false)[i], name, type, static_cast<int64_t>(values.size()),
                      values.data()));
    };
    auto set_descriptor = [&](std::size_t i, cudnnBackendAttributeName_t name, std::size_t value) {
      record(
          "SetAttribute (graph)",
          shim_.set(pool(true)[i], name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pool(true)[value]),
          double_.set(pool(false)[i], name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pool(false)[value]));
    };
    auto finish = [&](std::size_t i) {
      record("Finalize (graph)", shim_.finalize(pool(true)[i]), double_.finalize(pool(false)[i]));
    };
    auto tensor = [&](std::vector<int64_t> dims, std::vector<int64_t> strides, int64_t uid) {
      const auto t = both(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
      set_both(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims);
      set_both(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, strides);
      set_both(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, {uid});
      set_both(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, {16});
      finish(t);
      return t;
    };
    const auto x = tensor({4, 8, 8, 8}, {512, 64, 8, 1}, 'x');
    const auto w = tensor({8, 8, 3, 3}, {72, 9, 3, 1}, 'w');
    const auto y = tensor({4, 8, 8, 8}, {512, 64, 8, 1}, 'y');
    const auto conv = both(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    set_both(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, {2});
    for (auto name : {CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS,
                      CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_ATTR_CONVOLUTION_DILATIONS})
      set_both(conv, name, CUDNN_TYPE_INT64, {1, 1});
    record("SetAttribute (graph)",
           shim_.set(pool(true)[conv], CUDNN_ATTR_CONVOLUTION_CONV_MODE,
                     CUDNN_TYPE_CONVOLUTION_MODE, 1, &kMode),
           double_.set(pool(false)[conv], CUDNN_ATTR_CONVOLUTION_CONV_MODE,
                       CUDNN_TYPE_CONVOLUTION_MODE, 1, &kMode));
    record("SetAttribute (graph)",
           shim_.set(pool(true)[conv], CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1,
                     &kFloat),
           double_.set(pool(false)[conv], CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1,
                       &kFloat));
    finish(conv);
    const int kind = random_.uniform(0, 2);
    static const cudnnBackendDescriptorType_t kOps[] = {
        CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
        CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
        CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR};
    static const cudnnBackendAttributeName_t kX[] = {CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
                                                     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
                                                     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X};
    static const cudnnBackendAttributeName_t kW[] = {
        CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW};
    static const cudnnBackendAttributeName_t kY[] = {
        CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY};
    static const cudnnBackendAttributeName_t kConv[] = {
        CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC};
    const auto op = both(kOps[kind]);
    set_descriptor(op, kX[kind], x);
    set_descriptor(op, kW[kind], w);
    set_descriptor(op, kY[kind], y);
    set_descriptor(op, kConv[kind], conv);
    finish(op);
    const auto graph = both(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    set_descriptor(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, op);
    finish(graph);
    const auto engine = both(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    set_descriptor(engine, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, graph);
    set_both(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, {random_.uniform(0, 2)});
    finish(engine);
    const auto configuration = both(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    set_descriptor(configuration, CUDNN_ATTR_ENGINECFG_ENGINE, engine);
    finish(configuration);
    const auto plan = both(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    record("SetAttribute (graph)",
           shim_.set(pool(true)[plan], CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1,
                     &handle_),
           double_.set(pool(false)[plan], CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1,
                       &handle_));
    set_descriptor(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, configuration);
    finish(plan);
    const auto pack = both(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    set_both(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, {'x', 'w', 'y'});
    void* pointers[] = {x_, w_, y_};
    record("SetAttribute (graph)",
           shim_.set(pool(true)[pack], CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR,
                     3, pointers),
           double_.set(pool(false)[pack], CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
                       CUDNN_TYPE_VOID_PTR, 3, pointers));
    record("SetAttribute (graph)",
           shim_.set(pool(true)[pack], CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1,
                     &workspace_),
           double_.set(pool(false)[pack], CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1,
                       &workspace_));
    finish(pack);
    record("Execute (graph)", shim_.execute(handle_, pool(true)[plan], pool(true)[pack]),
           double_.execute(handle_, pool(false)[plan], pool(false)[pack]));
  }

  static constexpr std::size_t kNull = static_cast<std::size_t>(-1);
  static constexpr cudnnConvolutionMode_t kMode = CUDNN_CROSS_CORRELATION;
  static constexpr cudnnDataType_t kFloat = CUDNN_DATA_FLOAT;
  Api shim_ = shim_api(), double_ = double_api();
  std::map<bool, std::vector<Descriptor>> pools_;
  ucudnn::testing::SeededRandom random_;
  cudnnHandle_t handle_ = nullptr;
  DeviceBuffers buffers_;
  void *x_ = nullptr, *w_ = nullptr, *y_ = nullptr, *workspace_ = nullptr;
  std::string arguments_;
  std::map<std::string, long long> calls_, mismatches_;
  std::vector<std::string> examples_;
};

// A plan ucudnn planned, then emptied by cudnnBackendInitialize, is cuDNN's to refuse: ucudnn
// must not run the plan it made before, nor answer its workspace.
TEST_F(GraphApiFuzz, AnInitializedPlanIsNeitherRunNorAnswered) {
  for (int graph = 0; graph < 20; ++graph) {
    build_graph();
    const std::size_t plan = pool(true).size() - 2, pack = pool(true).size() - 1;
    if (double_.execute(handle_, pool(false)[plan], pool(false)[pack]) != CUDNN_STATUS_SUCCESS)
      continue;  // an engine that refuses this graph: nothing planned to forget
    arguments_ = "graph " + std::to_string(graph);
    record("Initialize", shim_.initialize(pool(true)[plan]), double_.initialize(pool(false)[plan]));
    record("Execute after Initialize", shim_.execute(handle_, pool(true)[plan], pool(true)[pack]),
           double_.execute(handle_, pool(false)[plan], pool(false)[pack]));
    std::int64_t shim_bytes = -1, double_bytes = -1, count = 0;
    record("Get workspace after Initialize",
           shim_.get(pool(true)[plan], CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64,
                     1, &count, &shim_bytes),
           double_.get(pool(false)[plan], CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                       CUDNN_TYPE_INT64, 1, &count, &double_bytes));
    EXPECT_EQ(shim_bytes, double_bytes);
  }
  ASSERT_GT(calls_["Execute after Initialize"], 0) << "no graph ran: nothing was tested";
  EXPECT_EQ(mismatches_.size(), 0u);
  for (const auto& example : examples_) ADD_FAILURE() << example;
}

TEST_F(GraphApiFuzz, EveryGraphApiExportAnswersAsCudnnDoes) {
  const char* text = std::getenv("UCUDNN_FUZZ_CALLS");
  const long long total = text ? std::atoll(text) : 20000;
  for (long long call = 0; call < total; ++call) {
    // Keep the pools small: calls then meet the same descriptors again.
    if (pool(true).size() > 64)
      while (pool(true).size() > 32) destroy();
    const int action = random_.uniform(0, 99);
    if (action < 12)
      create();
    else if (action < 16)
      destroy();
    else if (action < 50)
      set();
    else if (action < 62)
      finalize();
    else if (action < 84)
      get();
    else if (action < 88)
      initialize();
    else if (action < 96)
      execute();
    else
      build_graph();
  }
  long long calls = 0;
  for (const auto& [what, number] : calls_) {
    calls += number;
    std::printf("%-22s %8lld calls, %lld answered unlike cuDNN\n", what.c_str(), number,
                mismatches_.count(what) ? mismatches_.at(what) : 0);
  }
  std::printf("%lld graph API calls through the shim, each compared with the double's own\n",
              calls);
  EXPECT_GE(calls, total);
  for (const auto& example : examples_) ADD_FAILURE() << example;
}

}  // namespace
