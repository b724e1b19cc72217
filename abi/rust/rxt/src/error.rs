//! Errors: a failed rxt call's status becomes an `Error` carrying rxt's code and message (which
//! names the file:line:col, the function and argument, the plugin...). The binding's own checks
//! (a slice that does not fill its shape, a string with a NUL byte) give the same type.
use std::ffi::CStr;
use std::fmt;
use std::os::raw::c_int;

use rxt_sys as sys;

/// rxt's canonical error codes (`rxt_code_t`, the same numbers); docs/abi.md says which
/// function gives which.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Code {
    Cancelled = 1,
    /// Also any code this binding does not know (enumerations only gain values).
    Unknown = 2,
    InvalidArgument = 3,
    NotFound = 5,
    AlreadyExists = 6,
    ResourceExhausted = 8,
    FailedPrecondition = 9,
    OutOfRange = 11,
    Unimplemented = 12,
    Internal = 13,
    DataLoss = 15,
}

impl Code {
    /// The code of a raw `rxt_code_t` (RXT_OK is not an error: it maps to `Unknown`).
    pub fn from_raw(code: c_int) -> Code {
        match code {
            sys::RXT_CANCELLED => Code::Cancelled,
            sys::RXT_INVALID_ARGUMENT => Code::InvalidArgument,
            sys::RXT_NOT_FOUND => Code::NotFound,
            sys::RXT_ALREADY_EXISTS => Code::AlreadyExists,
            sys::RXT_RESOURCE_EXHAUSTED => Code::ResourceExhausted,
            sys::RXT_FAILED_PRECONDITION => Code::FailedPrecondition,
            sys::RXT_OUT_OF_RANGE => Code::OutOfRange,
            sys::RXT_UNIMPLEMENTED => Code::Unimplemented,
            sys::RXT_INTERNAL => Code::Internal,
            sys::RXT_DATA_LOSS => Code::DataLoss,
            _ => Code::Unknown,
        }
    }

    pub fn raw(self) -> c_int {
        self as c_int
    }

    /// rxt's name of the code: "invalid argument", "not found"...
    pub fn name(self) -> &'static str {
        // rxt_code_name returns static strings.
        let name = unsafe { CStr::from_ptr(sys::rxt_code_name(self.raw())) };
        name.to_str().unwrap_or("unknown code")
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A failed call: rxt's code and message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub code: Code,
    pub message: String,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn new(code: Code, message: impl Into<String>) -> Error {
        Error { code, message: message.into() }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {}

/// Ok for a NULL status; otherwise the status as an Error (and the status freed).
pub(crate) fn check(status: sys::rxt_status_t) -> Result<()> {
    if status.is_null() {
        return Ok(());
    }
    // The message lives until rxt_status_free: copied first.
    let (code, message) = unsafe {
        let message = CStr::from_ptr(sys::rxt_status_message(status)).to_string_lossy().into_owned();
        (sys::rxt_status_code(status), message)
    };
    unsafe { sys::rxt_status_free(status) };
    Err(Error { code: Code::from_raw(code), message })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_with_rxts_names() {
        let all = [
            Code::Cancelled,
            Code::Unknown,
            Code::InvalidArgument,
            Code::NotFound,
            Code::AlreadyExists,
            Code::ResourceExhausted,
            Code::FailedPrecondition,
            Code::OutOfRange,
            Code::Unimplemented,
            Code::Internal,
            Code::DataLoss,
        ];
        for code in all {
            assert_eq!(Code::from_raw(code.raw()), code);
        }
        assert_eq!(Code::InvalidArgument.name(), "invalid argument");
        assert_eq!(Code::NotFound.to_string(), "not found");
        assert_eq!(Code::from_raw(99), Code::Unknown);
    }

    #[test]
    fn a_status_becomes_an_error_with_its_code_and_message() {
        let status = unsafe { sys::rxt_status_create(sys::RXT_DATA_LOSS, b"x.rxtt: truncated\0".as_ptr() as *const _) };
        let error = check(status).unwrap_err();
        assert_eq!(error, Error::new(Code::DataLoss, "x.rxtt: truncated"));
        assert_eq!(error.to_string(), "data loss: x.rxtt: truncated");
        assert_eq!(check(std::ptr::null_mut()), Ok(()));
    }
}
