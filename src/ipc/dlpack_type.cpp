#include "ipc/dlpack_type.hpp"

namespace zarrgpu::ipc {

DLPackType dlpack_type(DataType t) noexcept {
  const int bits = static_cast<int>(size_of(t) * 8);
  if (t.kind == DataTypeKind::bool_) return {6, 8, 1};
  if (t.kind == DataTypeKind::bfloat16) return {4, 16, 1};
  if (is_complex(t)) return {5, bits, 1};
  if (is_float(t)) return {2, bits, 1};
  if (is_unsigned_int(t)) return {1, bits, 1};
  return {0, bits, 1};
}

}  // namespace zarrgpu::ipc
