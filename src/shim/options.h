#pragma once
// Handle lifetime and the options API behind UcudnnHandle_t and ucudnnSet*, declared without
// the cuDNN function table so that code seeing UcudnnHandle_t's overloads can include it.
// Implemented in interposer.cc. Nothing here throws.
#include <cudnn.h>

#include <cstddef>

namespace ucudnn::shim {

// cudnnCreate through the table (UcudnnHandle_t's overload cannot call it by name).
cudnnStatus_t create_handle(cudnnHandle_t* handle);
// cudnnDestroy: forgets the handle's plans and frees its WD arena, then destroys it.
cudnnStatus_t destroy_handle(cudnnHandle_t handle);

// The options API (UcudnnHandle_t and ucudnnSet*). Statuses: BAD_PARAM for a null handle or
// an unknown policy name.
cudnnStatus_t set_batch_size_policy(cudnnHandle_t handle, const char* policy);
cudnnStatus_t set_workspace_limit(cudnnHandle_t handle, std::size_t bytes);
cudnnStatus_t set_total_workspace_size(cudnnHandle_t handle, std::size_t bytes);
cudnnStatus_t set_database(const char* path);
cudnnStatus_t optimize(cudnnHandle_t handle);

}  // namespace ucudnn::shim
