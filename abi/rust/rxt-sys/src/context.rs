//! rxt.h: contexts (plugins, kernel threads, log and allocator of what is made in them).
use std::ffi::c_void;
use std::os::raw::{c_char, c_int};

#[cfg(feature = "compiler")]
use crate::rxt_plugin_visitor_t;
use crate::rxt_status_t;

#[repr(C)]
pub struct rxt_context_t {
    _opaque: [u8; 0],
}

/// `rxt_log_level_t` (a C enum).
pub type rxt_log_level_t = c_int;
pub const RXT_LOG_DEBUG: rxt_log_level_t = 0;
pub const RXT_LOG_INFO: rxt_log_level_t = 1;
pub const RXT_LOG_WARNING: rxt_log_level_t = 2;
pub const RXT_LOG_ERROR: rxt_log_level_t = 3;

pub type rxt_log_fn_t = Option<
    unsafe extern "C" fn(user_data: *mut c_void, level: rxt_log_level_t, source: *const c_char, message: *const c_char),
>;
pub type rxt_allocate_fn_t =
    Option<unsafe extern "C" fn(user_data: *mut c_void, size: usize, alignment: usize) -> *mut c_void>;
pub type rxt_deallocate_fn_t =
    Option<unsafe extern "C" fn(user_data: *mut c_void, pointer: *mut c_void, size: usize, alignment: usize)>;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct rxt_context_options_t {
    pub struct_size: usize,
    pub num_threads: i32,
    pub search_path: i32,
    pub plugins: *const *const c_char,
    pub num_plugins: usize,
    pub log: rxt_log_fn_t,
    pub log_user_data: *mut c_void,
    pub allocate: rxt_allocate_fn_t,
    pub deallocate: rxt_deallocate_fn_t,
    pub allocator_user_data: *mut c_void,
}

extern "C" {
    pub fn rxt_context_options_init(options: *mut rxt_context_options_t);
    pub fn rxt_context_create(
        options: *const rxt_context_options_t,
        out_context: *mut *mut rxt_context_t,
    ) -> rxt_status_t;
    pub fn rxt_context_default() -> *mut rxt_context_t;
    pub fn rxt_context_retain(context: *mut rxt_context_t) -> *mut rxt_context_t;
    pub fn rxt_context_release(context: *mut rxt_context_t);
    pub fn rxt_context_load_plugin(context: *mut rxt_context_t, path: *const c_char) -> rxt_status_t;
    pub fn rxt_context_num_threads(context: *const rxt_context_t, out_num_threads: *mut i32) -> rxt_status_t;
    #[cfg(feature = "compiler")]
    pub fn rxt_context_plugins_list(
        context: *const rxt_context_t,
        visit: rxt_plugin_visitor_t,
        user_data: *mut c_void,
    ) -> rxt_status_t;
}
