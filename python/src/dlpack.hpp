// The DLPack ABI (https://dmlc.github.io/dlpack/latest/c_api.html, v1.1), written
// out from the specification so the extension needs no vendored header. Only the
// layout matters: these structs cross library boundaries by pointer.
#pragma once

#include <cstdint>

extern "C" {

#define ZARRGPU_DLPACK_MAJOR_VERSION 1
#define ZARRGPU_DLPACK_MINOR_VERSION 1

typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

typedef enum : int32_t {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13,
  kDLOneAPI = 14,
  kDLWebGPU = 15,
  kDLHexagon = 16,
  kDLMAIA = 17,
} DLDeviceType;

typedef struct {
  DLDeviceType device_type;
  int32_t device_id;
} DLDevice;

typedef enum : uint8_t {
  kDLInt = 0U,
  kDLUInt = 1U,
  kDLFloat = 2U,
  kDLOpaqueHandle = 3U,
  kDLBfloat = 4U,
  kDLComplex = 5U,
  kDLBool = 6U,
} DLDataTypeCode;

typedef struct {
  uint8_t code;   // DLDataTypeCode
  uint8_t bits;
  uint16_t lanes;
} DLDataType;

typedef struct {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // NULL: compact, row-major
  uint64_t byte_offset;
} DLTensor;

// The legacy (pre-1.0) managed tensor, capsule name "dltensor".
typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensor* self);
} DLManagedTensor;

#define ZARRGPU_DLPACK_FLAG_BITMASK_READ_ONLY (UINT64_C(1) << 0)
#define ZARRGPU_DLPACK_FLAG_BITMASK_IS_COPIED (UINT64_C(1) << 1)

// DLPack >= 1.0, capsule name "dltensor_versioned".
typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;

}  // extern "C"

// Python capsule names (the Python specification of DLPack): a consumer renames
// the capsule to the "used_" name once it owns the tensor.
inline constexpr const char* kDLTensorCapsule = "dltensor";
inline constexpr const char* kUsedDLTensorCapsule = "used_dltensor";
inline constexpr const char* kDLTensorVersionedCapsule = "dltensor_versioned";
inline constexpr const char* kUsedDLTensorVersionedCapsule = "used_dltensor_versioned";
