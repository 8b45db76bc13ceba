#pragma once
// The shim's graph (backend) API: every call goes to cuDNN as the application made it, and
// ucudnn watches. It records what the application sets (descriptor_table.h); at the Finalize of
// an execution plan whose graph is one convolution (graph_convolution.h) it plans the kernel as
// Find would (same keys, database, WR or WD, limit order), honouring the engine's numerical
// notes (no tensor cores where the engine uses none, only deterministic algorithms where the
// engine is deterministic), and answers both workspace attributes with what the plan needs: at
// least the engine's own, so that a pass-through always fits, unless the engine exceeds a
// workspace limit the user set, where the answer is the plan's within the limit and cuDNN's
// engine never runs the plan (plan_promise.h). At Execute it runs the plan's micro-batches, as
// execution plans finalized once, on the handle's stream. Nothing is planned during stream
// capture, for graphs it cannot split, or for calls from cuDNN itself; CUDA-graph population
// (PopulateCudaGraph, UpdateCudaGraph) runs cuDNN's own engine where the workspace holds it.
#include <cudnn.h>

#include <cstdint>

namespace ucudnn::shim::backend {

cudnnStatus_t create_descriptor(cudnnBackendDescriptorType_t type,
                                cudnnBackendDescriptor_t* descriptor);
cudnnStatus_t destroy_descriptor(cudnnBackendDescriptor_t descriptor);
cudnnStatus_t initialize(cudnnBackendDescriptor_t descriptor);
cudnnStatus_t set_attribute(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                            cudnnBackendAttributeType_t type, std::int64_t count,
                            const void* values);
cudnnStatus_t get_attribute(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                            cudnnBackendAttributeType_t type, std::int64_t requested,
                            std::int64_t* count, void* values);
// `caller`: the return address of the exported function, to tell cuDNN's own calls apart.
cudnnStatus_t finalize(cudnnBackendDescriptor_t descriptor, const void* caller);
cudnnStatus_t execute(cudnnHandle_t handle, cudnnBackendDescriptor_t plan,
                      cudnnBackendDescriptor_t variant_pack);
cudnnStatus_t populate_cuda_graph(cudnnHandle_t handle, cudnnBackendDescriptor_t plan,
                                  cudnnBackendDescriptor_t variant_pack, cudaGraph_t graph);
cudnnStatus_t update_cuda_graph(cudnnHandle_t handle, cudnnBackendDescriptor_t plan,
                                cudnnBackendDescriptor_t variant_pack, cudaGraph_t graph);

}  // namespace ucudnn::shim::backend
