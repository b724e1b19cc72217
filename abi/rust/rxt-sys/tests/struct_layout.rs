//! The structs rxt-sys declares have the layout the C compiler gives rxt.h's: a small C program
//! compiled against the header ($CC, else cc; DLPack from $RXT_DLPACK_INCLUDE_DIR, a CMake list,
//! or the compiler's default path) prints each struct's size, alignment and field offsets and each
//! enum's size, which must equal Rust's. (header_drift.rs compares the declarations' text; this
//! checks that the mapping of C types to Rust types behind it is right on this target.)
mod common;

use std::mem::{align_of, size_of, MaybeUninit};
use std::os::raw::c_int;
use std::path::PathBuf;
use std::process::Command;
use std::ptr::addr_of;

use rxt_sys::*;

struct Layout {
    name: &'static str,
    size: usize,
    align: usize,
    fields: Vec<(&'static str, usize)>,
}

macro_rules! offset {
    ($ty:ident, $field:ident) => {{
        let value = MaybeUninit::<$ty>::uninit();
        let base = value.as_ptr();
        // addr_of! makes no reference to the uninitialized value.
        unsafe { addr_of!((*base).$field) as usize - base as usize }
    }};
}

macro_rules! layouts {
    ($($ty:ident { $($field:ident),* $(,)? }),* $(,)?) => {
        vec![$(Layout {
            name: stringify!($ty),
            size: size_of::<$ty>(),
            align: align_of::<$ty>(),
            fields: vec![$((stringify!($field), offset!($ty, $field))),*],
        }),*]
    };
}

fn rust_layouts() -> Vec<Layout> {
    layouts![
        DLDevice { device_type, device_id },
        DLDataType { code, bits, lanes },
        DLTensor { data, device, ndim, dtype, shape, strides, byte_offset },
        DLManagedTensor { dl_tensor, manager_ctx, deleter },
        rxt_pass_options_t {
            struct_size,
            opt_level,
            verify_each,
            disabled,
            num_disabled,
            config_keys,
            config_values,
            num_config
        },
        rxt_plugin_info_t {
            struct_size,
            name,
            version,
            path,
            abi_version,
            num_optimizers,
            num_losses,
            num_gradients,
            num_backends
        },
        rxt_context_options_t {
            struct_size,
            num_threads,
            search_path,
            plugins,
            num_plugins,
            log,
            log_user_data,
            allocate,
            deallocate,
            allocator_user_data
        },
        rxt_build_options_t { struct_size, backend, opt_level, libraries, emit_library, context },
        rxt_trainer_options_t {
            struct_size,
            backend,
            loss,
            loss_options,
            optimizer,
            optimizer_options,
            opt_level,
            libraries,
            context,
            data_parallel,
            bucket_bytes,
            accumulation
        },
    ]
}

/// The C enums, all declared as c_int in rxt-sys.
fn enums() -> Vec<String> {
    let header = common::c_header::parse(&std::fs::read_to_string(common::header_path()).unwrap());
    let mut names: Vec<String> = header.enums.keys().cloned().collect();
    names.push("DLDeviceType".to_string());
    names
}

/// What the C program prints, and what Rust's layouts say it must print.
fn probe_source_and_expected(layouts: &[Layout], enums: &[String]) -> (String, String) {
    let mut source = String::from("#include <stdio.h>\n#include <stddef.h>\n#include <rxt/rxt.h>\nint main(void) {\n");
    let mut expected = String::new();
    for layout in layouts {
        let n = layout.name;
        source += &format!("  printf(\"{n} size %zu align %zu\\n\", sizeof({n}), _Alignof({n}));\n", n = n);
        expected += &format!("{} size {} align {}\n", n, layout.size, layout.align);
        for (field, offset) in &layout.fields {
            source += &format!("  printf(\"{n}.{f} %zu\\n\", offsetof({n}, {f}));\n", n = n, f = field);
            expected += &format!("{}.{} {}\n", n, field, offset);
        }
    }
    for e in enums {
        source += &format!("  printf(\"{e} size %zu\\n\", sizeof({e}));\n", e = e);
        expected += &format!("{} size {}\n", e, size_of::<c_int>());
    }
    source += "  return 0;\n}\n";
    (source, expected)
}

fn compile_and_run(source: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let (c_file, program) = (dir.join("rxt_layout_probe.c"), dir.join("rxt_layout_probe"));
    std::fs::write(&c_file, source).unwrap();
    let include = common::header_path().parent().and_then(|p| p.parent()).unwrap().to_path_buf();
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let mut command = Command::new(&compiler);
    command.arg("-std=c11").arg("-I").arg(&include);
    // (a CMake list: directories separated by ';')
    for dir in std::env::var("RXT_DLPACK_INCLUDE_DIR").unwrap_or_default().split(';').filter(|d| !d.is_empty()) {
        command.arg("-I").arg(dir);
    }
    let output = command
        .arg(&c_file)
        .arg("-o")
        .arg(&program)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler '{}' ({}): set CC to one", compiler, e));
    assert!(output.status.success(), "compiling the probe failed:\n{}", String::from_utf8_lossy(&output.stderr));
    let run = Command::new(&program).output().expect("running the probe");
    assert!(run.status.success());
    String::from_utf8(run.stdout).unwrap()
}

#[test]
fn structs_and_enums_have_the_c_layout() {
    let (source, expected) = probe_source_and_expected(&rust_layouts(), &enums());
    let actual = compile_and_run(&source);
    let differences: Vec<String> = expected
        .lines()
        .zip(actual.lines())
        .filter(|(e, a)| e != a)
        .map(|(e, a)| format!("rust: {:<45} C: {}", e, a))
        .collect();
    assert!(differences.is_empty(), "layouts differ:\n{}", differences.join("\n"));
    assert_eq!(expected.lines().count(), actual.lines().count());
}

/// The list above covers every struct rxt-sys declares, with all its fields: a field added to
/// rxt-sys (as rxt.h grows) is checked here too.
#[test]
fn every_declared_struct_is_checked() {
    let declared = common::rust_decls::parse(&common::rust_sources()).structs;
    let checked = rust_layouts();
    assert_eq!(declared.len(), checked.len(), "structs of rxt-sys: {:?}", declared.keys().collect::<Vec<_>>());
    for layout in checked {
        let fields: Vec<&str> = declared[layout.name].iter().map(|(name, _)| name.as_str()).collect();
        let listed: Vec<&str> = layout.fields.iter().map(|(name, _)| *name).collect();
        assert_eq!(fields, listed, "fields of {}", layout.name);
    }
}
