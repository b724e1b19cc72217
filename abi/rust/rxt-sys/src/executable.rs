//! rxt.h: executables, external functions and the virtual machine.
use std::ffi::c_void;
use std::os::raw::{c_char, c_int};

#[cfg(feature = "compiler")]
use crate::rxt_module_t;
use crate::{rxt_context_t, rxt_status_t, DLManagedTensor, DLTensor};

#[repr(C)]
pub struct rxt_executable_t {
    _opaque: [u8; 0],
}

#[repr(C)]
pub struct rxt_vm_t {
    _opaque: [u8; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct rxt_build_options_t {
    pub struct_size: usize,
    pub backend: *const c_char,
    pub opt_level: i32,
    pub libraries: *const c_char,
    pub emit_library: *const c_char,
    pub context: *mut rxt_context_t,
}

/// An external function (`call_extern`), destination-passing style.
pub type rxt_extern_fn_t =
    Option<unsafe extern "C" fn(user_data: *mut c_void, args: *const *mut DLTensor, num_args: c_int) -> rxt_status_t>;

#[cfg(feature = "compiler")]
extern "C" {
    pub fn rxt_executable_build(
        module: *const rxt_module_t,
        backend: *const c_char,
        out_executable: *mut *mut rxt_executable_t,
    ) -> rxt_status_t;
    pub fn rxt_build_options_init(options: *mut rxt_build_options_t);
    pub fn rxt_executable_build_with_options(
        module: *const rxt_module_t,
        options: *const rxt_build_options_t,
        out_executable: *mut *mut rxt_executable_t,
    ) -> rxt_status_t;
}

extern "C" {
    pub fn rxt_executable_save(executable: *const rxt_executable_t, path: *const c_char) -> rxt_status_t;
    pub fn rxt_executable_load(path: *const c_char, out_executable: *mut *mut rxt_executable_t) -> rxt_status_t;
    pub fn rxt_executable_backend(executable: *const rxt_executable_t) -> *const c_char;
    pub fn rxt_executable_retain(executable: *mut rxt_executable_t) -> *mut rxt_executable_t;
    pub fn rxt_executable_release(executable: *mut rxt_executable_t);

    pub fn rxt_extern_register(
        name: *const c_char,
        function: rxt_extern_fn_t,
        user_data: *mut c_void,
        replace: c_int,
    ) -> rxt_status_t;
    pub fn rxt_extern_remove(name: *const c_char) -> rxt_status_t;

    pub fn rxt_vm_create(
        executable: *const rxt_executable_t,
        backend: *const c_char,
        out_vm: *mut *mut rxt_vm_t,
    ) -> rxt_status_t;
    pub fn rxt_vm_create_in_context(
        context: *mut rxt_context_t,
        executable: *const rxt_executable_t,
        backend: *const c_char,
        out_vm: *mut *mut rxt_vm_t,
    ) -> rxt_status_t;
    pub fn rxt_vm_retain(vm: *mut rxt_vm_t) -> *mut rxt_vm_t;
    pub fn rxt_vm_release(vm: *mut rxt_vm_t);
    pub fn rxt_vm_invoke(
        vm: *mut rxt_vm_t,
        function: *const c_char,
        inputs: *const *mut DLManagedTensor,
        num_inputs: usize,
        outputs: *mut *mut DLManagedTensor,
        capacity: usize,
        out_num_outputs: *mut usize,
    ) -> rxt_status_t;
    pub fn rxt_vm_set_profiling(vm: *mut rxt_vm_t, on: c_int) -> rxt_status_t;
    pub fn rxt_vm_profile(vm: *const rxt_vm_t, out_text: *mut *mut c_char) -> rxt_status_t;
}
