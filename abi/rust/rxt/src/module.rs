//! IR modules: parsed from the text form (.rxt), printed, verified, their attributes and passes.
use std::ffi::c_void;
use std::fmt;
use std::os::raw::{c_char, c_int};
use std::path::Path;
use std::ptr::{self, NonNull};

use rxt_sys as sys;

use crate::error::{check, Code, Error, Result};
use crate::text::{borrowed, c_string, take};

/// What a module attribute holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrKind {
    None,
    Bool,
    Int,
    Float,
    String,
    DType,
    Tensor,
    Array,
    /// A kind this crate does not know (enumerations only gain values).
    Other(i32),
}

/// An IR module (one reference to it; dropped, the reference is released).
///
/// Not `Clone`: a second handle to the same module would let one thread change its attributes
/// while another reads it, which docs/abi.md forbids. Setters take `&mut self` instead.
pub struct Module {
    raw: NonNull<sys::rxt_module_t>,
}

// docs/abi.md, "Thread safety": "Every function may be called from any thread. Reading one
// object from several threads at once is safe (print, verify, get attributes, run passes on
// it); changing it (rxt_module_attr_set_*) while another thread uses it is not" - which &mut
// self on the setters rules out.
unsafe impl Send for Module {}
unsafe impl Sync for Module {}

impl Module {
    pub(crate) fn adopt(raw: *mut sys::rxt_module_t) -> Module {
        Module { raw: NonNull::new(raw).expect("rxt returned a NULL module on success") }
    }

    pub(crate) fn raw(&self) -> *mut sys::rxt_module_t {
        self.raw.as_ptr()
    }

    /// Parses the text form; |file_name| names it in diagnostics ("mlp.rxt:3:14: error: ...").
    pub fn parse(text: &str, file_name: &str) -> Result<Module> {
        let file_name = c_string(file_name, "file name")?;
        let mut raw = ptr::null_mut();
        check(unsafe {
            sys::rxt_module_parse(text.as_ptr() as *const c_char, text.len(), file_name.as_ptr(), &mut raw)
        })?;
        Ok(Module::adopt(raw))
    }

