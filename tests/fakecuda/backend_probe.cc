// Builds cuDNN graph (backend) API descriptors with valid and invalid attributes and prints one
// line per call: the call, its status, and what reads back. Linked with the real -lcudnn, it
// runs against the real library or, through LD_LIBRARY_PATH, the double; the two outputs must
// agree (backend_differential_test.cc), so that the double's checks are cuDNN's own and not
// ucudnn's idea of them. Only the descriptor layer is probed: tensors, convolutions, the three
// convolution operations, pointwise descriptors and operations, operation graphs and variant
// packs, which cuDNN finalizes on the host without a GPU. Engines are not: their catalogue is
// the library's own (the double's follows its cost model).
//
// Each case runs in a child process (cuDNN crashes on some invalid arguments: the case's last
// line is then "crash"). Usage: backend_probe SEED COUNT (COUNT random cases after the fixed
// ones). First line: "library double" or "library real"; then "case K" and the case's lines.
#include <cudnn.h>
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "backend_probe_calls.h"
#include "backend_probe_problems.h"
#include "convolution_operation_names.h"

namespace {

using namespace ucudnn::fakecuda::probe;

void probe_tensor(Backend& b, Draw& draw) {
  Descriptor d = b.create(CUDNN_BACKEND_TENSOR_DESCRIPTOR, "t");
  const int rank = draw.from<int>({1, 2, 3, 4, 4, 4, 5, 8, 9});
  std::vector<int64_t> dims, strides;
  for (int i = 0; i < rank; ++i)
    dims.push_back(draw.chance(0.02) ? draw.from<int64_t>({-1, 0})
                                     : draw.from<int64_t>({1, 2, 3, 5}));
  strides = packed(dims);
  if (draw.chance(0.05)) strides[draw.between(0, rank - 1)] = draw.from<int64_t>({-1, 0, 7});
  if (draw.chance(0.05)) strides.pop_back();
  const cudnnDataType_t type = draw.from(kTypes);
  if (draw.chance(0.95))
    b.set(d, "t.type", CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE,
          std::vector<cudnnDataType_t>{type}, draw.chance(0.05) ? 2 : 1);
  if (draw.chance(0.95)) {
    if (draw.chance(0.05))
      b.set(d, "t.dims", CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT32,
            std::vector<int32_t>(dims.begin(), dims.end()));
    else
      b.set(d, "t.dims", CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims,
            draw.chance(0.03) ? 0 : -1);
  }
  if (draw.chance(0.95))
    b.set(d, "t.strides", CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, strides);
  if (draw.chance(0.95))
    b.set(d, "t.uid", CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64,
          std::vector<int64_t>{draw.from<int64_t>({-3, 0, 1, 7, 1000})});
  if (draw.chance(0.95))
    b.set(d, "t.alignment", CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64,
          std::vector<int64_t>{draw.chance(0.8) ? draw.from<int64_t>({8, 16})
                                                : draw.from<int64_t>({-4, 0, 1, 2, 3, 4, 12})});
  if (draw.chance(0.3))
    b.set(d, "t.virtual", CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN,
          std::vector<char>{static_cast<char>(draw.between(0, 1))});
  if (draw.chance(0.2))
    b.set(d, "t.by_value", CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN,
          std::vector<char>{static_cast<char>(draw.between(0, 1))});
  if (draw.chance(0.1))
    b.set(d, "t.convolution_attribute", CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64,
          std::vector<int64_t>{2});
  if (draw.chance(0.1))
    b.get<int64_t>(d, "t.dims", CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 8);
  b.finalize(d, "t");
  if (draw.chance(0.3)) b.finalize(d, "t");
  if (draw.chance(0.2)) {
    b.log.line("initialize t", cudnnBackendInitialize(d));
    if (draw.chance(0.5)) {  // set again, whole or in part
      if (draw.chance(0.7))
        b.set(d, "t.type", CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE,
              std::vector<cudnnDataType_t>{type});
      b.set(d, "t.dims", CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims);
      b.set(d, "t.strides", CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, strides);
      b.set(d, "t.uid", CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, std::vector<int64_t>{9});
      b.set(d, "t.alignment", CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64,
            std::vector<int64_t>{16});
      b.finalize(d, "t after initialize");
    }
  }
  if (draw.chance(0.3))
    b.set(d, "t.uid", CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, std::vector<int64_t>{5});
  b.get<int64_t>(d, "t.dims", CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64,
                 draw.from<int64_t>({0, 1, 4, 8}));
  b.get<int64_t>(d, "t.strides", CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 8);
  b.get<int64_t>(d, "t.uid", CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1);
  b.get<int>(d, "t.type", CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1);
  b.get<int>(d, "t.virtual", CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1);
  b.get<int64_t>(d, "t.vector_count", CUDNN_ATTR_TENSOR_VECTOR_COUNT, CUDNN_TYPE_INT64, 1);
  if (draw.chance(0.3))
    b.get<int32_t>(d, "t.dims", CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT32, 8);
  b.count_of(d, "t.dims", CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64);
  b.log.line("destroy t", cudnnBackendDestroyDescriptor(d));
}

void probe_convolution_descriptor(Backend& b, Draw& draw) {
  Descriptor d = b.create(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, "c");
  const int64_t spatial =
      draw.chance(0.9) ? draw.from<int64_t>({1, 2, 2, 2, 3, 6}) : draw.from<int64_t>({0, 7});
  // Mostly valid values, now and then one that is not, or a length that is not the rank's.
  auto array = [&](std::vector<int64_t> valid, std::vector<int64_t> invalid) {
    std::vector<int64_t> out;
    const int64_t length = draw.chance(0.95) ? spatial : draw.from<int64_t>({1, 2, 3});
    for (int64_t i = 0; i < length; ++i)
      out.push_back(draw.chance(0.97) ? draw.from(valid) : draw.from(invalid));
    return out;
  };
  if (draw.chance(0.95))
    b.set(d, "c.spatial", CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64,
          std::vector<int64_t>{spatial});
  if (draw.chance(0.8))
    b.set(d, "c.compute", CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE,
          std::vector<cudnnDataType_t>{draw.from(kTypes)});
  if (draw.chance(0.8))
    b.set(d, "c.mode", CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE,
          std::vector<cudnnConvolutionMode_t>{
              draw.from<cudnnConvolutionMode_t>({CUDNN_CONVOLUTION, CUDNN_CROSS_CORRELATION})});
  if (draw.chance(0.8))
    b.set(d, "c.pre", CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64,
          array({0, 0, 1, 2}, {-1}));
  if (draw.chance(0.8))
    b.set(d, "c.post", CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64,
          array({0, 0, 1, 2}, {-1}));
  if (draw.chance(0.95))
    b.set(d, "c.dilation", CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64,
          array({1, 1, 1, 2}, {-1, 0}));
  if (draw.chance(0.95))
    b.set(d, "c.stride", CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64,
          array({1, 1, 1, 2}, {-1, 0}));
  if (draw.chance(0.05))
    b.set(d, "c.spatial", CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT32,
          std::vector<int32_t>{2});
  b.finalize(d, "c");
  b.get<int64_t>(d, "c.spatial", CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1);
  b.get<int64_t>(d, "c.pre", CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 8);
  b.get<int64_t>(d, "c.post", CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 8);
  b.get<int64_t>(d, "c.stride", CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 8);
  b.get<int64_t>(d, "c.dilation", CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 8);
  b.get<int>(d, "c.compute", CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1);
  b.get<int>(d, "c.mode", CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1);
}

// A convolution operation of a random kind over a random problem; returns it when it finalized.
Descriptor probe_operation(Backend& b, Draw& draw, int64_t uid_base = 0) {
  const ConvolutionOperationNames& names = kConvolutionOperations[draw.between(0, 2)];
  ConvolutionCase c = random_convolution(draw);
  c.x.uid += uid_base;
  c.w.uid += uid_base;
  c.y.uid += uid_base;
  Descriptor x = tensor(b, c.x, "x"), w = tensor(b, c.w, "w"), y = tensor(b, c.y, "y");
  Descriptor conv = convolution(b, c.conv, "conv");
  if (draw.chance(0.05)) x = b.create(CUDNN_BACKEND_TENSOR_DESCRIPTOR, "unfinalized");
  Descriptor op = b.create(names.type, "op" + std::to_string(names.type));
  const double missing = 0.04;
  if (!draw.chance(missing)) b.set_descriptors(op, "op.x", names.x, {x});
  if (!draw.chance(missing)) b.set_descriptors(op, "op.w", names.w, {w});
  if (!draw.chance(missing)) b.set_descriptors(op, "op.y", names.y, {y});
  if (!draw.chance(missing)) b.set_descriptors(op, "op.conv", names.conv, {conv});
  switch (draw.between(0, 4)) {
    case 0:
      b.set(op, "op.alpha", names.alpha, CUDNN_TYPE_FLOAT, std::vector<float>{0.5f});
      b.set(op, "op.beta", names.beta, CUDNN_TYPE_FLOAT, std::vector<float>{0.25f});
      break;
    case 1:
      b.set(op, "op.alpha", names.alpha, CUDNN_TYPE_DOUBLE, std::vector<double>{0.5});
      b.set(op, "op.beta", names.beta, CUDNN_TYPE_DOUBLE, std::vector<double>{0.25});
      break;
    case 2:
      b.set(op, "op.alpha", names.alpha, CUDNN_TYPE_INT64, std::vector<int64_t>{2});
      break;
    case 3:
      b.set(op, "op.alpha", names.alpha, CUDNN_TYPE_FLOAT, std::vector<float>{1, 2});
      break;
    default:
      break;
  }
  const cudnnStatus_t finalized = b.finalize(op, "op");
  b.get<float>(op, "op.alpha", names.alpha, CUDNN_TYPE_FLOAT, 1);
  b.get<double>(op, "op.alpha", names.alpha, CUDNN_TYPE_DOUBLE, 1);
  b.get<double>(op, "op.beta", names.beta, CUDNN_TYPE_DOUBLE, 1);
  b.count_of(op, "op.x", names.x, CUDNN_TYPE_BACKEND_DESCRIPTOR);
  return finalized == CUDNN_STATUS_SUCCESS ? op : nullptr;
}

Descriptor pointwise_operation(Backend& b, Draw& draw, Descriptor x, Descriptor y,
                               Descriptor bias) {
  Descriptor p = b.create(CUDNN_BACKEND_POINTWISE_DESCRIPTOR, "pw");
  const cudnnPointwiseMode_t mode =
      draw.from<cudnnPointwiseMode_t>({CUDNN_POINTWISE_ADD, CUDNN_POINTWISE_MUL,
                                       CUDNN_POINTWISE_RELU_FWD, CUDNN_POINTWISE_IDENTITY});
  if (draw.chance(0.95))
    b.set(p, "pw.mode", CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE,
          std::vector<cudnnPointwiseMode_t>{mode});
  if (draw.chance(0.9))
    b.set(p, "pw.precision", CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE,
          std::vector<cudnnDataType_t>{draw.from(kTypes)});
  b.finalize(p, "pw");
  b.get<int>(p, "pw.mode", CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1);
  Descriptor op = b.create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, "pwop");
  if (draw.chance(0.95))
    b.set_descriptors(op, "pwop.desc", CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, {p});
  if (draw.chance(0.95)) b.set_descriptors(op, "pwop.x", CUDNN_ATTR_OPERATION_POINTWISE_XDESC, {x});
  if (bias && draw.chance(0.9))
    b.set_descriptors(op, "pwop.b", CUDNN_ATTR_OPERATION_POINTWISE_BDESC, {bias});
  if (draw.chance(0.95)) b.set_descriptors(op, "pwop.y", CUDNN_ATTR_OPERATION_POINTWISE_YDESC, {y});
  return b.finalize(op, "pwop") == CUDNN_STATUS_SUCCESS ? op : nullptr;
}

