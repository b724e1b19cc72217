// Finds librxt.so to link against. No pkg-config (it may be absent, and offline builds must not
// depend on more than cargo and rustc), so, in order:
//   1. RXT_LIB_DIR: the directory holding librxt.so (CMake passes its build's; set it for an
//      installation outside the linker's search path);
//   2. the source tree's development build, build/dev/lib, when it holds librxt.so (the
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
    let dir = match env::var_os("RXT_LIB_DIR") {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => source_tree_build(),
    };
    if let Some(dir) = dir {
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:lib_dir={}", dir.display());
    }
    println!("cargo:rustc-link-lib=dylib=rxt");
}

/// <repo>/build/dev/lib if it holds librxt.so (this crate is <repo>/abi/rust/rxt-sys).
fn source_tree_build() -> Option<PathBuf> {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR")?);
    let dir = manifest.join("../../../build/dev/lib");
    if dir.join("librxt.so").exists() {
        dir.canonicalize().ok()
    } else {
        None
    }
}
