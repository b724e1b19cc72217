//! Tensors going in: a DLPack tensor describing a caller's slice, which rxt borrows for one call
//! (docs/abi.md: inputs "are only read during the call; rxt keeps no pointer to caller
//! memory"). No copy is made here; rxt reads a compact, 64-byte-aligned tensor in place and
//! copies any other itself.
use std::ffi::c_void;
use std::marker::PhantomData;
use std::ptr;

use rxt_sys as sys;

use crate::dtype::{DataType, Element};
use crate::error::{Code, Error, Result};

/// A borrowed tensor: `&'a [T]` with a shape (row-major), as the `DLManagedTensor` rxt's calls
/// take. It has no deleter: rxt never frees what it borrows.
pub struct TensorRef<'a> {
    managed: sys::DLManagedTensor,
    // The DLTensor points into these (heap memory: moving the TensorRef keeps it valid).
    shape: Vec<i64>,
    strides: Option<Vec<i64>>,
    _borrow: PhantomData<&'a [u8]>,
}

// A TensorRef is a shared borrow of plain numbers (Element: Send + Sync) plus its own shape:
// what &[T] may do across threads, it may.
unsafe impl Send for TensorRef<'_> {}
unsafe impl Sync for TensorRef<'_> {}

/// The number of elements of |shape|; an error for a negative dim or an overflow.
pub(crate) fn element_count(shape: &[i64]) -> Result<usize> {
    let mut count: usize = 1;
    for &dim in shape {
        let dim = usize::try_from(dim)
            .map_err(|_| Error::new(Code::InvalidArgument, format!("shape {:?} has a negative dim", shape)))?;
        count = count
            .checked_mul(dim)
            .ok_or_else(|| Error::new(Code::InvalidArgument, format!("shape {:?} overflows", shape)))?;
    }
    Ok(count)
}

impl<'a> TensorRef<'a> {
    /// |data| as a tensor of |shape|: the slice must hold exactly the shape's elements (else
    /// InvalidArgument: rxt would read past its end).
    pub fn new<T: Element>(data: &'a [T], shape: &[i64]) -> Result<TensorRef<'a>> {
        let count = element_count(shape)?;
        if count != data.len() {
            return Err(Error::new(
                Code::InvalidArgument,
                format!("a tensor of shape {:?} holds {} elements; the slice has {}", shape, count, data.len()),
            ));
        }
        Ok(unsafe { TensorRef::from_parts(data.as_ptr() as *mut c_void, T::DTYPE, shape.to_vec(), None) })
    }

    /// A 0-d tensor of one value.
    pub fn scalar<T: Element>(value: &'a T) -> TensorRef<'a> {
        unsafe { TensorRef::from_parts(value as *const T as *mut c_void, T::DTYPE, Vec::new(), None) }
    }

    /// A tensor over |data| as described. The caller guarantees that |data| holds the tensor's
    /// elements for 'a and nobody writes them meanwhile.
    pub(crate) unsafe fn from_parts(
        data: *mut c_void,
        dtype: DataType,
        mut shape: Vec<i64>,
        mut strides: Option<Vec<i64>>,
    ) -> TensorRef<'a> {
        let dl_tensor = sys::DLTensor {
            data,
            device: sys::DLDevice { device_type: sys::kDLCPU, device_id: 0 },
            ndim: shape.len() as i32,
            dtype: dtype.to_dlpack(),
            shape: shape.as_mut_ptr(),
            strides: strides.as_mut().map_or(ptr::null_mut(), |s| s.as_mut_ptr()),
            byte_offset: 0,
        };
        TensorRef {
            managed: sys::DLManagedTensor { dl_tensor, manager_ctx: ptr::null_mut(), deleter: None },
            shape,
            strides,
            _borrow: PhantomData,
        }
    }

    pub fn shape(&self) -> &[i64] {
        &self.shape
    }

    pub fn dtype(&self) -> DataType {
        DataType::from_dlpack(self.managed.dl_tensor.dtype)
    }

    /// The address of the first element: the caller's own memory.
    pub fn data_ptr(&self) -> *const c_void {
        self.managed.dl_tensor.data
    }

    /// The managed tensor rxt's calls borrow (they never write nor delete it; rxt.h declares the
    /// pointers mutable only because DLPack's consumers may take ownership).
    pub fn as_dlpack(&self) -> *mut sys::DLManagedTensor {
        &self.managed as *const sys::DLManagedTensor as *mut sys::DLManagedTensor
    }
}

/// The C array of managed tensors a call takes.
pub(crate) fn dlpack_array(tensors: &[TensorRef<'_>]) -> Vec<*mut sys::DLManagedTensor> {
    tensors.iter().map(TensorRef::as_dlpack).collect()
}

impl std::fmt::Debug for TensorRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "TensorRef({}, {:?}{})",
            self.dtype(),
            self.shape,
            if self.strides.is_some() { ", strided" } else { "" }
        )
    }
}