void probe_graph(Backend& b, Draw& draw) {
  std::vector<Descriptor> ops;
  const int count = draw.from<int>({0, 1, 1, 1, 2});
  for (int i = 0; i < count; ++i)
    if (Descriptor op = probe_operation(b, draw, 10 * i)) ops.push_back(op);
  if (draw.chance(0.4)) {
    // An epilogue on a tensor of its own: image-shaped input and output, and a bias.
    TensorSpec in{{2, 4, 3, 3}, {}, 40, 16, CUDNN_DATA_FLOAT, draw.chance(0.5)};
    in.strides = packed(in.dims);
    TensorSpec out = in;
    out.uid = 41;
    out.is_virtual = false;
    TensorSpec bias{{1, 4, 1, 1}, {4, 1, 1, 1}, 42};
    Descriptor x = tensor(b, in, "pw.x"), y = tensor(b, out, "pw.y"), bb = tensor(b, bias, "pw.b");
    if (Descriptor op = pointwise_operation(b, draw, x, y, draw.chance(0.6) ? bb : nullptr))
      ops.push_back(op);
  }
  if (draw.chance(0.05))
    ops.push_back(
        b.create(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, "unfinalized op"));
  Descriptor g = b.create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, "g");
  if (draw.chance(0.95)) b.set_descriptors(g, "g.ops", CUDNN_ATTR_OPERATIONGRAPH_OPS, ops);
  b.finalize(g, "g");
  b.count_of(g, "g.ops", CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR);
}

