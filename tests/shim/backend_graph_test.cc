// The shim's record of the graph API (descriptor_table.h) and what it reads from it
// (graph_convolution.h), without any library: descriptors are addresses the table never
// dereferences, set the way an application sets them.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "shim/backend/descriptor_table.h"
#include "shim/backend/graph_convolution.h"

namespace ucudnn::shim::backend {
namespace {

cudnnBackendDescriptor_t address(std::uintptr_t n) {
  return reinterpret_cast<cudnnBackendDescriptor_t>(n * 64);
}

class GraphRecords : public ::testing::Test {
 protected:
  cudnnBackendDescriptor_t create(cudnnBackendDescriptorType_t type) {
    const auto d = address(++next_);
    table_.created(d, type);
    return d;
  }
  template <typename T>
  void set(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name,
           cudnnBackendAttributeType_t type, std::vector<T> values) {
    table_.set(d, name, type, static_cast<std::int64_t>(values.size()), values.data());
  }
  void set_descriptor(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name,
                      std::vector<cudnnBackendDescriptor_t> values) {
    set(d, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, values);
  }
  cudnnBackendDescriptor_t tensor(std::vector<std::int64_t> dims, std::vector<std::int64_t> strides,
                                  std::int64_t uid, bool is_virtual = false) {
    const auto t = create(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    set(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE,
        std::vector<cudnnDataType_t>{CUDNN_DATA_FLOAT});
    set(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims);
    set(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, strides);
    set(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, std::vector<std::int64_t>{uid});
    if (is_virtual) set(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, std::vector<char>{1});
    table_.finalized(t);
    return t;
  }
  cudnnBackendDescriptor_t convolution(std::vector<std::int64_t> pre,
                                       std::vector<std::int64_t> post) {
    const auto c = create(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    set(c, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, std::vector<std::int64_t>{2});
    set(c, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE,
        std::vector<cudnnDataType_t>{CUDNN_DATA_FLOAT});
    set(c, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE,
        std::vector<cudnnConvolutionMode_t>{CUDNN_CROSS_CORRELATION});
    set(c, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, pre);
    set(c, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, post);
    set(c, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64,
        std::vector<std::int64_t>{1, 1});
    set(c, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, std::vector<std::int64_t>{1, 1});
    table_.finalized(c);
    return c;
  }
  // A backward-filter operation of 4 images, 8 -> 16 channels in 2 groups, 3x3, padding 1.
  cudnnBackendDescriptor_t operation(cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t c) {
    const auto op = create(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR);
    set_descriptor(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, {x});
    set_descriptor(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
                   {tensor({16, 4, 3, 3}, {36, 9, 3, 1}, 'w')});
    set_descriptor(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY,
                   {tensor({4, 16, 6, 6}, {576, 36, 6, 1}, 'y')});
    set_descriptor(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, {c});
    set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA, CUDNN_TYPE_DOUBLE,
        std::vector<double>{0.25});
    table_.finalized(op);
    return op;
  }
  cudnnBackendDescriptor_t standard_x() { return tensor({4, 8, 6, 6}, {288, 36, 6, 1}, 'x'); }
  // The plan of a graph of `ops` the way cudnn-frontend builds it (engine, configuration), or
  // from the heuristics' results (the configuration the application never set).
  cudnnBackendDescriptor_t plan(std::vector<cudnnBackendDescriptor_t> ops, bool heuristics) {
    const auto graph = create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    set_descriptor(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, ops);
    set(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE,
        std::vector<cudnnHandle_t>{reinterpret_cast<cudnnHandle_t>(0x1234)});
    table_.finalized(graph);
    const auto configuration = create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    if (heuristics) {
      const auto h = create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
      set_descriptor(h, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, {graph});
      table_.finalized(h);
      table_.heuristics_results(h, &configuration, 1);
    } else {
      const auto engine = create(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
      set_descriptor(engine, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, {graph});
      table_.finalized(engine);
      set_descriptor(configuration, CUDNN_ATTR_ENGINECFG_ENGINE, {engine});
      table_.finalized(configuration);
    }
    const auto p = create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    set_descriptor(p, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, {configuration});
    table_.finalized(p);
    return p;
  }
  // The engine configuration `plan_descriptor` was built from, by its address.
  cudnnBackendDescriptor_t configuration_of(cudnnBackendDescriptor_t plan_descriptor) {
    const Record* configuration = nullptr;
    table_.read(plan_descriptor, [&](const Record* record) {
      if (record) configuration = record->descriptor(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG);
    });
    for (std::uintptr_t n = 1; configuration && n <= next_; ++n) {
      bool found = false;
      table_.read(address(n), [&](const Record* record) { found = record == configuration; });
      if (found) return address(n);
    }
    return nullptr;
  }
  // Another execution plan of `configuration`, finalized.
  cudnnBackendDescriptor_t plan_of(cudnnBackendDescriptor_t configuration) {
    const auto p = create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    set_descriptor(p, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, {configuration});
    table_.finalized(p);
    return p;
  }
  Expected<GraphConvolution> read(cudnnBackendDescriptor_t plan_descriptor) {
    std::optional<Expected<GraphConvolution>> result;
    table_.read(plan_descriptor, [&](const Record* record) {
      ASSERT_NE(record, nullptr);
      result = plan_convolution(*record);
    });
    return result ? *result : Expected<GraphConvolution>(Error{"no record"});
  }

  DescriptorTable table_;
  std::uintptr_t next_ = 0;
};

TEST_F(GraphRecords, APlanOfOneConvolutionReadsBackAsTheApplicationSetIt) {
  for (bool heuristics : {false, true}) {
    const auto p = plan({operation(standard_x(), convolution({1, 1}, {1, 1}))}, heuristics);
    const auto c = read(p);
    ASSERT_TRUE(c) << c.error();
    EXPECT_EQ(c->operation, Operation::kBackwardFilter);
    EXPECT_EQ(c->problem.x.dims, (std::vector<std::int64_t>{4, 8, 6, 6}));
    EXPECT_EQ(c->problem.w.dims, (std::vector<std::int64_t>{16, 4, 3, 3}));
    EXPECT_EQ(c->problem.groups, 2);
    EXPECT_EQ(c->problem.padding, (std::vector<std::int64_t>{1, 1}));
    EXPECT_EQ(c->x_uid, 'x');
    EXPECT_EQ(c->w_uid, 'w');
    EXPECT_EQ(c->y_uid, 'y');
    EXPECT_EQ(c->alpha, 1.0);  // unset: cuDNN's default
    EXPECT_EQ(c->beta, 0.25);
    EXPECT_EQ(c->handle, reinterpret_cast<cudnnHandle_t>(0x1234));
  }
}

TEST_F(GraphRecords, AnAddressReusedAfterDestroyIsANewDescriptor) {
  const auto x = standard_x();
  const auto op = operation(x, convolution({1, 1}, {1, 1}));
  // The application destroys its tensor; cuDNN hands the address out again for another.
  table_.destroyed(x);
  table_.created(x, CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  set(x, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, std::vector<std::int64_t>{1, 1, 1, 1});
  table_.read(x, [](const Record* r) {
    ASSERT_NE(r, nullptr);
    EXPECT_FALSE(r->finalized);
    EXPECT_EQ(r->array<std::int64_t>(CUDNN_ATTR_TENSOR_DIMENSIONS).size(), 4u);
    EXPECT_FALSE(r->scalar<std::int64_t>(CUDNN_ATTR_TENSOR_UNIQUE_ID));
  });
  // The operation still holds the tensor it was given.
  const auto c = read(plan({op}, false));
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->problem.x.dims, (std::vector<std::int64_t>{4, 8, 6, 6}));
  table_.destroyed(x);
  std::size_t before = table_.size();
  table_.destroyed(x);  // twice: nothing more to forget
  EXPECT_EQ(table_.size(), before);
}

// Descriptors given to each other in a circle: the records must not hold each other alive
// (under the sanitizers' preset a held cycle is a leak) and read as descriptors never seen.
TEST_F(GraphRecords, DescriptorsGivenInACircleHoldNoCycle) {
  const auto graph = create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  set_descriptor(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, {graph});
  const auto engine = create(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  const auto configuration = create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
  set_descriptor(engine, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, {configuration});
  set_descriptor(configuration, CUDNN_ATTR_ENGINECFG_ENGINE, {engine});
  const auto x = standard_x();
  set_descriptor(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, {x, graph});
  table_.read(graph, [](const Record* r) {
    ASSERT_NE(r, nullptr);
    const AttributeValue* ops = r->find(CUDNN_ATTR_OPERATIONGRAPH_OPS);
    ASSERT_NE(ops, nullptr);
    ASSERT_EQ(ops->descriptors.size(), 2u);
    EXPECT_NE(ops->descriptors[0], nullptr);  // the tensor: no way back
    EXPECT_EQ(ops->descriptors[1], nullptr);  // itself
  });
  table_.read(configuration, [](const Record* r) {
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->descriptor(CUDNN_ATTR_ENGINECFG_ENGINE), nullptr);  // it holds the engine's way
  });
  table_.read(engine, [](const Record* r) {
    ASSERT_NE(r, nullptr);
    EXPECT_NE(r->descriptor(CUDNN_ATTR_ENGINE_OPERATION_GRAPH), nullptr);
  });
  for (auto d : {graph, engine, configuration, x}) table_.destroyed(d);
  EXPECT_EQ(table_.size(), 0u);
}

TEST_F(GraphRecords, GraphsUcudnnCannotSplitSayWhy) {
  auto error_of = [&](std::vector<cudnnBackendDescriptor_t> ops) {
    const auto c = read(plan(ops, true));
    return c ? std::string("planned") : c.error();
  };
  const auto conv = convolution({1, 1}, {1, 1});
  EXPECT_NE(
      error_of({operation(standard_x(), conv), operation(standard_x(), conv)}).find("2 operations"),
      std::string::npos);
  EXPECT_NE(
      error_of({operation(tensor({4, 8, 6, 6}, {288, 36, 6, 1}, 'x', true), conv)}).find("virtual"),
      std::string::npos);
  EXPECT_NE(error_of({operation(standard_x(), convolution({1, 1}, {0, 2}))}).find("asymmetric"),
            std::string::npos);
  // Images interleaved: the batch is not the outermost dimension.
  EXPECT_NE(
      error_of({operation(tensor({4, 8, 6, 6}, {1, 144, 24, 4}, 'x'), conv)}).find("outermost"),
      std::string::npos);
  // Channels-last is a layout, not an interleaving: it plans.
  EXPECT_EQ(error_of({operation(tensor({4, 8, 6, 6}, {288, 1, 48, 8}, 'x'), conv)}), "planned");
  const auto by_value = tensor({4, 8, 6, 6}, {288, 36, 6, 1}, 'x');
  set(by_value, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, std::vector<char>{1});
  EXPECT_NE(error_of({operation(by_value, conv)}).find("by value"), std::string::npos);
  // A filter stored HWIO (the layout is not one the legacy API can say).
  const auto op = create(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR);
  set_descriptor(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, {standard_x()});
  set_descriptor(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
                 {tensor({16, 4, 3, 3}, {1, 16, 192, 64}, 'w')});
  set_descriptor(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY,
                 {tensor({4, 16, 6, 6}, {576, 36, 6, 1}, 'y')});
  set_descriptor(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, {conv});
  table_.finalized(op);
  EXPECT_NE(error_of({op}).find("neither KCRS nor KRSC"), std::string::npos);
  // A pointwise operation is not a convolution.
  const auto pointwise = create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
  table_.finalized(pointwise);
  EXPECT_NE(error_of({pointwise}).find("not a convolution"), std::string::npos);
}

// An autotuner's plans of one graph share its claim (graph_claim.h): the first executed holds
// it while it lives; the others run cuDNN's engine and stay so; another graph has its own.
TEST_F(GraphRecords, PlansOfOneGraphShareOneClaimThatTheHolderGivesUpWhenDestroyed) {
  const auto first = plan({operation(standard_x(), convolution({1, 1}, {1, 1}))}, true);
  const auto configuration_descriptor = configuration_of(first);
  ASSERT_NE(configuration_descriptor, nullptr);
  // A second plan of the same configuration, and so of the same graph.
  const auto second = plan_of(configuration_descriptor);
  const auto other = plan({operation(standard_x(), convolution({1, 1}, {1, 1}))}, true);

  const auto a = read(first), b = read(second), c = read(other);
  ASSERT_TRUE(a && b && c);
  ASSERT_NE(a->claim, nullptr);
  EXPECT_EQ(a->claim, b->claim);
  EXPECT_NE(a->claim, c->claim);
  table_.promise(first, nullptr, a->claim);
  table_.promise(second, nullptr, b->claim);

  std::atomic<bool> first_ceded{false}, second_ceded{false}, other_ceded{false};
  EXPECT_TRUE(a->claim->take(first, first_ceded));
  EXPECT_TRUE(a->claim->take(first, first_ceded)) << "the holder keeps it";
  EXPECT_FALSE(b->claim->take(second, second_ceded));
  EXPECT_TRUE(second_ceded.load());
  EXPECT_TRUE(c->claim->take(other, other_ceded)) << "another graph's claim is its own";

  // The holder goes: a plan of the graph that never ran may take the claim, the one that ran
  // as cuDNN's may not.
  EXPECT_TRUE(table_.destroyed(first));
  EXPECT_FALSE(b->claim->take(second, second_ceded));
  const auto third = plan_of(configuration_descriptor);
  const auto d = read(third);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->claim, a->claim);
  std::atomic<bool> third_ceded{false};
  EXPECT_TRUE(d->claim->take(third, third_ceded));
}

// A framework under memory pressure reads a plan's workspace, cannot allocate it and tries the
// next engine (graph_claim.h): the plan that answered ucudnn's larger workspace holds the claim,
// so the others answer their engine's own; once that holder goes without having executed, the
// graph's later plans stay cuDNN's, even for a framework that destroys each plan it passes over
// before it builds the next.
TEST_F(GraphRecords, APlanPassedOverAfterAnsweringMoreThanItsEngineLeavesTheGraphToCudnn) {
  // Plans are addresses to the claim: any distinct, aligned ones will do.
  alignas(8) static const char plans[4][8] = {};
  const void *first = plans[0], *second = plans[1], *third = plans[2], *fourth = plans[3];
  GraphClaim claim;
  std::atomic<bool> first_ceded{false}, second_ceded{false}, third_ceded{false};
  EXPECT_TRUE(claim.answer(first, first_ceded, /*larger=*/true));
  EXPECT_TRUE(claim.answer(first, first_ceded, true)) << "the holder answers again";
  EXPECT_FALSE(claim.answer(second, second_ceded, true));
  EXPECT_TRUE(second_ceded.load()) << "a plan that answered its engine's own is cuDNN's";
  EXPECT_TRUE(claim.release(first)) << "never executed: passed over";
  EXPECT_FALSE(claim.answer(third, third_ceded, true));
  EXPECT_FALSE(claim.take(third, third_ceded));

  // Where the holder's answer was no more than its engine's, or it executed, the graph's next
  // plan may take the claim once it goes.
  for (const bool executed : {false, true}) {
    GraphClaim other;
    std::atomic<bool> a{false}, b{false}, c{false};
    EXPECT_TRUE(other.answer(first, a, /*larger=*/executed));
    if (executed) {
      EXPECT_TRUE(other.take(first, a));
    }
    EXPECT_FALSE(other.take(second, b));
    EXPECT_FALSE(other.release(first));
    EXPECT_FALSE(other.take(second, b)) << "it ran as cuDNN's: it stays cuDNN's";
    EXPECT_TRUE(other.answer(fourth, c, true)) << (executed ? "executed" : "answered no more");
    EXPECT_TRUE(other.take(fourth, c));
  }

  // Recorded into a CUDA graph natively (cudnnBackendPopulateCudaGraph) is used, not passed over.
  GraphClaim native;
  std::atomic<bool> a{false}, d{false};
  EXPECT_TRUE(native.answer(first, a, /*larger=*/true));
  native.ran(first);
  EXPECT_FALSE(native.release(first));
  EXPECT_TRUE(native.answer(fourth, d, true));
}

// The workspace an engine configuration answers (cudnn-frontend reads it there) is that of the
// last plan finalized from it, while that plan lives: a plan whose answer is below its engine's
// workspace must not lend that answer to a later plan of the configuration that cuDNN runs.
TEST_F(GraphRecords, AConfigurationAnswersForItsLastPlanWhileThatPlanLives) {
  // The table never reads a promise: addresses stand for them.
  int first_promise = 0, second_promise = 0;
  const std::shared_ptr<const PlanPromise> promised(
      reinterpret_cast<const PlanPromise*>(&first_promise), [](const PlanPromise*) {});
  const std::shared_ptr<const PlanPromise> other(
      reinterpret_cast<const PlanPromise*>(&second_promise), [](const PlanPromise*) {});
  const auto first = plan({operation(standard_x(), convolution({1, 1}, {1, 1}))}, false);
  const auto configuration = configuration_of(first);
  ASSERT_NE(configuration, nullptr);
  table_.promise(first, promised, nullptr);
  EXPECT_EQ(table_.promise_of(configuration), promised);
  // A second plan of it, which ucudnn leaves to cuDNN: the configuration answers as cuDNN does.
  const auto second = plan_of(configuration);
  EXPECT_EQ(table_.promise_of(configuration), nullptr);
  EXPECT_EQ(table_.promise_of(first), promised) << "the first plan keeps its own";
  // The second promised too: the first plan going leaves the second's answer.
  table_.promise(second, other, nullptr);
  EXPECT_EQ(table_.promise_of(configuration), other);
  EXPECT_TRUE(table_.destroyed(first));
  EXPECT_EQ(table_.promise_of(configuration), other);
  // Its own plan going, or emptied: cuDNN's answer.
  table_.initialized(second);
  EXPECT_EQ(table_.promise_of(configuration), nullptr);
  const auto third = plan_of(configuration);
  table_.promise(third, promised, nullptr);
  EXPECT_EQ(table_.promise_of(configuration), promised);
  EXPECT_TRUE(table_.destroyed(third));
  EXPECT_EQ(table_.promise_of(configuration), nullptr);
}

}  // namespace
}  // namespace ucudnn::shim::backend