    /// Parses the .rxt file at |path|. A file that cannot be read is NotFound (or Unknown for
    /// other I/O errors), naming it.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Module> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| {
            let code = if e.kind() == std::io::ErrorKind::NotFound { Code::NotFound } else { Code::Unknown };
            Error::new(code, format!("{}: {}", path.display(), e))
        })?;
        Module::parse(&text, &path.to_string_lossy())
    }

    /// The text form.
    pub fn print(&self) -> Result<String> {
        let mut text = ptr::null_mut();
        check(unsafe { sys::rxt_module_print(self.raw(), &mut text) })?;
        Ok(unsafe { take(text) })
    }

    /// Ok if the module is well formed; otherwise the error lists every diagnostic.
    pub fn verify(&self) -> Result<()> {
        check(unsafe { sys::rxt_module_verify(self.raw()) })
    }

    /// The parameters of |function|: (name, struct info text), in order.
    pub fn function_params(&self, function: &str) -> Result<Vec<(String, String)>> {
        unsafe extern "C" fn visit(user_data: *mut c_void, name: *const c_char, info: *const c_char) -> c_int {
            let params = &mut *(user_data as *mut Vec<(String, String)>);
            let param = (borrowed(name), borrowed(info));
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| params.push(param))).map_or(1, |_| 0)
        }
        let function = c_string(function, "function name")?;
        let mut params: Vec<(String, String)> = Vec::new();
        let user_data = &mut params as *mut Vec<(String, String)> as *mut c_void;
        check(unsafe { sys::rxt_module_function_params(self.raw(), function.as_ptr(), Some(visit), user_data) })?;
        Ok(params)
    }

    /// How many results |function| returns (a tuple's fields, else 1).
    pub fn function_num_results(&self, function: &str) -> Result<usize> {
        let function = c_string(function, "function name")?;
        let mut count = 0;
        check(unsafe { sys::rxt_module_function_num_results(self.raw(), function.as_ptr(), &mut count) })?;
        Ok(count)
    }

    /// Runs passes by name (with options, as `rxt show --passes` takes them) on a copy.
    pub fn run_passes(&self, names: &[&str]) -> Result<Module> {
        let names = names.iter().map(|n| c_string(n, "pass name")).collect::<Result<Vec<_>>>()?;
        let pointers: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
        let mut raw = ptr::null_mut();
        check(unsafe {
            sys::rxt_module_run_passes(self.raw(), pointers.as_ptr(), pointers.len(), ptr::null(), &mut raw)
        })?;
        Ok(Module::adopt(raw))
    }

    /// The attributes' names, in module order.
    pub fn attr_names(&self) -> Result<Vec<String>> {
        let mut count = 0;
        check(unsafe { sys::rxt_module_attr_count(self.raw(), &mut count) })?;
        (0..count)
            .map(|index| {
                let mut name = ptr::null_mut();
                check(unsafe { sys::rxt_module_attr_name(self.raw(), index, &mut name) })?;
                Ok(unsafe { take(name) })
            })
            .collect()
    }

    /// NotFound if there is no attribute |name|.
    pub fn attr_kind(&self, name: &str) -> Result<AttrKind> {
        let name = c_string(name, "attribute name")?;
        let mut kind = 0;
        check(unsafe { sys::rxt_module_attr_kind(self.raw(), name.as_ptr(), &mut kind) })?;
        Ok(match kind {
            sys::RXT_ATTR_NONE => AttrKind::None,
            sys::RXT_ATTR_BOOL => AttrKind::Bool,
            sys::RXT_ATTR_INT => AttrKind::Int,
            sys::RXT_ATTR_FLOAT => AttrKind::Float,
            sys::RXT_ATTR_STRING => AttrKind::String,
            sys::RXT_ATTR_DTYPE => AttrKind::DType,
            sys::RXT_ATTR_TENSOR => AttrKind::Tensor,
            sys::RXT_ATTR_ARRAY => AttrKind::Array,
            other => AttrKind::Other(other),
        })
    }

    /// NotFound if absent, InvalidArgument if it holds another kind.
    pub fn attr_int(&self, name: &str) -> Result<i64> {
        let name = c_string(name, "attribute name")?;
        let mut value = 0;
        check(unsafe { sys::rxt_module_attr_get_int(self.raw(), name.as_ptr(), &mut value) })?;
        Ok(value)
    }

    pub fn attr_float(&self, name: &str) -> Result<f64> {
        let name = c_string(name, "attribute name")?;
        let mut value = 0.0;
        check(unsafe { sys::rxt_module_attr_get_float(self.raw(), name.as_ptr(), &mut value) })?;
        Ok(value)
    }

    pub fn attr_string(&self, name: &str) -> Result<String> {
        let name = c_string(name, "attribute name")?;
        let mut value = ptr::null_mut();
        check(unsafe { sys::rxt_module_attr_get_string(self.raw(), name.as_ptr(), &mut value) })?;
        Ok(unsafe { take(value) })
    }

    /// Adds or replaces attribute |name|.
    pub fn set_attr_int(&mut self, name: &str, value: i64) -> Result<()> {
        let name = c_string(name, "attribute name")?;
        check(unsafe { sys::rxt_module_attr_set_int(self.raw(), name.as_ptr(), value) })
    }

    pub fn set_attr_float(&mut self, name: &str, value: f64) -> Result<()> {
        let name = c_string(name, "attribute name")?;
        check(unsafe { sys::rxt_module_attr_set_float(self.raw(), name.as_ptr(), value) })
    }

    pub fn set_attr_string(&mut self, name: &str, value: &str) -> Result<()> {
        let name = c_string(name, "attribute name")?;
        let value = c_string(value, "attribute value")?;
        check(unsafe { sys::rxt_module_attr_set_string(self.raw(), name.as_ptr(), value.as_ptr()) })
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        unsafe { sys::rxt_module_release(self.raw()) }
    }
}

/// The text form (`print`); a module that cannot be printed gives fmt::Error.
impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.print().map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Module({:p})", self.raw)
    }
}
