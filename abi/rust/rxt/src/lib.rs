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
//! - Feature `compiler` (the default) links librxt.so and offers all of the above. Without it
//!   (`default-features = false`) the crate links librxt_runtime.so alone (docs/deploy.md) and
//!   offers what that library has: trainer files (`Trainer::load`, `save`, training,
//!   checkpoints), executables loaded, the VM, contexts, plugins for their extern functions.
//!
//! ```no_run
//! # #[cfg(feature = "compiler")]
//! # fn main() -> rxt::Result<()> {
//! use rxt::{Module, TensorKind, TensorRef, Trainer, TrainerOptions};
//!
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
//! trainer.save("mlp.rxtt")?;
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "compiler"))]
//! # fn main() {}
//! ```
//!
//! With the runtime alone, from a trainer file (`rxt build --trainer`, or `Trainer::save`):
//!
//! ```no_run
//! use rxt::{TensorRef, Trainer};
//!
//! # fn main() -> rxt::Result<()> {
//! let mut trainer = Trainer::load("mlp.rxtt", None)?; // its kernels, values and step count
//! let (images, labels) = (vec![0f32; 64 * 784], vec![0i64; 64]);
//! let loss = trainer.update(&[TensorRef::new(&images, &[64, 784])?], &[TensorRef::new(&labels, &[64])?])?;
//! println!("step {} loss {}", trainer.step()?, loss);
//! trainer.save("mlp.rxtt")?;
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
mod options;
mod tensor;
mod tensor_ref;
mod text;
mod trainer;
mod trainer_tensors;
mod version;
mod vm;
// The compiler: modules, building executables and trainers, the plugin host's listings.
#[cfg(feature = "compiler")]
mod executable_build;
#[cfg(feature = "compiler")]
mod module;
#[cfg(feature = "compiler")]
mod plugin;
#[cfg(feature = "compiler")]
mod trainer_build;

pub use context::{load_plugin, Context, ContextOptions, LogFn, LogLevel};
pub use dtype::{DataType, Element};
pub use error::{Code, Error, Result};
pub use executable::Executable;
pub use rxt_sys as sys;
pub use tensor::Tensor;
pub use tensor_ref::TensorRef;
pub use trainer::{Comm, Trainer};
pub use trainer_tensors::TensorKind;
pub use version::{abi_version, memory_limit, set_memory_limit, version, ABI_VERSION};
pub use vm::Vm;

#[cfg(feature = "compiler")]
pub use executable_build::BuildOptions;
#[cfg(feature = "compiler")]
pub use module::{AttrKind, Module};
#[cfg(feature = "compiler")]
pub use plugin::{load_plugin_search_path, ops, passes, plugin_items, plugins, NamedItem, PluginInfo, PluginItemKind};
#[cfg(feature = "compiler")]
pub use trainer_build::TrainerOptions;
