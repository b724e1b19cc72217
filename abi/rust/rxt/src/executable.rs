//! Executables: a module's functions compiled for a backend (VM bytecode and kernels), saved to
//! and loaded from .rxtx files. Building one is the compiler's (executable_build.rs).
use std::path::Path;
use std::ptr::{self, NonNull};

use rxt_sys as sys;

use crate::error::{check, Result};
use crate::text::{borrowed, c_path};

/// A compiled module (reference counted: `clone` adds a reference).
pub struct Executable {
    raw: NonNull<sys::rxt_executable_t>,
}

// Never changed after it is made, and shared by VMs on several threads (docs/abi.md, "Running":
// "use one VM per thread (they may share an executable)"); retain/release are atomic.
unsafe impl Send for Executable {}
unsafe impl Sync for Executable {}

impl Executable {
    pub(crate) fn adopt(raw: *mut sys::rxt_executable_t) -> Executable {
        Executable { raw: NonNull::new(raw).expect("rxt returned a NULL executable on success") }
    }

    pub(crate) fn raw(&self) -> *mut sys::rxt_executable_t {
        self.raw.as_ptr()
    }

    /// Reads a .rxtx file: NotFound for a missing one, DataLoss naming a corrupt one.
    pub fn load(path: impl AsRef<Path>) -> Result<Executable> {
        let path = c_path(path.as_ref())?;
        let mut raw = ptr::null_mut();
        check(unsafe { sys::rxt_executable_load(path.as_ptr(), &mut raw) })?;
        Ok(Executable::adopt(raw))
    }

    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = c_path(path.as_ref())?;
        check(unsafe { sys::rxt_executable_save(self.raw(), path.as_ptr()) })
    }

    /// The backend it was built for ("" = any).
    pub fn backend(&self) -> String {
        unsafe { borrowed(sys::rxt_executable_backend(self.raw())) }
    }
}

impl Clone for Executable {
    fn clone(&self) -> Executable {
        Executable::adopt(unsafe { sys::rxt_executable_retain(self.raw()) })
    }
}

impl Drop for Executable {
    fn drop(&mut self) {
        unsafe { sys::rxt_executable_release(self.raw()) }
    }
}

impl std::fmt::Debug for Executable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Executable({:p}, backend {:?})", self.raw, self.backend())
    }
}
