/* A DLManagedTensor over the caller's CPU buffer (no deleter: rxt copies or borrows it only
 * for the call), for the C programs of these tests. */
#ifndef RXT_TESTS_ABI_BORROWED_TENSOR_H
#define RXT_TESTS_ABI_BORROWED_TENSOR_H

#include <dlpack/dlpack.h>
#include <string.h>

static DLManagedTensor borrowed_tensor(void* data, DLDataTypeCode code, int bits, int ndim, int64_t* shape) {
  DLManagedTensor t;
  memset(&t, 0, sizeof t);
  t.dl_tensor.data = data;
  t.dl_tensor.device.device_type = kDLCPU;
  t.dl_tensor.ndim = ndim;
  t.dl_tensor.dtype.code = (uint8_t)code;
  t.dl_tensor.dtype.bits = (uint8_t)bits;
  t.dl_tensor.dtype.lanes = 1;
  t.dl_tensor.shape = shape;
  return t;
}

#endif
