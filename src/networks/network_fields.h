#pragma once
// What one field of a network file may hold (network_file.h's schema), read with an error that
// names the file, the field and the value: integers in range, per-dimension lists, choices of
// names, and the types a layer inherits from the top level. network_file.cc puts the fields of a
// layer together into a convolution.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/convolution_problem.h"
#include "core/expected.h"
#include "core/text.h"
#include "networks/json_text.h"

namespace ucudnn::network_fields {

using json = nlohmann::json;

// cuDNN's descriptors take int dimensions.
inline constexpr std::int64_t kLargestDimension = std::numeric_limits<std::int32_t>::max();

// Settings that the top level gives as defaults and a layer may override.
struct LayerTypes {
  bool channels_last = false;
  DataType data_type = DataType::kFloat;
  std::optional<DataType> compute_type;  // unset: follows the data type
  MathType math_type = MathType::kDefault;
  ConvolutionMode mode = ConvolutionMode::kCrossCorrelation;
};

template <typename T>
struct Choice {
  const char* name;
  T value;
};

inline constexpr Choice<bool> kLayouts[] = {{"NCHW", false}, {"NHWC", true}};
inline constexpr Choice<DataType> kDataTypes[] = {{"float", DataType::kFloat},
                                                  {"double", DataType::kDouble},
                                                  {"half", DataType::kHalf},
                                                  {"bfloat16", DataType::kBFloat16}};
inline constexpr Choice<DataType> kComputeTypes[] = {
    {"float", DataType::kFloat}, {"double", DataType::kDouble}, {"half", DataType::kHalf}};
// The file's name of a data type: "half".
std::string file_name_of(DataType type);

inline constexpr Choice<MathType> kMathTypes[] = {
    {"default", MathType::kDefault},
    {"tensor_op", MathType::kTensorOp},
    {"tensor_op_allow_conversion", MathType::kTensorOpAllowConversion},
    {"fma", MathType::kFma},
    {"tensor_op_reduced_precision_reduction", MathType::kTensorOpReducedPrecision},
    {"tensor_op_down_convert", MathType::kTensorOpDownConvert}};
inline constexpr Choice<ConvolutionMode> kModes[] = {
    {"cross_correlation", ConvolutionMode::kCrossCorrelation},
    {"convolution", ConvolutionMode::kConvolution}};

// "h, w" in 2-d, "d, h, w" in 3-d, "w" in 1-d.
const char* spatial_letters(std::size_t rank);

class FieldReader {
 public:
  explicit FieldReader(const std::string& source) : source_(source) {}

  Error error(const std::string& path, const std::string& message) const {
    return Error{source_ + ": " + path + ": " + message};
  }
  std::optional<Error> unknown_fields(const json& object, const std::string& path,
                                      const std::set<std::string>& known) const;
  Expected<std::int64_t> integer(const json& value, const std::string& path, std::int64_t minimum,
                                 std::int64_t maximum = kLargestDimension) const;
  // One number for every spatial dimension, or a list of `rank` ([h, w] in 2-d); `fallback`
  // when absent.
  Expected<std::vector<std::int64_t>> spatial(const json& layer, const std::string& field,
                                              const std::string& path, std::int64_t minimum,
                                              std::optional<std::int64_t> fallback,
                                              std::size_t rank) const;
  template <typename T, std::size_t N>
  Expected<T> choice(const json& value, const std::string& path,
                     const Choice<T> (&choices)[N]) const {
    std::string valid;
    for (const auto& c : choices) {
      if (value.is_string() && equals_ignoring_case(value.get<std::string>(), c.name))
        return c.value;
      valid += (valid.empty() ? "" : ", ") + std::string(c.name);
    }
    return error(path, describe(value) + " is not one of " + valid);
  }
  // The types `object` (the top level, or a layer) sets over `types`.
  std::optional<Error> read_types(const json& object, const std::string& path,
                                  LayerTypes& types) const;

 protected:
  const std::string& source_;
};

}  // namespace ucudnn::network_fields
