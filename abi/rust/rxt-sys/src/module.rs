//! rxt.h: modules, their attributes, passes, listings of ops and passes, other formats.
use std::ffi::c_void;
use std::os::raw::{c_char, c_int};

#[cfg(feature = "compiler")]
use crate::{rxt_context_t, rxt_status_t, DLManagedTensor};

#[repr(C)]
pub struct rxt_module_t {
    _opaque: [u8; 0],
}

/// `rxt_attr_kind_t` (a C enum).
pub type rxt_attr_kind_t = c_int;
pub const RXT_ATTR_NONE: rxt_attr_kind_t = 0;
pub const RXT_ATTR_BOOL: rxt_attr_kind_t = 1;
pub const RXT_ATTR_INT: rxt_attr_kind_t = 2;
pub const RXT_ATTR_FLOAT: rxt_attr_kind_t = 3;
pub const RXT_ATTR_STRING: rxt_attr_kind_t = 4;
pub const RXT_ATTR_DTYPE: rxt_attr_kind_t = 5;
pub const RXT_ATTR_TENSOR: rxt_attr_kind_t = 6;
pub const RXT_ATTR_ARRAY: rxt_attr_kind_t = 7;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct rxt_pass_options_t {
    pub struct_size: usize,
    pub opt_level: i32,
    pub verify_each: i32,
    pub disabled: *const *const c_char,
    pub num_disabled: usize,
    pub config_keys: *const *const c_char,
    pub config_values: *const *const c_char,
    pub num_config: usize,
}

/// Called once per listed item; the strings live during the call only. Non-zero stops.
pub type rxt_name_visitor_t =
    Option<unsafe extern "C" fn(user_data: *mut c_void, name: *const c_char, summary: *const c_char) -> c_int>;

#[cfg(feature = "compiler")]
extern "C" {
    pub fn rxt_module_parse(
        text: *const c_char,
        len: usize,
        file_name: *const c_char,
        out_module: *mut *mut rxt_module_t,
    ) -> rxt_status_t;
    pub fn rxt_module_print(module: *const rxt_module_t, out_text: *mut *mut c_char) -> rxt_status_t;
    pub fn rxt_module_verify(module: *const rxt_module_t) -> rxt_status_t;
    pub fn rxt_module_retain(module: *mut rxt_module_t) -> *mut rxt_module_t;
    pub fn rxt_module_release(module: *mut rxt_module_t);
    pub fn rxt_module_function_params(
        module: *const rxt_module_t,
        function: *const c_char,
        visit: Option<
            unsafe extern "C" fn(user_data: *mut c_void, name: *const c_char, struct_info: *const c_char) -> c_int,
        >,
        user_data: *mut c_void,
    ) -> rxt_status_t;
    pub fn rxt_module_function_num_results(
        module: *const rxt_module_t,
        function: *const c_char,
        out_count: *mut usize,
    ) -> rxt_status_t;

    pub fn rxt_module_attr_count(module: *const rxt_module_t, out_count: *mut usize) -> rxt_status_t;
    pub fn rxt_module_attr_name(module: *const rxt_module_t, index: usize, out_name: *mut *mut c_char) -> rxt_status_t;
    pub fn rxt_module_attr_kind(
        module: *const rxt_module_t,
        name: *const c_char,
        out_kind: *mut rxt_attr_kind_t,
    ) -> rxt_status_t;
    pub fn rxt_module_attr_get_int(
        module: *const rxt_module_t,
        name: *const c_char,
        out_value: *mut i64,
    ) -> rxt_status_t;
    pub fn rxt_module_attr_get_float(
        module: *const rxt_module_t,
        name: *const c_char,
        out_value: *mut f64,
    ) -> rxt_status_t;
    pub fn rxt_module_attr_get_string(
        module: *const rxt_module_t,
        name: *const c_char,
        out_value: *mut *mut c_char,
    ) -> rxt_status_t;
    pub fn rxt_module_attr_set_int(module: *mut rxt_module_t, name: *const c_char, value: i64) -> rxt_status_t;
    pub fn rxt_module_attr_set_float(module: *mut rxt_module_t, name: *const c_char, value: f64) -> rxt_status_t;
    pub fn rxt_module_attr_set_string(
        module: *mut rxt_module_t,
        name: *const c_char,
        value: *const c_char,
    ) -> rxt_status_t;

    pub fn rxt_pass_options_init(options: *mut rxt_pass_options_t);
    pub fn rxt_module_run_passes(
        module: *const rxt_module_t,
        names: *const *const c_char,
        count: usize,
        options: *const rxt_pass_options_t,
        out_module: *mut *mut rxt_module_t,
    ) -> rxt_status_t;

    // Training transforms, one call each.
    pub fn rxt_module_append_loss(
        module: *const rxt_module_t,
        function: *const c_char,
        loss: *const c_char,
        loss_options: *const c_char,
        num_backbone_outputs: i32,
        new_function: *const c_char,
        context: *mut rxt_context_t,
        out_module: *mut *mut rxt_module_t,
    ) -> rxt_status_t;
    pub fn rxt_module_gradient(
        module: *const rxt_module_t,
        function: *const c_char,
        require_grads: *const *const c_char,
        num_require_grads: usize,
        target_index: i32,
        context: *mut rxt_context_t,
        out_module: *mut *mut rxt_module_t,
    ) -> rxt_status_t;
    pub fn rxt_module_add_optimizer(
        module: *const rxt_module_t,
        optimizer: *const c_char,
        options: *const c_char,
        function: *const c_char,
        params: *const *const c_char,
        num_params: usize,
        new_function: *const c_char,
        context: *mut rxt_context_t,
        out_module: *mut *mut rxt_module_t,
        out_states: *mut *mut DLManagedTensor,
        capacity: usize,
        out_num_states: *mut usize,
    ) -> rxt_status_t;
    pub fn rxt_module_setup_trainer(
        module: *const rxt_module_t,
        loss: *const c_char,
        loss_options: *const c_char,
        optimizer: *const c_char,
        optimizer_options: *const c_char,
        legalize: i32,
        context: *mut rxt_context_t,
        out_module: *mut *mut rxt_module_t,
    ) -> rxt_status_t;
    pub fn rxt_module_bind_params(
        module: *const rxt_module_t,
        function: *const c_char,
        names: *const *const c_char,
        values: *const *mut DLManagedTensor,
        count: usize,
        out_module: *mut *mut rxt_module_t,
    ) -> rxt_status_t;

    pub fn rxt_ops_list(visit: rxt_name_visitor_t, user_data: *mut c_void) -> rxt_status_t;
    pub fn rxt_passes_list(visit: rxt_name_visitor_t, user_data: *mut c_void) -> rxt_status_t;

    pub fn rxt_module_import(
        context: *mut rxt_context_t,
        path: *const c_char,
        options: *const c_char,
        values_path: *const c_char,
        out_module: *mut *mut rxt_module_t,
    ) -> rxt_status_t;
    pub fn rxt_module_export(
        context: *mut rxt_context_t,
        module: *const rxt_module_t,
        function: *const c_char,
        values_path: *const c_char,
        path: *const c_char,
        options: *const c_char,
    ) -> rxt_status_t;
}
