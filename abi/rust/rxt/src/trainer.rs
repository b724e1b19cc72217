//! The trainer: a compiled training step with its parameters, states and optimizer state
//! resident; loaded from a trainer file (.rxtt) here, made from a backbone module by the
//! compiler (trainer_build.rs). Its tensors by kind are in trainer_tensors.rs.
use std::path::Path;
use std::ptr::{self, NonNull};

use rxt_sys as sys;

use crate::context::Context;
use crate::error::{check, Result};
use crate::tensor::{call_with_outputs, Tensor};
use crate::tensor_ref::{dlpack_array, TensorRef};
use crate::text::{c_path, c_string, take};

/// A trainer.
pub struct Trainer {
    raw: NonNull<sys::rxt_trainer_t>,
}

// docs/abi.md, "Training": "one call at a time per trainer" (rxt.h: "Not thread-safe"). Every
// function may be called from any thread, so a trainer may move between threads: Send. Not
// Sync, so even its reading calls (&self) never run on two threads at once; not Clone, so no
// second handle can either.
unsafe impl Send for Trainer {}

impl Trainer {
    /// Goes on from the trainer file at |path|, bit for bit, with its kernels compiled ahead of
    /// time (no backend plugin, no compiler); extern functions from |context|'s plugins (None:
    /// the default context). NotFound for a missing file, DataLoss for a malformed one.
    pub fn load(path: impl AsRef<Path>, context: Option<&Context>) -> Result<Trainer> {
        let path = c_path(path.as_ref())?;
        let context = context.map_or(ptr::null_mut(), Context::raw);
        let mut raw = ptr::null_mut();
        check(unsafe { sys::rxt_trainer_load(path.as_ptr(), context, &mut raw) })?;
        Ok(Trainer::adopt(raw))
    }

    /// Writes the whole trainer (program, kernels compiled ahead of time, values, step count,
    /// schedule) to one file, atomically.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = c_path(path.as_ref())?;
        check(unsafe { sys::rxt_trainer_save(self.raw(), path.as_ptr()) })
    }

    pub(crate) fn adopt(raw: *mut sys::rxt_trainer_t) -> Trainer {
        Trainer { raw: NonNull::new(raw).expect("rxt returned a NULL trainer on success") }
    }

    pub(crate) fn raw(&self) -> *mut sys::rxt_trainer_t {
        self.raw.as_ptr()
    }

    /// One training step; returns the loss before it. Wrong counts, dtypes or shapes are
    /// InvalidArgument naming the function and argument ("train_step: argument 0 (%x): ..."),
    /// and nothing changes.
    pub fn update(&mut self, inputs: &[TensorRef<'_>], targets: &[TensorRef<'_>]) -> Result<f64> {
        let (inputs, targets) = (dlpack_array(inputs), dlpack_array(targets));
        let mut loss = 0.0;
        check(unsafe {
            sys::rxt_trainer_update(
                self.raw(),
                inputs.as_ptr(),
                inputs.len(),
                targets.as_ptr(),
                targets.len(),
                &mut loss,
            )
        })?;
        Ok(loss)
    }

    /// The loss, changing nothing.
    pub fn evaluate(&mut self, inputs: &[TensorRef<'_>], targets: &[TensorRef<'_>]) -> Result<f64> {
        let (inputs, targets) = (dlpack_array(inputs), dlpack_array(targets));
        let mut loss = 0.0;
        check(unsafe {
            sys::rxt_trainer_evaluate(
                self.raw(),
                inputs.as_ptr(),
                inputs.len(),
                targets.as_ptr(),
                targets.len(),
                &mut loss,
            )
        })?;
        Ok(loss)
    }

    /// The backbone's outputs.
    pub fn predict(&mut self, inputs: &[TensorRef<'_>]) -> Result<Vec<Tensor>> {
        let expected = self.num_outputs()?;
        let inputs = dlpack_array(inputs);
        let raw = self.raw();
        call_with_outputs(expected, |outputs, capacity, count| unsafe {
            sys::rxt_trainer_predict(raw, inputs.as_ptr(), inputs.len(), outputs, capacity, count)
        })
    }

    /// Runs one step with profiling, changing nothing; the time per kernel as a text table.
    pub fn profile_step(&mut self, inputs: &[TensorRef<'_>], targets: &[TensorRef<'_>]) -> Result<String> {
        let (inputs, targets) = (dlpack_array(inputs), dlpack_array(targets));
        let mut text = ptr::null_mut();
        check(unsafe {
            sys::rxt_trainer_profile_step(
                self.raw(),
                inputs.as_ptr(),
                inputs.len(),
                targets.as_ptr(),
                targets.len(),
                &mut text,
            )
        })?;
        Ok(unsafe { take(text) })
    }

    /// Updates since initialization (or restored from a checkpoint or trainer file).
    pub fn step(&self) -> Result<i64> {
        let mut step = 0;
        check(unsafe { sys::rxt_trainer_step(self.raw(), &mut step) })?;
        Ok(step)
    }

    /// The optimizer's learning rate (runtime state: changing it recompiles nothing).
    /// FailedPrecondition if the optimizer has none.
    pub fn learning_rate(&self) -> Result<f64> {
        let mut lr = 0.0;
        check(unsafe { sys::rxt_trainer_learning_rate(self.raw(), &mut lr) })?;
        Ok(lr)
    }

    /// Sets the learning rate and removes any schedule.
    pub fn set_learning_rate(&mut self, lr: f64) -> Result<()> {
        check(unsafe { sys::rxt_trainer_set_learning_rate(self.raw(), lr) })
    }

    /// From now on update k runs with |schedule|'s rate for |base_lr|: "constant",
    /// "step:step_size=N,gamma=G", "cosine:total_steps=N,min_lr=M", "warmup:steps=N".
    pub fn set_schedule(&mut self, schedule: &str, base_lr: f64) -> Result<()> {
        let schedule = c_string(schedule, "schedule")?;
        check(unsafe { sys::rxt_trainer_set_schedule(self.raw(), schedule.as_ptr(), base_lr) })
    }

    /// Writes parameters, states, optimizer state and step count (safetensors), atomically.
    pub fn save_checkpoint(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = c_path(path.as_ref())?;
        check(unsafe { sys::rxt_trainer_save_checkpoint(self.raw(), path.as_ptr()) })
    }

    /// Restores a checkpoint of a trainer of the same module; DataLoss (changing nothing) for
    /// one that does not fit.
    pub fn load_checkpoint(&mut self, path: impl AsRef<Path>) -> Result<()> {
        let path = c_path(path.as_ref())?;
        check(unsafe { sys::rxt_trainer_load_checkpoint(self.raw(), path.as_ptr()) })
    }
}

