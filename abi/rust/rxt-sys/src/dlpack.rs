//! DLPack 0.6 (Debian's libdlpack-dev, `dlpack/dlpack.h`): how tensors cross rxt's ABI.
use std::ffi::c_void;
use std::os::raw::c_int;

/// `DLDeviceType` (a C enum: int-sized).
pub type DLDeviceType = c_int;
pub const kDLCPU: DLDeviceType = 1;

/// `DLDataTypeCode`. rxt also reads code 6 as bool (DLPack 0.8's kDLBool).
pub const kDLInt: u8 = 0;
pub const kDLUInt: u8 = 1;
pub const kDLFloat: u8 = 2;
pub const kDLBfloat: u8 = 4;
pub const kDLBool: u8 = 6;

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLDevice {
    pub device_type: DLDeviceType,
    pub device_id: c_int,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLDataType {
    pub code: u8,
    pub bits: u8,
    pub lanes: u16,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DLTensor {
    pub data: *mut c_void,
    pub device: DLDevice,
    pub ndim: c_int,
    pub dtype: DLDataType,
    pub shape: *mut i64,
    /// NULL: compact row-major.
    pub strides: *mut i64,
    pub byte_offset: u64,
}

#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensor {
    pub dl_tensor: DLTensor,
    pub manager_ctx: *mut c_void,
    /// Frees the tensor; called once by its owner. NULL for tensors nobody has to free.
    pub deleter: Option<unsafe extern "C" fn(self_: *mut DLManagedTensor)>,
}
