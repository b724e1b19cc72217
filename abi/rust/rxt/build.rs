// The tests and examples of this crate run against the librxt that rxt-sys linked (its build
// script passes the directory as DEP_RXT_LIB_DIR): an rpath to it, so they find librxt.so (and
// librxt its plugins, beside it) without LD_LIBRARY_PATH. Programs depending on this crate set
// their own rpath or install librxt where the loader looks.
fn main() {
    if let Some(dir) = std::env::var_os("DEP_RXT_LIB_DIR") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.to_string_lossy());
    }
}
