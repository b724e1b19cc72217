//! What the drift tests read: rxt.h's declarations (`c_header`) and rxt-sys's own
//! (`rust_decls`), both reduced to one canonical spelling of types (`types`), and the list of
//! what librxt_runtime.so exports.
#![allow(dead_code)] // each test binary uses part of it

pub mod c_header;
pub mod rust_decls;
pub mod types;

use std::path::PathBuf;

/// rxt.h: $RXT_HEADER, else the one of this source tree (rxt-sys is <repo>/abi/rust/rxt-sys).
pub fn header_path() -> PathBuf {
    match std::env::var_os("RXT_HEADER") {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../include/rxt/rxt.h"),
    }
}

/// The functions librxt_runtime.so exports, one a line ('#' starts a comment): $RXT_RUNTIME_LIST,
/// else abi/rxt_runtime.list of this source tree.
pub fn runtime_list_path() -> PathBuf {
    match std::env::var_os("RXT_RUNTIME_LIST") {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../rxt_runtime.list"),
    }
}

/// rxt-sys's source files, concatenated.
pub fn rust_sources() -> String {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("rxt-sys/src")
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().map_or(false, |e| e == "rs"))
        .collect();
    names.sort();
    names.iter().map(|path| std::fs::read_to_string(path).expect("a source file")).collect::<Vec<_>>().join("\n")
}

/// Splits |text| at top-level occurrences of |separator| (outside (), <>, {} and []).
pub fn split_top_level(text: &str, separator: char) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '(' | '<' | '{' | '[' => depth += 1,
            ')' | '>' | '}' | ']' => depth -= 1,
            _ => {}
        }
        if c == separator && depth == 0 {
            parts.push(current.trim().to_string());
            current.clear();
        } else {
            current.push(c);
        }
    }
    if !current.trim().is_empty() {
        parts.push(current.trim().to_string());
    }
    parts
}

/// The text between the parenthesis at byte |open| and its match, and the index after the match.
pub fn balanced(text: &str, open: usize, left: char, right: char) -> (String, usize) {
    let mut depth = 0;
    for (i, c) in text[open..].char_indices() {
        if c == left {
            depth += 1;
        } else if c == right {
            depth -= 1;
            if depth == 0 {
                return (text[open + 1..open + i].to_string(), open + i + 1);
            }
        }
    }
    panic!("unbalanced {} in: {}", left, &text[open..])
}
