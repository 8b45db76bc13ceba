#pragma once
// How the cuDNN double's entry points fail: a status with cudnnGetLastErrorString's message,
// and no exception across the C boundary (a failure inside becomes a cuDNN status, as in
// cuDNN).
#include <cudnn.h>

#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "cudnn_session.h"

namespace ucudnn::fakecuda {

inline cudnnStatus_t fail(cudnnStatus_t status, const char* function, const std::string& why,
                          bool to_stderr = false) {
  const std::string message = std::string(function) + ": " + why;
  if (to_stderr) std::fprintf(stderr, "fakecuda: %s\n", message.c_str());
  set_last_error_message(message);
  return status;
}

template <typename Body>
cudnnStatus_t guarded(const char* function, Body body) {
  try {
    announce_load();
    return body();
  } catch (const std::bad_alloc&) {
    return fail(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, function, "out of host memory");
  } catch (const std::exception& e) {
    return fail(CUDNN_STATUS_INTERNAL_ERROR, function, e.what());
  }
}

}  // namespace ucudnn::fakecuda
