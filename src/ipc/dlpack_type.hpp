// A data type in DLPack's terms (DLDataType: type code, bits, lanes), as the
// descriptor's "dlpack_dtype" member states it for readers without NumPy.
#pragma once

#include <cstdint>

#include "zarrgpu/data_type.hpp"

namespace zarrgpu::ipc {

struct DLPackType {
  int code = 0;  // kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLComplex 5, kDLBool 6
  int bits = 0;
  int lanes = 1;
};

// A numeric type's DLPack spelling (is_numeric(t) must hold).
DLPackType dlpack_type(DataType t) noexcept;

}  // namespace zarrgpu::ipc
