#pragma once
// A value or an error message, for planner results that can legitimately be absent
// (nothing fits the limit, an infeasible total workspace) without using exceptions across
// the C boundary of the shim.
#include <string>
#include <utility>
#include <variant>

namespace ucudnn {

struct Error {
  std::string message;
};

template <typename T>
class Expected {
 public:
  Expected(T value) : state_(std::move(value)) {}      // NOLINT: implicit by design
  Expected(Error error) : state_(std::move(error)) {}  // NOLINT: implicit by design

  bool has_value() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return has_value(); }

  const T& value() const& { return std::get<T>(state_); }
  T& value() & { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }

  const std::string& error() const { return std::get<Error>(state_).message; }

 private:
  std::variant<T, Error> state_;
};

}  // namespace ucudnn
