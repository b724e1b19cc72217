//! The safe Rust API of rxt over its C ABI (`rxt.h`, through `rxt-sys`): modules, contexts,
//! plugins, executables, the VM and the trainer. docs/rust.md is the guide.
//!
//! - Every fallible call returns `Result<T, rxt::Error>`, an `Error` carrying rxt's code and
//!   message. Nothing panics on rxt's errors.
//! - Every handle releases its reference when dropped.
//! - `Send`/`Sync` follow docs/abi.md's thread-safety rules: modules, contexts and executables
//!   are shared across threads; trainers and VMs move between threads but run one call at a
//!   time (`Send`, not `Sync`).
//! - Tensors go in as `TensorRef`s borrowing the caller's slices (no copy) and come out as owned
//!   `Tensor`s whose elements are read in place; their DLPack deleter runs on drop.
//!
//! ```no_run
//! use rxt::{Module, TensorKind, TensorRef, Trainer, TrainerOptions};
//!
//! # fn main() -> rxt::Result<()> {
//! let module = Module::from_file("examples/mlp.rxt")?;
//! let mut options = TrainerOptions::new("cross_entropy", "adam");
//! options.optimizer_options = Some("lr=0.001".to_string());
//! let mut trainer = Trainer::new(&module, &options)?;
//! trainer.init_xavier_uniform(0)?;
//! let (images, labels) = (vec![0f32; 64 * 784], vec![0i64; 64]);
//! let x = TensorRef::new(&images, &[64, 784])?;
//! let y = TensorRef::new(&labels, &[64])?;
//! let loss = trainer.update(&[x], &[y])?;
//! let w0 = trainer.get_by_name(TensorKind::Params, "w0")?;
//! println!("loss {} w0[0] {}", loss, w0.as_slice::<f32>()?[0]);
//! # Ok(())
//! # }
//! ```
//!
//! What the types do not allow, checked by the compiler:
//!
//! ```compile_fail,E0277
//! fn shared_across_threads<T: Sync>() {}
//! shared_across_threads::<rxt::Trainer>(); // one call at a time per trainer
//! ```
//! ```compile_fail,E0277
//! fn shared_across_threads<T: Sync>() {}
//! shared_across_threads::<rxt::Vm>(); // one call at a time per VM
//! ```
//! ```compile_fail,E0597
//! // A borrowed tensor cannot outlive the slice it describes.
//! let x = { let data = vec![1f32; 4]; rxt::TensorRef::new(&data, &[4]).unwrap() };
//! drop(x);
//! ```

mod context;
mod dtype;
mod error;
mod executable;
mod module;
mod options;
mod plugin;
mod tensor;
mod tensor_ref;
mod text;
mod trainer;
mod trainer_options;
mod trainer_tensors;
mod version;
mod vm;

pub use context::{Context, ContextOptions, LogFn, LogLevel};
pub use dtype::{DataType, Element};
pub use error::{Code, Error, Result};
pub use executable::{BuildOptions, Executable};
pub use module::{AttrKind, Module};
pub use plugin::{
    load_plugin, load_plugin_search_path, ops, passes, plugin_items, plugins, NamedItem, PluginInfo, PluginItemKind,
};
pub use rxt_sys as sys;
pub use tensor::Tensor;
pub use tensor_ref::TensorRef;
pub use trainer::Trainer;
pub use trainer_options::TrainerOptions;
pub use trainer_tensors::TensorKind;
pub use version::{abi_version, memory_limit, set_memory_limit, version, ABI_VERSION};
pub use vm::Vm;
