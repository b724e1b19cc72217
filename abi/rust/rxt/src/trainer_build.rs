//! Making trainers: the compiler (feature `compiler`, librxt.so). `Trainer::new` and what it
//! builds: the loss, the optimizer (names and options in the attribute syntax), the backend and
//! the build's tuning (docs/abi.md, "Training: the trainer").
use std::ffi::CString;
use std::path::Path;
use std::ptr;

use rxt_sys as sys;

use crate::context::Context;
use crate::error::{check, Result};
use crate::module::Module;
use crate::options::defaults;
use crate::text::{c_path, c_string_or_null, ptr_or_null};
use crate::trainer::Trainer;

/// Options of a trainer; None: rxt's default. For a trainer module (made by SetupTrainer) the
/// loss and optimizer are ignored.
#[derive(Clone, Debug, Default)]
pub struct TrainerOptions {
    /// None: "cpu" if a loaded plugin provides it, else "reference".
    pub backend: Option<String>,
    /// e.g. "cross_entropy", "mse".
    pub loss: Option<String>,
    /// e.g. "reduction=\"sum\"".
    pub loss_options: Option<String>,
    /// e.g. "sgd", "adam", or a plugin's ("lion").
    pub optimizer: Option<String>,
    /// e.g. "lr=0.01, weight_decay=0.01".
    pub optimizer_options: Option<String>,
    /// Default 2.
    pub opt_level: Option<i32>,
    /// Kernel libraries ("dnnl"), "none"; None: the backend's default.
    pub libraries: Option<String>,
    /// Whose plugins build it and whose threads it runs on; None: the default context.
    pub context: Option<Context>,
    /// Data-parallel training: gradients combined over the ranks of the trainer's communicator
    /// (Trainer::set_comm) before each optimizer step (docs/distributed.md).
    pub data_parallel: bool,
    /// The most bytes of gradients in one allreduce; None: 25 MiB.
    pub bucket_bytes: Option<i64>,
    /// Adds gradient accumulation (Trainer::accumulate, Trainer::apply_accumulated).
    pub accumulation: bool,
}

impl TrainerOptions {
    /// Options for a backbone trained with |loss| and |optimizer|.
    pub fn new(loss: &str, optimizer: &str) -> TrainerOptions {
        TrainerOptions { loss: Some(loss.to_string()), optimizer: Some(optimizer.to_string()), ..Default::default() }
    }
}

/// The C struct of |options| with the strings it points to (which must outlive its use).
struct CTrainerOptions {
    options: sys::rxt_trainer_options_t,
    _strings: Vec<Option<CString>>,
}

impl CTrainerOptions {
    fn new(options: &TrainerOptions) -> Result<CTrainerOptions> {
        let strings = vec![
            c_string_or_null(options.backend.as_deref(), "backend")?,
            c_string_or_null(options.loss.as_deref(), "loss")?,
            c_string_or_null(options.loss_options.as_deref(), "loss options")?,
            c_string_or_null(options.optimizer.as_deref(), "optimizer")?,
            c_string_or_null(options.optimizer_options.as_deref(), "optimizer options")?,
            c_string_or_null(options.libraries.as_deref(), "libraries")?,
        ];
        let mut c = defaults(sys::rxt_trainer_options_init);
        c.backend = ptr_or_null(&strings[0]);
        c.loss = ptr_or_null(&strings[1]);
        c.loss_options = ptr_or_null(&strings[2]);
        c.optimizer = ptr_or_null(&strings[3]);
        c.optimizer_options = ptr_or_null(&strings[4]);
        c.libraries = ptr_or_null(&strings[5]);
        if let Some(level) = options.opt_level {
            c.opt_level = level;
        }
        c.context = options.context.as_ref().map_or(ptr::null_mut(), Context::raw);
        c.data_parallel = options.data_parallel as i32;
        c.bucket_bytes = options.bucket_bytes.unwrap_or(0);
        c.accumulation = options.accumulation as i32;
        // The CStrings' buffers are on the heap: moving the Vec keeps the pointers valid.
        Ok(CTrainerOptions { options: c, _strings: strings })
    }
}

impl Trainer {
    /// Builds |module| (a backbone with `options.loss` and `options.optimizer`, or a trainer
    /// module) and makes a trainer; parameters and states start at zero. InvalidArgument for an
    /// invalid backbone ("SetupTrainer: ..."), NotFound for an unknown loss, optimizer or backend.
    pub fn new(module: &Module, options: &TrainerOptions) -> Result<Trainer> {
        let c = CTrainerOptions::new(options)?;
        let mut raw = ptr::null_mut();
        check(unsafe { sys::rxt_trainer_create(module.raw(), &c.options, &mut raw) })?;
        Ok(Trainer::adopt(raw))
    }

    /// Like `save`, with the kernels compiled for another machine, where librxt_runtime built for
    /// it loads the file (docs/deploy.md, "On another architecture"): |target| a triple
    /// ("aarch64-linux-gnu"; None: this machine's), |cpu| ("x86-64" for a file any x86-64 machine
    /// runs, "cortex-a72"; None: this machine's CPU for its own triple, else the architecture's
    /// baseline) and |features| ("+sve"; None: the CPU's own), as LLVM names them. For another
    /// architecture, make the trainer with `libraries: Some("none")` unless that machine has the
    /// kernel libraries' plugins; the library is linked with the target's cross compiler
    /// (aarch64-linux-gnu-gcc) from PATH. InvalidArgument for a target or CPU LLVM does not know,
    /// FailedPrecondition for a backend that cannot compile for it or a missing cross compiler;
    /// on error nothing is written.
    pub fn save_for_target(
        &self,
        path: impl AsRef<Path>,
        target: Option<&str>,
        cpu: Option<&str>,
        features: Option<&str>,
    ) -> Result<()> {
        let path = c_path(path.as_ref())?;
        let target = c_string_or_null(target, "target")?;
        let cpu = c_string_or_null(cpu, "cpu")?;
        let features = c_string_or_null(features, "features")?;
        check(unsafe {
            sys::rxt_trainer_save_for_target(
                self.raw(),
                path.as_ptr(),
                ptr_or_null(&target),
                ptr_or_null(&cpu),
                ptr_or_null(&features),
            )
        })
    }
}
