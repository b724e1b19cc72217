//! rxt.h: plugins (loading into the process-wide host, listing).
use std::ffi::c_void;
use std::os::raw::{c_char, c_int};

#[cfg(feature = "compiler")]
use crate::rxt_name_visitor_t;
use crate::rxt_status_t;

/// `rxt_plugin_item_kind_t` (a C enum).
pub type rxt_plugin_item_kind_t = c_int;
pub const RXT_PLUGIN_OPTIMIZER: rxt_plugin_item_kind_t = 0;
pub const RXT_PLUGIN_LOSS: rxt_plugin_item_kind_t = 1;
pub const RXT_PLUGIN_GRADIENT: rxt_plugin_item_kind_t = 2;
pub const RXT_PLUGIN_BACKEND: rxt_plugin_item_kind_t = 3;

/// Passed out of rxt: read a field only if `struct_size` covers it.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct rxt_plugin_info_t {
    pub struct_size: usize,
    pub name: *const c_char,
    pub version: *const c_char,
    pub path: *const c_char,
    pub abi_version: u32,
    pub num_optimizers: usize,
    pub num_losses: usize,
    pub num_gradients: usize,
    pub num_backends: usize,
}

/// `info` and its strings live during the call only; non-zero stops the listing.
pub type rxt_plugin_visitor_t =
    Option<unsafe extern "C" fn(user_data: *mut c_void, info: *const rxt_plugin_info_t) -> c_int>;

extern "C" {
    pub fn rxt_plugin_load(path: *const c_char) -> rxt_status_t;
}

#[cfg(feature = "compiler")]
extern "C" {
    pub fn rxt_plugins_load_search_path() -> rxt_status_t;
    pub fn rxt_plugins_list(visit: rxt_plugin_visitor_t, user_data: *mut c_void) -> rxt_status_t;
    pub fn rxt_plugin_items_list(
        kind: rxt_plugin_item_kind_t,
        visit: rxt_name_visitor_t,
        user_data: *mut c_void,
    ) -> rxt_status_t;
}
