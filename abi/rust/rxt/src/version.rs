//! Versions of the library actually loaded, and the process-wide memory limit.
use std::ffi::CStr;

use rxt_sys as sys;

use crate::error::{check, Result};

/// The ABI version this crate was written against (rxt.h's RXT_ABI_VERSION).
pub const ABI_VERSION: u32 = sys::RXT_ABI_VERSION;

/// "MAJOR.MINOR.PATCH" of the loaded librxt.
pub fn version() -> &'static str {
    // Static storage (rxt.h).
    unsafe { CStr::from_ptr(sys::rxt_version()) }.to_str().unwrap_or("")
}

/// RXT_ABI_VERSION of the loaded librxt; a library of another ABI is not one this crate can call.
pub fn abi_version() -> u32 {
    unsafe { sys::rxt_abi_version() }
}

/// Sets the largest single tensor, arena or file rxt takes on behalf of a file or program (0: the
/// default, RXT_MAX_MEMORY or half the memory). Process-wide.
pub fn set_memory_limit(bytes: i64) -> Result<()> {
    check(unsafe { sys::rxt_set_memory_limit(bytes) })
}

/// The memory limit in effect, in bytes.
pub fn memory_limit() -> i64 {
    unsafe { sys::rxt_memory_limit() }
}
