//! rxt.h: versions, statuses, the memory limit and strings.
use std::os::raw::{c_char, c_int};

pub const RXT_VERSION_MAJOR: u32 = 0;
pub const RXT_VERSION_MINOR: u32 = 1;
pub const RXT_VERSION_PATCH: u32 = 0;
/// The ABI version these declarations match; compare with `rxt_abi_version()`.
pub const RXT_ABI_VERSION: u32 = 2;

/// `rxt_code_t`: the canonical error codes (a C enum: int-sized).
pub type rxt_code_t = c_int;
pub const RXT_OK: rxt_code_t = 0;
pub const RXT_CANCELLED: rxt_code_t = 1;
pub const RXT_UNKNOWN: rxt_code_t = 2;
pub const RXT_INVALID_ARGUMENT: rxt_code_t = 3;
pub const RXT_NOT_FOUND: rxt_code_t = 5;
pub const RXT_ALREADY_EXISTS: rxt_code_t = 6;
pub const RXT_RESOURCE_EXHAUSTED: rxt_code_t = 8;
pub const RXT_FAILED_PRECONDITION: rxt_code_t = 9;
pub const RXT_OUT_OF_RANGE: rxt_code_t = 11;
pub const RXT_UNIMPLEMENTED: rxt_code_t = 12;
pub const RXT_INTERNAL: rxt_code_t = 13;
pub const RXT_DATA_LOSS: rxt_code_t = 15;

#[repr(C)]
pub struct rxt_status_s {
    _opaque: [u8; 0],
}
/// NULL == OK; otherwise owned by the caller, freed with `rxt_status_free`.
pub type rxt_status_t = *mut rxt_status_s;

extern "C" {
    pub fn rxt_version() -> *const c_char;
    pub fn rxt_abi_version() -> u32;

    pub fn rxt_status_code(status: rxt_status_t) -> rxt_code_t;
    pub fn rxt_status_message(status: rxt_status_t) -> *const c_char;
    pub fn rxt_status_free(status: rxt_status_t);
    pub fn rxt_status_create(code: rxt_code_t, message: *const c_char) -> rxt_status_t;
    pub fn rxt_code_name(code: rxt_code_t) -> *const c_char;

    pub fn rxt_set_memory_limit(bytes: i64) -> rxt_status_t;
    pub fn rxt_memory_limit() -> i64;

    pub fn rxt_string_free(text: *mut c_char);
}
