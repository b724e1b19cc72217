//! rxt-sys against rxt.h, declaration by declaration: every function, enum constant, struct,
//! function-pointer typedef, handle and version number rxt-sys declares must be the header's,
//! with the same parameters (names, count, types) and fields (names, types, order); and every
//! function of the header is declared here or listed as left out on purpose. Fails on the first
//! change of rxt.h that rxt-sys does not follow.
mod common;

use common::{c_header, rust_decls};

/// Functions of rxt.h that rxt-sys does not declare: the IR builder, whose table is
/// rxt/ir_builder.h's (the Python FX importer uses it; the Rust crate does not yet).
const LEFT_OUT: &[&str] = &[
    "rxt_ir_api",
    "rxt_function_builder_create",
    "rxt_function_builder_ir",
    "rxt_function_builder_constant",
    "rxt_function_builder_finish",
    "rxt_function_builder_free",
];
/// The builder's handle, which only those functions take.
const LEFT_OUT_HANDLES: &[&str] = &["rxt_function_builder_t"];

fn load() -> (c_header::Header, rust_decls::Decls) {
    let path = common::header_path();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {}", path.display(), e));
    (c_header::parse(&text), rust_decls::parse(&common::rust_sources()))
}

#[test]
fn every_function_matches_its_prototype() {
    let (header, rust) = load();
    let mut problems = Vec::new();
    for (name, function) in &rust.functions {
        let c = match header.functions.get(name) {
            Some(c) => c,
            None => {
                problems.push(format!("{}: not in rxt.h", name));
                continue;
            }
        };
        if function.params.len() != c.params.len() {
            problems.push(format!("{}: {} parameters, rxt.h has {}", name, function.params.len(), c.params.len()));
        } else if function.params != c.params {
            problems.push(format!("{}: parameters {:?}, rxt.h has {:?}", name, function.params, c.params));
        }
        if function.result != c.result {
            problems.push(format!("{}: returns '{}', rxt.h returns '{}'", name, function.result, c.result));
        }
    }
    assert!(problems.is_empty(), "rxt-sys differs from rxt.h:\n{}", problems.join("\n"));
    assert!(rust.functions.len() >= 80, "the reader found only {} functions", rust.functions.len());
}

#[test]
fn every_header_function_is_declared_or_left_out_on_purpose() {
    let (header, rust) = load();
    let missing: Vec<&String> = header
        .functions
        .keys()
        .filter(|n| !rust.functions.contains_key(*n) && !LEFT_OUT.contains(&n.as_str()))
        .collect();
    assert!(missing.is_empty(), "rxt.h functions rxt-sys does not declare: {:?}", missing);
    for name in LEFT_OUT {
        assert!(header.functions.contains_key(*name), "{} is listed as left out but rxt.h has no such function", name);
        assert!(!rust.functions.contains_key(*name), "{} is listed as left out but declared", name);
    }
}

#[test]
fn enums_have_the_header_values() {
    let (header, rust) = load();
    assert!(header.enums.len() >= 5, "the reader found only {} enums", header.enums.len());
    let mut declared = 0;
    for (name, constants) in &header.enums {
        assert_eq!(rust.aliases.get(name).map(String::as_str), Some("c_int"), "{}: declare it as c_int", name);
        for (constant, value) in constants {
            let found = rust.consts.get(constant);
            assert_eq!(found, Some(&(name.clone(), *value)), "{} = {} ({})", constant, value, name);
            declared += 1;
        }
    }
    // Nothing of an enum type that the header does not have.
    let of_enum_types = rust.consts.values().filter(|(ty, _)| header.enums.contains_key(ty)).count();
    assert_eq!(of_enum_types, declared, "rxt-sys has enum constants rxt.h does not");
}

#[test]
fn structs_have_the_header_fields_in_order() {
    let (header, rust) = load();
    assert!(header.structs.len() >= 5, "the reader found only {} structs", header.structs.len());
    for (name, fields) in &header.structs {
        assert_eq!(rust.structs.get(name), Some(fields), "struct {}", name);
    }
}

#[test]
fn typedefs_and_handles_match() {
    let (header, rust) = load();
    for (name, ty) in &header.aliases {
        assert_eq!(rust.aliases.get(name), Some(ty), "typedef {}", name);
    }
    for name in header.opaque.iter().filter(|n| !LEFT_OUT_HANDLES.contains(&n.as_str())) {
        assert!(rust.opaque.contains(name), "handle {}: declare it as an opaque struct", name);
    }
}

#[test]
fn version_numbers_match() {
    let (header, rust) = load();
    for name in ["RXT_ABI_VERSION", "RXT_VERSION_MAJOR", "RXT_VERSION_MINOR", "RXT_VERSION_PATCH"] {
        let c = header.numbers.get(name).unwrap_or_else(|| panic!("rxt.h has no {}", name));
        assert_eq!(rust.consts.get(name).map(|(_, v)| v), Some(c), "{}", name);
    }
}
