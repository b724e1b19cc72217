//! Raw declarations of rxt's C ABI (`abi/include/rxt/rxt.h`) and of DLPack 0.6, the tensor
//! struct it passes. Names, types and layouts are the header's, one module per section of it;
//! `tests/header_drift.rs` and `tests/struct_layout.rs` fail when they drift from the header.
//! The safe API is the `rxt` crate; conventions (statuses, ownership) are in docs/abi.md.
//!
//! Left out on purpose (the test lists them): the IR-builder functions (`rxt_ir_api`,
//! `rxt_function_builder_*`), whose table is `rxt/ir_builder.h`'s, not declared here.
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
