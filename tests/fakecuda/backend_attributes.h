#pragma once
// Which attributes each backend descriptor type takes, of which element types, how many
// elements, and whether cuDNN reads them back: the table the double's SetAttribute and
// GetAttribute check against, as cuDNN 9.19 answers (backend_differential_test.cc).
#include <cudnn.h>

#include <cstddef>

namespace ucudnn::fakecuda {

struct AttributeSpec {
  cudnnBackendDescriptorType_t owner;
  cudnnBackendAttributeName_t name;
  cudnnBackendAttributeType_t type;
  cudnnBackendAttributeType_t
      other_type;  // a second accepted type (alpha: FLOAT or DOUBLE), else `type`
  bool array;      // any count >= 1; else exactly one element
  bool readable;   // GetAttribute answers; else NOT_SUPPORTED
};

// nullptr when `name` is not an attribute of `owner`.
const AttributeSpec* attribute_spec(cudnnBackendDescriptorType_t owner,
                                    cudnnBackendAttributeName_t name);

// Bytes of one element of `type`; 0 for a type the double does not know.
std::size_t attribute_element_size(cudnnBackendAttributeType_t type);

}  // namespace ucudnn::fakecuda
