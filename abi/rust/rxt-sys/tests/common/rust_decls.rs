//! rxt-sys's declarations, read from its source: `extern "C"` functions, `pub type` aliases,
//! `pub const` numbers and `#[repr(C)] pub struct`s (a struct whose only field is `_opaque` is a
//! handle). The sources are written to one style, which is all this reader handles.
//!
//! It also tells which functions are behind the `compiler` feature: those whose `extern` block,
//! or the function itself, carries `#[cfg(feature = "compiler")]`. Any other `cfg` attribute is
//! an error, so that no gate goes unread.
use std::collections::{BTreeMap, BTreeSet};

use super::c_header::Function;
use super::types::canonical;

#[derive(Debug, Default)]
pub struct Decls {
    pub functions: BTreeMap<String, Function>,
    /// The functions declared only with the `compiler` feature.
    pub compiler_only: BTreeSet<String>,
    pub aliases: BTreeMap<String, String>,
    /// name -> (canonical type, value)
    pub consts: BTreeMap<String, (String, i64)>,
    pub structs: BTreeMap<String, Vec<(String, String)>>,
    pub opaque: BTreeSet<String>,
}

/// The one `cfg` attribute the sources use.
const COMPILER_GATE: &str = "#[cfg(feature = \"compiler\")]";
/// What `clean` leaves of it: a word before the item it gates.
const COMPILER_ONLY: &str = "COMPILER_ONLY";

/// Without comments and attributes (but the compiler gate, as COMPILER_ONLY), with `->` spelled
/// `RETURNS` (no `>` to unbalance `<>`) and no paths.
fn clean(source: &str) -> String {
    let mut text = String::new();
    for line in source.lines() {
        let line = line.split("//").next().unwrap();
        let trimmed = line.trim();
        if trimmed == COMPILER_GATE {
            text.push_str(COMPILER_ONLY);
            text.push('\n');
        } else if trimmed.contains("cfg") && trimmed.starts_with('#') {
            panic!("rxt-sys: a cfg attribute this reader does not know: {}", trimmed);
        } else if !trimmed.starts_with('#') {
            text.push_str(line);
            text.push('\n');
        }
    }
    text.replace("->", " RETURNS ").replace("std::ffi::", "").replace("std::os::raw::", "").replace("crate::", "")
}

/// `name: Type` -> (name, canonical type).
fn name_and_type(item: &str) -> (String, String) {
    let (name, ty) = item.split_once(':').unwrap_or_else(|| panic!("expected 'name: Type', got '{}'", item));
    (name.trim().trim_start_matches("pub ").trim().to_string(), canonical(ty))
}

/// |item| without a leading COMPILER_ONLY, and whether it had one.
fn gated(item: &str) -> (&str, bool) {
    match item.trim_start().strip_prefix(COMPILER_ONLY) {
        Some(rest) => (rest.trim_start(), true),
        None => (item.trim_start(), false),
    }
}

fn parse_extern_block(decls: &mut Decls, body: &str, block_gated: bool) {
    for item in super::split_top_level(body, ';') {
        let (item, item_gated) = gated(&item);
        let signature = item.strip_prefix("pub fn ").unwrap_or_else(|| panic!("not 'pub fn': {}", item));
        let open = signature.find('(').unwrap();
        let (params, end) = super::balanced(signature, open, '(', ')');
        let result = signature[end..].trim();
        let result = canonical(result.strip_prefix("RETURNS").unwrap_or("()"));
        let params = super::split_top_level(&params, ',').iter().map(|p| name_and_type(p)).collect();
        let name = signature[..open].trim().to_string();
        if block_gated || item_gated {
            decls.compiler_only.insert(name.clone());
        }
        decls.functions.insert(name, Function { params, result });
    }
}

/// The text of every `extern "C" { ... }` block with whether the compiler gate is on it, and
/// what is left.
fn take_extern_blocks(text: &str) -> (Vec<(String, bool)>, String) {
    let mut blocks = Vec::new();
    let mut rest = String::new();
    let mut remaining = text;
    while let Some(start) = remaining.find("extern \"C\" {") {
        let before = remaining[..start].trim_end();
        let block_gated = before.ends_with(COMPILER_ONLY);
        rest.push_str(if block_gated { &before[..before.len() - COMPILER_ONLY.len()] } else { &remaining[..start] });
        let open = start + remaining[start..].find('{').unwrap();
        let (body, end) = super::balanced(remaining, open, '{', '}');
        blocks.push((body, block_gated));
        remaining = &remaining[end..];
    }
    rest.push_str(remaining);
    (blocks, rest)
}

/// Each `keyword NAME ...` item up to its `;` (or its `{...}` for structs).
fn items<'a>(text: &'a str, keyword: &str) -> Vec<&'a str> {
    text.match_indices(keyword).map(|(at, _)| &text[at + keyword.len()..]).collect()
}

pub fn parse(source: &str) -> Decls {
    let mut decls = Decls::default();
    let (blocks, rest) = take_extern_blocks(&clean(source));
    for (block, block_gated) in &blocks {
        parse_extern_block(&mut decls, block, *block_gated);
    }
    for item in items(&rest, "pub type ") {
        let item = &item[..item.find(';').unwrap()];
        let (name, ty) = item.split_once('=').unwrap();
        decls.aliases.insert(name.trim().to_string(), canonical(ty));
    }
    for item in items(&rest, "pub const ") {
        let item = &item[..item.find(';').unwrap()];
        let (declaration, value) = item.split_once('=').unwrap();
        let (name, ty) = name_and_type(declaration);
        decls.consts.insert(name, (ty, value.trim().parse().expect("an integer constant")));
    }
    for item in items(&rest, "pub struct ") {
        let open = item.find('{').unwrap();
        let (body, _) = super::balanced(item, open, '{', '}');
        let name = item[..open].trim().to_string();
        let fields: Vec<(String, String)> =
            super::split_top_level(&body, ',').iter().map(|f| name_and_type(f)).collect();
        if fields.len() == 1 && fields[0].0 == "_opaque" {
            decls.opaque.insert(name);
        } else {
            decls.structs.insert(name, fields);
        }
    }
    decls
}
