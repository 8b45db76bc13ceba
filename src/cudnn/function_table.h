#pragma once
// A table of C functions found by name at run time, shared by the CUDA runtime's
// (cuda_runtime.h) and cuDNN's (cudnn_api.h): one pointer per function, of the function's own
// type, null when the library lacks it, and the names not found listed for the error message.
#include <string>

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

#define UCUDNN_FUNCTION_TABLE_POINTER(name) decltype(&::name) name = nullptr;
#define UCUDNN_FUNCTION_TABLE_RESOLVE(name)                         \
  table.name = reinterpret_cast<decltype(table.name)>(find(#name)); \
  if (!table.name) {                                                \
    if (!table.missing.empty()) table.missing.push_back(' ');       \
    table.missing.append(#name);                                    \
  }
