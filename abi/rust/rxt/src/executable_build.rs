//! Building executables from modules: the compiler (feature `compiler`, librxt.so).
use std::ffi::CString;
use std::path::PathBuf;
use std::ptr;

use rxt_sys as sys;

use crate::context::Context;
use crate::error::{check, Result};
use crate::executable::Executable;
use crate::module::Module;
use crate::options::defaults;
use crate::text::{c_path, c_string_or_null, ptr_or_null};

/// What `Executable::build_with` takes (the options of `rxt build`); None: rxt's default.
#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    /// None: "cpu" if a loaded plugin provides it, else "reference".
    pub backend: Option<String>,
    /// 0: legalize only; 1 and above (default 2): fusion, memory planning.
    pub opt_level: Option<i32>,
    /// Kernel libraries replacing generated kernels ("dnnl"), or "none"; None: the backend's.
    pub libraries: Option<String>,
    /// Also compile the kernels ahead of time into this shared library (backend "cpu").
    pub emit_library: Option<PathBuf>,
    /// Whose plugins build it; None: the default context.
    pub context: Option<Context>,
}

impl Executable {
    /// Compiles every function of |module| for |backend| (None: cpu if loaded, else reference)
    /// with generated kernels only.
    pub fn build(module: &Module, backend: Option<&str>) -> Result<Executable> {
        let backend = c_string_or_null(backend, "backend")?;
        let mut raw = ptr::null_mut();
        check(unsafe { sys::rxt_executable_build(module.raw(), ptr_or_null(&backend), &mut raw) })?;
        Ok(Executable::adopt(raw))
    }

    /// Compiles with |options|.
    pub fn build_with(module: &Module, options: &BuildOptions) -> Result<Executable> {
        let backend = c_string_or_null(options.backend.as_deref(), "backend")?;
        let libraries = c_string_or_null(options.libraries.as_deref(), "libraries")?;
        let emit_library: Option<CString> = options.emit_library.as_deref().map(c_path).transpose()?;
        let mut c = defaults(sys::rxt_build_options_init);
        c.backend = ptr_or_null(&backend);
        if let Some(level) = options.opt_level {
            c.opt_level = level;
        }
        c.libraries = ptr_or_null(&libraries);
        c.emit_library = ptr_or_null(&emit_library);
        c.context = options.context.as_ref().map_or(ptr::null_mut(), Context::raw);
        let mut raw = ptr::null_mut();
        check(unsafe { sys::rxt_executable_build_with_options(module.raw(), &c, &mut raw) })?;
        Ok(Executable::adopt(raw))
    }
}