impl Trainer {
    /// Forward and backward of one micro-batch, its gradients added to the trainer's sums (a
    /// trainer built with accumulation); returns the micro-batch's loss.
    pub fn accumulate(&mut self, inputs: &[TensorRef<'_>], targets: &[TensorRef<'_>]) -> Result<f64> {
        let (inputs, targets) = (dlpack_array(inputs), dlpack_array(targets));
        let mut loss = 0.0;
        check(unsafe {
            sys::rxt_trainer_accumulate(
                self.raw(),
                inputs.as_ptr(),
                inputs.len(),
                targets.as_ptr(),
                targets.len(),
                &mut loss,
            )
        })?;
        Ok(loss)
    }

    /// One optimizer step with the accumulated gradients (combined over the ranks first under
    /// data parallelism); returns the step's loss. FailedPrecondition when nothing was
    /// accumulated.
    pub fn apply_accumulated(&mut self) -> Result<f64> {
        let mut loss = 0.0;
        check(unsafe { sys::rxt_trainer_apply_accumulated(self.raw(), &mut loss) })?;
        Ok(loss)
    }

    /// Trains together with the other ranks of |comm| (every rank calls it at the same point):
    /// all must run the same trainer program, and each takes rank 0's values. None: alone.
    pub fn set_comm(&mut self, comm: Option<&Comm>) -> Result<()> {
        check(unsafe { sys::rxt_trainer_set_comm(self.raw(), comm.map_or(ptr::null_mut(), |c| c.raw.as_ptr())) })
    }
}

/// The processes that train together: a communicator of a collective plugin ("mpi",
/// plugins/ccl_mpi). docs/distributed.md.
pub struct Comm {
    raw: NonNull<sys::rxt_comm_t>,
}

// The collective is called from one thread at a time (a trainer's calls are), and the handle
// may move between threads.
unsafe impl Send for Comm {}

impl Comm {
    /// A communicator over every process of the launch (mpirun, srun), MPI initialized if the
    /// program has not. NotFound naming the loaded collectives.
    pub fn world(collective: &str, context: Option<&Context>) -> Result<Comm> {
        unsafe { Comm::from_external(collective, context, ptr::null_mut()) }
    }

    /// A communicator over the program's own, |external| (for "mpi": a pointer to an MPI_Comm,
    /// which rxt duplicates).
    ///
    /// # Safety
    /// |external| must point to a live communicator handle of the collective's library.
    pub unsafe fn from_external(
        collective: &str,
        context: Option<&Context>,
        external: *mut std::os::raw::c_void,
    ) -> Result<Comm> {
        let name = c_string(collective, "collective")?;
        let context = context.map_or(ptr::null_mut(), Context::raw);
        let mut raw = ptr::null_mut();
        check(sys::rxt_comm_create(context, name.as_ptr(), ptr::null(), external, &mut raw))?;
        Ok(Comm { raw: NonNull::new(raw).expect("rxt returned a NULL communicator on success") })
    }

    /// This process's rank.
    pub fn rank(&self) -> Result<i32> {
        let mut rank = 0;
        check(unsafe { sys::rxt_comm_rank(self.raw.as_ptr(), &mut rank) })?;
        Ok(rank)
    }

    /// The number of ranks.
    pub fn size(&self) -> Result<i32> {
        let mut size = 0;
        check(unsafe { sys::rxt_comm_size(self.raw.as_ptr(), &mut size) })?;
        Ok(size)
    }
}

impl Drop for Comm {
    fn drop(&mut self) {
        unsafe { sys::rxt_comm_release(self.raw.as_ptr()) }
    }
}

impl Drop for Trainer {
    fn drop(&mut self) {
        unsafe { sys::rxt_trainer_release(self.raw()) }
    }
}

impl std::fmt::Debug for Trainer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Trainer({:p})", self.raw)
    }
}
