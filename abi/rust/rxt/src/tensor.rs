//! Tensors coming out: a `DLManagedTensor` rxt handed over (a trainer's parameter snapshot, a
//! VM's result), owned until dropped, when its deleter runs. Its elements are read in place.
use std::ffi::c_void;
use std::ptr::NonNull;
use std::slice;

use rxt_sys as sys;

use crate::dtype::{DataType, Element};
use crate::error::{check, Code, Error, Result};
use crate::tensor_ref::{element_count, TensorRef};

/// An owned DLPack tensor on the CPU.
pub struct Tensor {
    managed: NonNull<sys::DLManagedTensor>,
}

// rxt's result tensors may be freed from any thread and outlive everything that made them
// (docs/abi.md, "Contexts": "deallocate may be called from any thread and after the context is
// gone (a result tensor can outlive it)"), and nothing writes them: Send and Sync.
unsafe impl Send for Tensor {}
unsafe impl Sync for Tensor {}

impl Tensor {
    /// Takes ownership of a managed tensor (rxt's or another DLPack producer's): its deleter is
    /// called when the Tensor is dropped.
    ///
    /// # Safety
    /// |managed| must be a valid DLPack managed tensor nobody else deletes, whose memory stays
    /// valid and unwritten until its deleter runs.
    pub unsafe fn from_raw(managed: *mut sys::DLManagedTensor) -> Option<Tensor> {
        NonNull::new(managed).map(|managed| Tensor { managed })
    }

    /// Hands the managed tensor over (to another DLPack consumer, who calls its deleter).
    pub fn into_raw(self) -> *mut sys::DLManagedTensor {
        let raw = self.managed.as_ptr();
        std::mem::forget(self);
        raw
    }

    fn dl(&self) -> &sys::DLTensor {
        unsafe { &self.managed.as_ref().dl_tensor }
    }

    pub fn shape(&self) -> &[i64] {
        let dl = self.dl();
        if dl.ndim <= 0 || dl.shape.is_null() {
            return &[];
        }
        unsafe { slice::from_raw_parts(dl.shape, dl.ndim as usize) }
    }

    /// The strides in elements; None for a compact row-major tensor (what rxt returns).
    pub fn strides(&self) -> Option<&[i64]> {
        let dl = self.dl();
        if dl.ndim <= 0 || dl.strides.is_null() {
            return None;
        }
        Some(unsafe { slice::from_raw_parts(dl.strides, dl.ndim as usize) })
    }

    pub fn dtype(&self) -> DataType {
        DataType::from_dlpack(self.dl().dtype)
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        element_count(self.shape()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The address of the first element.
    pub fn data_ptr(&self) -> *const c_void {
        let dl = self.dl();
        (dl.data as *const u8).wrapping_add(dl.byte_offset as usize) as *const c_void
    }

    /// Whether the elements are compact in row-major order.
    fn is_compact(&self) -> bool {
        let strides = match self.strides() {
            None => return true,
            Some(strides) => strides,
        };
        let mut expected = 1i64;
        for (dim, stride) in self.shape().iter().zip(strides).rev() {
            if *dim != 1 && *stride != expected {
                return false;
            }
            expected *= dim;
        }
        true
    }

    /// The elements in place, without a copy. InvalidArgument for another element type, a
    /// strided tensor or one not on the CPU.
    pub fn as_slice<T: Element>(&self) -> Result<&[T]> {
        if self.dtype() != T::DTYPE {
            let message = format!("the tensor holds {}, not {}", self.dtype(), T::DTYPE);
            return Err(Error::new(Code::InvalidArgument, message));
        }
        if self.dl().device.device_type != sys::kDLCPU {
            return Err(Error::new(Code::InvalidArgument, "the tensor is not on the CPU"));
        }
        if !self.is_compact() {
            return Err(Error::new(Code::InvalidArgument, "the tensor is strided, not compact row-major"));
        }
        let count = self.len();
        if count == 0 {
            return Ok(&[]);
        }
        let data = self.data_ptr() as *const T;
        if data.is_null() || (data as usize) % std::mem::align_of::<T>() != 0 {
            return Err(Error::new(Code::InvalidArgument, "the tensor's data is not aligned for its type"));
        }
        // Valid while self lives: the owner frees it only through the deleter, in drop.
        Ok(unsafe { slice::from_raw_parts(data, count) })
    }

    /// A copy of the elements.
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        self.as_slice().map(<[T]>::to_vec)
    }

    /// The tensor as an input of another call (borrowed, no copy).
    pub fn view(&self) -> TensorRef<'_> {
        let strides = self.strides().map(<[i64]>::to_vec);
        unsafe { TensorRef::from_parts(self.data_ptr() as *mut c_void, self.dtype(), self.shape().to_vec(), strides) }
    }
}

impl Drop for Tensor {
    fn drop(&mut self) {
        unsafe {
            if let Some(deleter) = self.managed.as_ref().deleter {
                deleter(self.managed.as_ptr());
            }
        }
    }
}

impl std::fmt::Debug for Tensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tensor({}, {:?})", self.dtype(), self.shape())
    }
}

/// The results of a call that writes up to `capacity` managed tensors (rxt_vm_invoke,
/// rxt_trainer_predict). When they do not fit, such a call returns RXT_OUT_OF_RANGE and the
/// count it needs: then it is called again with room for them.
pub(crate) fn call_with_outputs(
    expected: usize,
    mut call: impl FnMut(*mut *mut sys::DLManagedTensor, usize, &mut usize) -> sys::rxt_status_t,
) -> Result<Vec<Tensor>> {
    let mut capacity = expected.max(1);
    loop {
        let mut raw = vec![std::ptr::null_mut(); capacity];
        let mut count = 0usize;
        match check(call(raw.as_mut_ptr(), capacity, &mut count)) {
            Ok(()) => {
                return Ok(raw[..count.min(capacity)].iter().filter_map(|&t| unsafe { Tensor::from_raw(t) }).collect())
            }
            Err(e) if e.code == Code::OutOfRange && count > capacity => capacity = count,
            Err(e) => return Err(e),
        }
    }
}
