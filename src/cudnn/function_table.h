#pragma once
// A table of C functions found by name at run time, shared by the CUDA runtime's
// (cuda_runtime.h) and cuDNN's (cudnn_api.h): one pointer per function, of the function's own
// type, null when the library lacks it, and the names not found listed for the error message.
// Every call through a table is a call into the real library: it runs inside a RealCallScope, so
// that the host-time account (real_call_clock.h) never counts its time as ucudnn's own, and a
// call that comes back into the shim from there is known as the library's own.
#include <string>

#include "cudnn/real_call_clock.h"

namespace ucudnn::cudnn {

// A resolved function of type Pointer, or null.
template <typename Pointer>
class RealFunction;

template <typename Result, typename... Arguments>
class RealFunction<Result (*)(Arguments...)> {
 public:
  using Pointer = Result (*)(Arguments...);
  RealFunction() = default;
  RealFunction(Pointer pointer) : pointer_(pointer) {}  // NOLINT: a table entry is assigned so
  explicit operator bool() const { return pointer_ != nullptr; }
  Result operator()(Arguments... arguments) const {
    const RealCallScope real;
    return pointer_(arguments...);
  }

 private:
  Pointer pointer_ = nullptr;
};

}  // namespace ucudnn::cudnn

// Declares `struct Table` with a member pointer per name of FUNCTIONS (an X-macro list:
// FUNCTIONS(X) calls X(name) for each), complete(), and `static Table resolve(find)`, where
// find(const char* name) returns the symbol's address or null.
#define UCUDNN_FUNCTION_TABLE(Table, FUNCTIONS)                         \
  struct Table {                                                        \
    FUNCTIONS(UCUDNN_FUNCTION_TABLE_POINTER)                            \
    std::string missing; /* names that could not be resolved, spaced */ \
    bool complete() const { return missing.empty(); }                   \
    template <typename Find>                                            \
    static Table resolve(Find&& find) {                                 \
      Table table;                                                      \
      FUNCTIONS(UCUDNN_FUNCTION_TABLE_RESOLVE)                          \
      return table;                                                     \
    }                                                                   \
  };

#define UCUDNN_FUNCTION_TABLE_POINTER(name) ::ucudnn::cudnn::RealFunction<decltype(&::name)> name;
#define UCUDNN_FUNCTION_TABLE_RESOLVE(name)                                           \
  table.name = reinterpret_cast<typename decltype(table.name)::Pointer>(find(#name)); \
  if (!table.name) {                                                                  \
    if (!table.missing.empty()) table.missing.push_back(' ');                         \
    table.missing.append(#name);                                                      \
  }
