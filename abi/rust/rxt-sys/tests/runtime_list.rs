//! rxt-sys without its `compiler` feature against abi/rxt_runtime.list, the functions
//! librxt_runtime.so exports: every function declared without the feature must be in the list
//! (else a program built against the runtime alone could call what the library lacks, and fail
//! to link or load), and every function of the list must be declared without it (else the
//! runtime-only crate would miss part of the runtime). Reads the sources, so it checks the same
//! with or without the feature.
mod common;

use std::collections::BTreeSet;

use common::rust_decls;

fn runtime_list() -> BTreeSet<String> {
    let path = common::runtime_list_path();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {}", path.display(), e));
    text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(str::to_string).collect()
}

/// (functions declared without the `compiler` feature, those declared only with it)
fn declared() -> (BTreeSet<String>, BTreeSet<String>) {
    let decls = rust_decls::parse(&common::rust_sources());
    let runtime = decls.functions.keys().filter(|n| !decls.compiler_only.contains(*n)).cloned().collect();
    (runtime, decls.compiler_only)
}

#[test]
fn functions_declared_without_the_compiler_are_in_the_runtime_list() {
    let (list, (runtime, _)) = (runtime_list(), declared());
    let extra: Vec<&String> = runtime.difference(&list).collect();
    assert!(
        extra.is_empty(),
        "declared without the compiler feature but not exported by librxt_runtime.so (abi/rxt_runtime.list): \
         {:?}; put them behind #[cfg(feature = \"compiler\")]",
        extra
    );
}

#[test]
fn every_function_of_the_runtime_list_is_declared_without_the_compiler() {
    let (list, (runtime, compiler_only)) = (runtime_list(), declared());
    let missing: Vec<&String> = list.difference(&runtime).collect();
    assert!(
        missing.is_empty(),
        "abi/rxt_runtime.list functions not declared without the compiler feature: {:?} (behind the feature: {:?})",
        missing,
        missing.iter().filter(|n| compiler_only.contains(**n)).collect::<Vec<_>>()
    );
}

/// The reader found both halves: the list is not trivially matched by a reader that sees no gate
/// (or no function).
#[test]
fn the_reader_sees_both_halves() {
    let (list, (runtime, compiler_only)) = (runtime_list(), declared());
    assert!(list.len() >= 50, "abi/rxt_runtime.list has only {} functions", list.len());
    for name in ["rxt_trainer_create", "rxt_trainer_save_for_target", "rxt_module_parse", "rxt_executable_build"] {
        assert!(compiler_only.contains(name), "{} is not behind the compiler feature", name);
    }
    for name in ["rxt_trainer_load", "rxt_trainer_update", "rxt_plugin_load", "rxt_vm_invoke"] {
        assert!(runtime.contains(name), "{} is not declared without the compiler feature", name);
    }
}
