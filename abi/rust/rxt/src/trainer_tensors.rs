//! A trainer's tensors by kind and index or name: counting, naming, reading (owned snapshots)
//! and writing (copied from a borrowed tensor), and initialization.
use std::ptr;

use rxt_sys as sys;

use crate::error::{check, Result};
use crate::tensor::Tensor;
use crate::tensor_ref::TensorRef;
use crate::text::{c_string, take};
use crate::trainer::Trainer;

/// The tensors a trainer has, by kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TensorKind {
    /// What predict, update and evaluate take first.
    Inputs,
    /// What update and evaluate take after the inputs.
    Targets,
    /// Trained parameters, named as in @backbone.
    Params,
    /// Model states (batch-norm statistics...).
    States,
    /// "lr", "weight_decay", "step", then per-parameter buffers ("exp_avg.0"...).
    OptimizerState,
}

impl TensorKind {
    fn raw(self) -> sys::rxt_trainer_tensors_t {
        match self {
            TensorKind::Inputs => sys::RXT_TRAINER_INPUTS,
            TensorKind::Targets => sys::RXT_TRAINER_TARGETS,
            TensorKind::Params => sys::RXT_TRAINER_PARAMS,
            TensorKind::States => sys::RXT_TRAINER_STATES,
            TensorKind::OptimizerState => sys::RXT_TRAINER_OPTIMIZER_STATE,
        }
    }
}

/// A snapshot rxt handed over through |out|.
fn adopt(out: *mut sys::DLManagedTensor) -> Tensor {
    unsafe { Tensor::from_raw(out) }.expect("rxt returned a NULL tensor on success")
}

impl Trainer {
    /// How many tensors of |kind| there are.
    pub fn count(&self, kind: TensorKind) -> Result<usize> {
        let mut count = 0;
        check(unsafe { sys::rxt_trainer_count(self.raw(), kind.raw(), &mut count) })?;
        Ok(count)
    }

    /// How many tensors predict returns.
    pub fn num_outputs(&self) -> Result<usize> {
        let mut count = 0;
        check(unsafe { sys::rxt_trainer_num_outputs(self.raw(), &mut count) })?;
        Ok(count)
    }

    /// The name of tensor |index| of |kind|; OutOfRange past the end.
    pub fn name(&self, kind: TensorKind, index: usize) -> Result<String> {
        let mut name = ptr::null_mut();
        check(unsafe { sys::rxt_trainer_name(self.raw(), kind.raw(), index, &mut name) })?;
        Ok(unsafe { take(name) })
    }

    /// Every name of |kind|, in order.
    pub fn names(&self, kind: TensorKind) -> Result<Vec<String>> {
        (0..self.count(kind)?).map(|i| self.name(kind, i)).collect()
    }

    /// The index of |name|; NotFound listing the names.
    pub fn find(&self, kind: TensorKind, name: &str) -> Result<usize> {
        let name = c_string(name, "tensor name")?;
        let mut index = 0;
        check(unsafe { sys::rxt_trainer_find(self.raw(), kind.raw(), name.as_ptr(), &mut index) })?;
        Ok(index)
    }

    /// A snapshot of parameter, state or optimizer-state tensor |index| (later updates do not
    /// change it).
    pub fn get(&self, kind: TensorKind, index: usize) -> Result<Tensor> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::rxt_trainer_get(self.raw(), kind.raw(), index, &mut out) })?;
        Ok(adopt(out))
    }

    pub fn get_by_name(&self, kind: TensorKind, name: &str) -> Result<Tensor> {
        let name = c_string(name, "tensor name")?;
        let mut out = ptr::null_mut();
        check(unsafe { sys::rxt_trainer_get_by_name(self.raw(), kind.raw(), name.as_ptr(), &mut out) })?;
        Ok(adopt(out))
    }

    /// Sets parameter or state |index| from |tensor| (copied). InvalidArgument naming it and
    /// both types for a wrong dtype or shape, or for the optimizer state; OutOfRange for a bad
    /// index.
    pub fn set(&mut self, kind: TensorKind, index: usize, tensor: &TensorRef<'_>) -> Result<()> {
        check(unsafe { sys::rxt_trainer_set(self.raw(), kind.raw(), index, tensor.as_dlpack()) })
    }

    pub fn set_by_name(&mut self, kind: TensorKind, name: &str, tensor: &TensorRef<'_>) -> Result<()> {
        let name = c_string(name, "tensor name")?;
        check(unsafe { sys::rxt_trainer_set_by_name(self.raw(), kind.raw(), name.as_ptr(), tensor.as_dlpack()) })
    }

    /// Xavier-uniform weights and zero biases from |seed| (the same values on every machine).
    pub fn init_xavier_uniform(&mut self, seed: u64) -> Result<()> {
        check(unsafe { sys::rxt_trainer_init_xavier_uniform(self.raw(), seed) })
    }

    /// Zeros for Params or States; for OptimizerState, its initial state and step 0.
    pub fn init_zero(&mut self, kind: TensorKind) -> Result<()> {
        check(unsafe { sys::rxt_trainer_init_zero(self.raw(), kind.raw()) })
    }
}