void probe_variant_pack(Backend& b, Draw& draw) {
  Descriptor v = b.create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, "vp");
  const int count = draw.from<int>({0, 1, 3, 3});
  std::vector<int64_t> uids;
  std::vector<void*> pointers;
  for (int i = 0; i < count; ++i) {
    uids.push_back(i + 1);
    pointers.push_back(reinterpret_cast<void*>(static_cast<std::uintptr_t>(0x1000 * (i + 1))));
  }
  if (draw.chance(0.1) && !pointers.empty()) pointers.pop_back();
  if (draw.chance(0.9))
    b.set(v, "vp.uids", CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, uids);
  if (draw.chance(0.9))
    b.set(v, "vp.pointers", CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, pointers);
  if (draw.chance(0.7))
    b.set(v, "vp.workspace", CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR,
          std::vector<void*>{draw.chance(0.5) ? nullptr : reinterpret_cast<void*>(0x9000)});
  if (draw.chance(0.05))
    b.set(v, "vp.uids", CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT32,
          std::vector<int32_t>{1});
  b.finalize(v, "vp");
  b.get<int64_t>(v, "vp.uids", CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 4);
}

// Calls that crash the real cuDNN or that every library answers alike are not probed; these
// few fixed ones pin the null-pointer answers.
void fixed_cases(Backend& b) {
  const int64_t one = 1;
  b.log.line("finalize null", cudnnBackendFinalize(nullptr));
  b.log.line("destroy null", cudnnBackendDestroyDescriptor(nullptr));
  b.log.line("set null", cudnnBackendSetAttribute(nullptr, CUDNN_ATTR_TENSOR_UNIQUE_ID,
                                                  CUDNN_TYPE_INT64, 1, &one));
  int64_t count = 0;
  b.log.line("get null", cudnnBackendGetAttribute(nullptr, CUDNN_ATTR_TENSOR_UNIQUE_ID,
                                                  CUDNN_TYPE_INT64, 1, &count, &count));
  b.log.line("execute null", cudnnBackendExecute(nullptr, nullptr, nullptr));
  b.log.line("initialize null", cudnnBackendInitialize(nullptr));
  Descriptor t = b.create(CUDNN_BACKEND_TENSOR_DESCRIPTOR, "t");
  b.log.line("set t.uid null array", cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID,
                                                              CUDNN_TYPE_INT64, 1, nullptr));
  b.log.line("set t.uid count -1",
             cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, -1, &one));
  b.get<int64_t>(t, "t.uid unfinalized", CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1);
}

