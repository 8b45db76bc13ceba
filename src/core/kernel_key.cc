#include "core/kernel_key.h"

#include "core/enum_names.h"

#include <cstdio>
#include <sstream>

namespace ucudnn {

constexpr EnumName<Operation> kOperationNames[] = {
    {Operation::kForward, "Forward"},
    {Operation::kBackwardData, "BackwardData"},
    {Operation::kBackwardFilter, "BackwardFilter"},
};

std::string_view name_of(Operation operation) {
  return name_in(kOperationNames, operation, "Unknown");
}

namespace {

void put_list(std::ostringstream& out, const std::vector<std::int64_t>& values) {
  out << '[';
  for (std::size_t i = 0; i < values.size(); ++i) out << (i ? "," : "") << values[i];
  out << ']';
}

void put_tensor(std::ostringstream& out, const char* name, const TensorShape& shape) {
  out << ' ' << name << '=';
  put_list(out, shape.dims);
  out << ':';
  put_list(out, shape.strides);
}

}  // namespace

std::string KernelKey::to_string() const {
  std::ostringstream out;
  out << "ucudnn-kernel/" << kVersion << " op=" << name_of(operation);
  put_tensor(out, "x", problem.x);
  put_tensor(out, "w", problem.w);
  put_tensor(out, "y", problem.y);
  out << " pad=";
  put_list(out, problem.padding);
  out << " stride=";
  put_list(out, problem.stride);
  out << " dilation=";
  put_list(out, problem.dilation);
  out << " groups=" << problem.groups << " mode=" << name_of(problem.mode)
      << " type=" << name_of(problem.data_type) << " compute=" << name_of(problem.compute_type)
      << " math=" << name_of(problem.math_type) << " reorder=" << name_of(problem.reorder);
  return out.str();
}

std::string KernelKey::brief() const {
  std::ostringstream out;
  out << name_of(operation) << " x=";
  put_list(out, problem.x.dims);
  out << " w=";
  put_list(out, problem.w.dims);
  return out.str();
}

namespace {
std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}
std::string hex16(std::uint64_t value) {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(value));
  return buffer;
}
}  // namespace

std::string kernel_hash_hex(std::string_view key_text) {
  return hex16(fnv1a(key_text));
}

std::uint64_t KernelKey::hash() const {
  return fnv1a(to_string());
}

std::size_t KernelKeyHash::operator()(const KernelKey& key) const {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  auto mix = [&h](std::int64_t value) {
    h ^= static_cast<std::uint64_t>(value);
    h *= 0x100000001b3ULL;
    h ^= h >> 29;
  };
  auto mix_all = [&mix](const std::vector<std::int64_t>& values) {
    mix(static_cast<std::int64_t>(values.size()));
    for (auto v : values) mix(v);
  };
  const auto& p = key.problem;
  mix(static_cast<std::int64_t>(key.operation));
  for (const TensorShape* shape : {&p.x, &p.w, &p.y}) {
    mix_all(shape->dims);
    mix_all(shape->strides);
  }
  mix_all(p.padding);
  mix_all(p.stride);
  mix_all(p.dilation);
  for (std::int64_t v :
       {p.groups, static_cast<std::int64_t>(p.mode), static_cast<std::int64_t>(p.data_type),
        static_cast<std::int64_t>(p.compute_type), static_cast<std::int64_t>(p.math_type),
        static_cast<std::int64_t>(p.reorder)})
    mix(v);
  return static_cast<std::size_t>(h);
}

std::string KernelKey::hash_hex() const {
  return hex16(hash());
}

}  // namespace ucudnn
