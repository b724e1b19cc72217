//! Strings and paths across the boundary: Rust text to NUL-terminated C strings (a NUL byte
//! inside is an InvalidArgument error, not a truncation), and rxt's strings back to Rust.
use std::ffi::{CStr, CString};
use std::os::raw::c_char;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::ptr;

use rxt_sys as sys;

use crate::error::{Code, Error, Result};

/// |text| as a C string; |what| names it in the error.
pub(crate) fn c_string(text: &str, what: &str) -> Result<CString> {
    CString::new(text)
        .map_err(|_| Error::new(Code::InvalidArgument, format!("{} contains a NUL byte: {:?}", what, text)))
}

/// An optional string: None stays NULL.
pub(crate) fn c_string_or_null(text: Option<&str>, what: &str) -> Result<Option<CString>> {
    text.map(|t| c_string(t, what)).transpose()
}

/// The pointer of an optional C string (NULL for None).
pub(crate) fn ptr_or_null(text: &Option<CString>) -> *const c_char {
    text.as_ref().map_or(ptr::null(), |t| t.as_ptr())
}

/// A path's bytes as a C string (paths are bytes on Unix, not necessarily UTF-8).
pub(crate) fn c_path(path: &Path) -> Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| Error::new(Code::InvalidArgument, format!("path contains a NUL byte: {}", path.display())))
}

/// A copy of a string rxt lends (valid during the call that gave it).
pub(crate) unsafe fn borrowed(text: *const c_char) -> String {
    if text.is_null() {
        String::new()
    } else {
        CStr::from_ptr(text).to_string_lossy().into_owned()
    }
}

/// A string rxt returned through a `char**`: copied, then freed with rxt_string_free.
pub(crate) unsafe fn take(text: *mut c_char) -> String {
    let copy = borrowed(text);
    sys::rxt_string_free(text);
    copy
}
