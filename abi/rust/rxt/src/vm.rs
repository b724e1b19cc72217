//! The virtual machine: runs an executable's functions on borrowed tensors.
use std::ptr::{self, NonNull};

use rxt_sys as sys;

use crate::context::Context;
use crate::error::{check, Result};
use crate::executable::Executable;
use crate::tensor::{call_with_outputs, Tensor};
use crate::tensor_ref::{dlpack_array, TensorRef};
use crate::text::{c_string, c_string_or_null, ptr_or_null, take};

/// A VM running one executable.
pub struct Vm {
    raw: NonNull<sys::rxt_vm_t>,
    // Kept alive as long as the VM runs its code.
    _executable: Executable,
}

// docs/abi.md, "Running": "a VM runs one call at a time; use one VM per thread". It may move
// to another thread (every function may be called from any thread), so Send; not Sync, and
// every call that runs takes &mut self. Not Clone: a second handle would allow two calls at once.
unsafe impl Send for Vm {}

impl Vm {
    /// A VM with the kernels of |backend| (None: the executable's). Extern functions are
    /// resolved now: a missing one is NotFound.
    pub fn new(executable: &Executable, backend: Option<&str>) -> Result<Vm> {
        Vm::create(None, executable, backend)
    }

    /// A VM in |context|: its plugins, threads and allocator (it keeps the context alive).
    pub fn new_in(context: &Context, executable: &Executable, backend: Option<&str>) -> Result<Vm> {
        Vm::create(Some(context), executable, backend)
    }

    fn create(context: Option<&Context>, executable: &Executable, backend: Option<&str>) -> Result<Vm> {
        let backend = c_string_or_null(backend, "backend")?;
        let mut raw = ptr::null_mut();
        check(unsafe {
            match context {
                Some(context) => {
                    sys::rxt_vm_create_in_context(context.raw(), executable.raw(), ptr_or_null(&backend), &mut raw)
                }
                None => sys::rxt_vm_create(executable.raw(), ptr_or_null(&backend), &mut raw),
            }
        })?;
        let raw = NonNull::new(raw).expect("rxt returned a NULL VM on success");
        Ok(Vm { raw, _executable: executable.clone() })
    }

    /// Calls |function|: one result tensor, or one per field of a returned tuple (nested tuples
    /// flattened). Errors name the function and the argument (wrong count, dtype, shape). A
    /// function returning more than 16 tensors runs twice (the first results do not fit).
    pub fn invoke(&mut self, function: &str, inputs: &[TensorRef<'_>]) -> Result<Vec<Tensor>> {
        let function = c_string(function, "function name")?;
        let inputs = dlpack_array(inputs);
        // rxt.h has no way to ask how many tensors a function returns: room for 16, and a
        // function returning more runs again with room for what it said (call_with_outputs).
        call_with_outputs(16, |outputs, capacity, count| unsafe {
            sys::rxt_vm_invoke(
                self.raw.as_ptr(),
                function.as_ptr(),
                inputs.as_ptr(),
                inputs.len(),
                outputs,
                capacity,
                count,
            )
        })
    }

    /// Starts (resetting it) or stops collecting a profile of kernels and extern functions.
    pub fn set_profiling(&mut self, on: bool) -> Result<()> {
        check(unsafe { sys::rxt_vm_set_profiling(self.raw.as_ptr(), on as i32) })
    }

    /// The profile as a text table.
    pub fn profile(&self) -> Result<String> {
        let mut text = ptr::null_mut();
        check(unsafe { sys::rxt_vm_profile(self.raw.as_ptr(), &mut text) })?;
        Ok(unsafe { take(text) })
    }
}

impl Drop for Vm {
    fn drop(&mut self) {
        unsafe { sys::rxt_vm_release(self.raw.as_ptr()) }
    }
}

impl std::fmt::Debug for Vm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Vm({:p})", self.raw)
    }
}
