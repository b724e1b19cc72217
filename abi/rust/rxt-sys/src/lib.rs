//! Raw declarations of rxt's C ABI (`abi/include/rxt/rxt.h`) and of DLPack 0.6, the tensor
//! struct it passes. Names, types and layouts are the header's, one module per section of it;
//! `tests/header_drift.rs` and `tests/struct_layout.rs` fail when they drift from the header.
//! The safe API is the `rxt` crate; conventions (statuses, ownership) are in docs/abi.md.
//!
//! Left out on purpose (the test lists them): the IR-builder functions (`rxt_ir_api`,
//! `rxt_function_builder_*`), whose table is `rxt/ir_builder.h`'s, not declared here.
//!
//! Feature `compiler` (default): every function, linking librxt.so. Without it, only the
//! functions librxt_runtime.so exports (`abi/rxt_runtime.list`), linking that library; the others
//! are behind `#[cfg(feature = "compiler")]`, an attribute on their `extern` block or on the
//! function itself (the forms `tests/runtime_list.rs` reads). Types stay declared either way:
//! they link to nothing, and the layout test checks them all in both builds.
#![allow(non_camel_case_types, non_upper_case_globals)]

mod context;
mod dlpack;
mod executable;
mod module;
mod plugin;
mod status;
mod trainer;

pub use context::*;
pub use dlpack::*;
pub use executable::*;
pub use module::*;
pub use plugin::*;
pub use status::*;
pub use trainer::*;
