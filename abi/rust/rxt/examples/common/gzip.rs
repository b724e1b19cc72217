//! Reading gzip files with the system's zlib (std has no inflate, and no crate may be fetched):
//! three functions of zlib.h, declared here. gzread also reads files that are not compressed.
use std::ffi::{c_void, CString};
use std::io;
use std::os::raw::{c_char, c_int, c_uint};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

#[link(name = "z")]
extern "C" {
    fn gzopen(path: *const c_char, mode: *const c_char) -> *mut c_void;
    fn gzread(file: *mut c_void, buf: *mut c_void, len: c_uint) -> c_int;
    fn gzclose(file: *mut c_void) -> c_int;
}

/// An open gzip file, read with `std::io::Read`.
pub struct GzFile {
    file: *mut c_void,
}

impl GzFile {
    pub fn open(path: &Path) -> io::Result<GzFile> {
        let c_path =
            CString::new(path.as_os_str().as_bytes()).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        let file = unsafe { gzopen(c_path.as_ptr(), b"rb\0".as_ptr() as *const c_char) };
        if file.is_null() {
            return Err(io::Error::last_os_error());
        }
        Ok(GzFile { file })
    }
}

impl io::Read for GzFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let len = buf.len().min(c_uint::MAX as usize / 2) as c_uint;
        let read = unsafe { gzread(self.file, buf.as_mut_ptr() as *mut c_void, len) };
        if read < 0 {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "gzread failed: not a valid gzip stream"));
        }
        Ok(read as usize)
    }
}

impl Drop for GzFile {
    fn drop(&mut self) {
        unsafe { gzclose(self.file) };
    }
}
