//! rxt.h: the trainer (a compiled training step with its tensors resident) and trainer files.
use std::os::raw::{c_char, c_int, c_void};

#[cfg(feature = "compiler")]
use crate::rxt_module_t;
use crate::{rxt_context_t, rxt_status_t, DLManagedTensor};

#[repr(C)]
pub struct rxt_trainer_t {
    _opaque: [u8; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct rxt_trainer_options_t {
    pub struct_size: usize,
    pub backend: *const c_char,
    pub loss: *const c_char,
    pub loss_options: *const c_char,
    pub optimizer: *const c_char,
    pub optimizer_options: *const c_char,
    pub opt_level: i32,
    pub libraries: *const c_char,
    pub context: *mut rxt_context_t,
    pub data_parallel: i32,
    pub bucket_bytes: i64,
    pub accumulation: i32,
}

/// `rxt_comm_t`: the processes that train together (a collective plugin's communicator).
#[repr(C)]
pub struct rxt_comm_t {
    _opaque: [u8; 0],
}

/// `rxt_trainer_tensors_t` (a C enum).
pub type rxt_trainer_tensors_t = c_int;
pub const RXT_TRAINER_INPUTS: rxt_trainer_tensors_t = 0;
pub const RXT_TRAINER_TARGETS: rxt_trainer_tensors_t = 1;
pub const RXT_TRAINER_PARAMS: rxt_trainer_tensors_t = 2;
pub const RXT_TRAINER_STATES: rxt_trainer_tensors_t = 3;
pub const RXT_TRAINER_OPTIMIZER_STATE: rxt_trainer_tensors_t = 4;

extern "C" {
    #[cfg(feature = "compiler")]
    pub fn rxt_trainer_options_init(options: *mut rxt_trainer_options_t);
    #[cfg(feature = "compiler")]
    pub fn rxt_trainer_create(
        module: *const rxt_module_t,
        options: *const rxt_trainer_options_t,
        out_trainer: *mut *mut rxt_trainer_t,
    ) -> rxt_status_t;
    pub fn rxt_trainer_retain(trainer: *mut rxt_trainer_t) -> *mut rxt_trainer_t;
    pub fn rxt_trainer_release(trainer: *mut rxt_trainer_t);

    pub fn rxt_trainer_count(
        trainer: *const rxt_trainer_t,
        kind: rxt_trainer_tensors_t,
        out_count: *mut usize,
    ) -> rxt_status_t;
    pub fn rxt_trainer_name(
        trainer: *const rxt_trainer_t,
        kind: rxt_trainer_tensors_t,
        index: usize,
        out_name: *mut *mut c_char,
    ) -> rxt_status_t;
    pub fn rxt_trainer_find(
        trainer: *const rxt_trainer_t,
        kind: rxt_trainer_tensors_t,
        name: *const c_char,
        out_index: *mut usize,
    ) -> rxt_status_t;
    pub fn rxt_trainer_num_outputs(trainer: *const rxt_trainer_t, out_count: *mut usize) -> rxt_status_t;

    pub fn rxt_trainer_get(
        trainer: *const rxt_trainer_t,
        kind: rxt_trainer_tensors_t,
        index: usize,
        out_tensor: *mut *mut DLManagedTensor,
    ) -> rxt_status_t;
    pub fn rxt_trainer_set(
        trainer: *mut rxt_trainer_t,
        kind: rxt_trainer_tensors_t,
        index: usize,
        tensor: *const DLManagedTensor,
    ) -> rxt_status_t;
    pub fn rxt_trainer_get_by_name(
        trainer: *const rxt_trainer_t,
        kind: rxt_trainer_tensors_t,
        name: *const c_char,
        out_tensor: *mut *mut DLManagedTensor,
    ) -> rxt_status_t;
    pub fn rxt_trainer_set_by_name(
        trainer: *mut rxt_trainer_t,
        kind: rxt_trainer_tensors_t,
        name: *const c_char,
        tensor: *const DLManagedTensor,
    ) -> rxt_status_t;

    pub fn rxt_trainer_init_xavier_uniform(trainer: *mut rxt_trainer_t, seed: u64) -> rxt_status_t;
    pub fn rxt_trainer_init_zero(trainer: *mut rxt_trainer_t, kind: rxt_trainer_tensors_t) -> rxt_status_t;

    pub fn rxt_trainer_predict(
        trainer: *mut rxt_trainer_t,
        inputs: *const *mut DLManagedTensor,
        num_inputs: usize,
        outputs: *mut *mut DLManagedTensor,
        capacity: usize,
        out_num_outputs: *mut usize,
    ) -> rxt_status_t;
    pub fn rxt_trainer_update(
        trainer: *mut rxt_trainer_t,
        inputs: *const *mut DLManagedTensor,
        num_inputs: usize,
        targets: *const *mut DLManagedTensor,
        num_targets: usize,
        out_loss: *mut f64,
    ) -> rxt_status_t;
    pub fn rxt_trainer_evaluate(
        trainer: *mut rxt_trainer_t,
        inputs: *const *mut DLManagedTensor,
        num_inputs: usize,
        targets: *const *mut DLManagedTensor,
        num_targets: usize,
        out_loss: *mut f64,
    ) -> rxt_status_t;
    pub fn rxt_trainer_step(trainer: *const rxt_trainer_t, out_step: *mut i64) -> rxt_status_t;

    pub fn rxt_trainer_learning_rate(trainer: *const rxt_trainer_t, out_lr: *mut f64) -> rxt_status_t;
    pub fn rxt_trainer_set_learning_rate(trainer: *mut rxt_trainer_t, lr: f64) -> rxt_status_t;
    pub fn rxt_trainer_set_schedule(trainer: *mut rxt_trainer_t, schedule: *const c_char, base_lr: f64)
        -> rxt_status_t;

    pub fn rxt_trainer_save_checkpoint(trainer: *const rxt_trainer_t, path: *const c_char) -> rxt_status_t;
    pub fn rxt_trainer_load_checkpoint(trainer: *mut rxt_trainer_t, path: *const c_char) -> rxt_status_t;

    pub fn rxt_trainer_save(trainer: *const rxt_trainer_t, path: *const c_char) -> rxt_status_t;
    #[cfg(feature = "compiler")]
    pub fn rxt_trainer_save_for_target(
        trainer: *const rxt_trainer_t,
        path: *const c_char,
        target: *const c_char,
        cpu: *const c_char,
        features: *const c_char,
    ) -> rxt_status_t;
    pub fn rxt_trainer_load(
        path: *const c_char,
        context: *mut rxt_context_t,
        out_trainer: *mut *mut rxt_trainer_t,
    ) -> rxt_status_t;

    pub fn rxt_trainer_profile_step(
        trainer: *mut rxt_trainer_t,
        inputs: *const *mut DLManagedTensor,
        num_inputs: usize,
        targets: *const *mut DLManagedTensor,
        num_targets: usize,
        out_text: *mut *mut c_char,
    ) -> rxt_status_t;

    pub fn rxt_trainer_accumulate(
        trainer: *mut rxt_trainer_t,
        inputs: *const *mut DLManagedTensor,
        num_inputs: usize,
        targets: *const *mut DLManagedTensor,
        num_targets: usize,
        out_loss: *mut f64,
    ) -> rxt_status_t;
    pub fn rxt_trainer_apply_accumulated(trainer: *mut rxt_trainer_t, out_loss: *mut f64) -> rxt_status_t;

    pub fn rxt_comm_create(
        context: *mut rxt_context_t,
        collective: *const c_char,
        options: *const c_char,
        external: *mut c_void,
        out_comm: *mut *mut rxt_comm_t,
    ) -> rxt_status_t;
    pub fn rxt_comm_retain(comm: *mut rxt_comm_t) -> *mut rxt_comm_t;
    pub fn rxt_comm_release(comm: *mut rxt_comm_t);
    pub fn rxt_comm_rank(comm: *const rxt_comm_t, out_rank: *mut i32) -> rxt_status_t;
    pub fn rxt_comm_size(comm: *const rxt_comm_t, out_size: *mut i32) -> rxt_status_t;
    pub fn rxt_trainer_set_comm(trainer: *mut rxt_trainer_t, comm: *mut rxt_comm_t) -> rxt_status_t;
}
