// Finds the library to link against: librxt.so with the `compiler` feature (the default),
// librxt_runtime.so without it (the runtime alone, docs/deploy.md). No pkg-config (it may be
// absent, and offline builds must not depend on more than cargo and rustc), so, in order:
//   1. RXT_LIB_DIR: the directory holding the library (CMake passes its build's; set it for an
//      installation outside the linker's search path);
//   2. the source tree's development build, build/dev/lib, when it holds the library (the
//      directory the project's scripts build into), so `cargo test` works in a fresh checkout
//      after the C++ build;
//   3. nothing: the linker's own search path (an installation under /usr/local/lib, say).
// The directory found is passed to dependents as DEP_RXT_LIB_DIR (Cargo's `links` metadata):
// the rxt crate's build script gives its tests and examples an rpath to it.
use std::env;
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=RXT_LIB_DIR");
    println!("cargo:rerun-if-changed=build.rs");
    // Cargo sets CARGO_FEATURE_<NAME> for the build script of a crate built with that feature.
    let library = if env::var_os("CARGO_FEATURE_COMPILER").is_some() { "rxt" } else { "rxt_runtime" };
    let dir = match env::var_os("RXT_LIB_DIR") {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => source_tree_build(library),
    };
    if let Some(dir) = dir {
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:lib_dir={}", dir.display());
    }
    println!("cargo:rustc-link-lib=dylib={}", library);
}

/// <repo>/build/dev/lib if it holds lib|library|.so (this crate is <repo>/abi/rust/rxt-sys).
fn source_tree_build(library: &str) -> Option<PathBuf> {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR")?);
    let dir = manifest.join("../../../build/dev/lib");
    if dir.join(format!("lib{}.so", library)).exists() {
        dir.canonicalize().ok()
    } else {
        None
    }
}