// Runs `body` in a child, so that a crash of the library ends only the case.
void isolated(const std::function<void()>& body) {
  std::fflush(stdout);
  const pid_t child = fork();
  if (child == 0) {
    body();
    std::fflush(stdout);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) std::printf("crash\n");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: backend_probe SEED COUNT\n");
    return 2;
  }
  const unsigned long long seed = std::stoull(argv[1]);
  const int count = std::stoi(argv[2]);
  // The double names itself with a symbol the real library lacks.
  std::printf("library %s\n", dlsym(RTLD_DEFAULT, "fakecuda_issue") ? "double" : "real");
  Log log;
  int number = 0;
  std::printf("case %d\n", number++);
  isolated([&] {
    Backend b{log};
    fixed_cases(b);
  });
  for (int i = 0; i < count; ++i) {
    std::printf("case %d\n", number++);
    const unsigned long long case_seed = seed * 1000003ULL + static_cast<unsigned long long>(i);
    isolated([&] {
      Draw draw(case_seed);
      Backend b{log};
      switch (draw.between(0, 4)) {
        case 0:
          probe_tensor(b, draw);
          break;
        case 1:
          probe_convolution_descriptor(b, draw);
          break;
        case 2:
          probe_operation(b, draw);
          break;
        case 3:
          probe_graph(b, draw);
          break;
        default:
          probe_variant_pack(b, draw);
          break;
      }
    });
  }
  return 0;
}
