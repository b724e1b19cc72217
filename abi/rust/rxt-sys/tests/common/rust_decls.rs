//! rxt-sys's declarations, read from its source: `extern "C"` functions, `pub type` aliases,
//! `pub const` numbers and `#[repr(C)] pub struct`s (a struct whose only field is `_opaque` is a
//! handle). The sources are written to one style, which is all this reader handles.
use std::collections::{BTreeMap, BTreeSet};

use super::c_header::Function;
use super::types::canonical;

#[derive(Debug, Default)]
pub struct Decls {
    pub functions: BTreeMap<String, Function>,
    pub aliases: BTreeMap<String, String>,
    /// name -> (canonical type, value)
    pub consts: BTreeMap<String, (String, i64)>,
    pub structs: BTreeMap<String, Vec<(String, String)>>,
    pub opaque: BTreeSet<String>,
}

/// Without comments and attributes, with `->` spelled `RETURNS` (no `>` to unbalance `<>`) and
/// no paths.
fn clean(source: &str) -> String {
    let mut text = String::new();
    for line in source.lines() {
        let line = line.split("//").next().unwrap();
        if !line.trim_start().starts_with("#") {
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

fn parse_extern_block(decls: &mut Decls, body: &str) {
    for item in super::split_top_level(body, ';') {
        let signature = item.strip_prefix("pub fn ").unwrap_or_else(|| panic!("not 'pub fn': {}", item));
        let open = signature.find('(').unwrap();
        let (params, end) = super::balanced(signature, open, '(', ')');
        let result = signature[end..].trim();
        let result = canonical(result.strip_prefix("RETURNS").unwrap_or("()"));
        let params = super::split_top_level(&params, ',').iter().map(|p| name_and_type(p)).collect();
        decls.functions.insert(signature[..open].trim().to_string(), Function { params, result });
    }
}

/// The text of every `extern "C" { ... }` block, and what is left.
fn take_extern_blocks(text: &str) -> (Vec<String>, String) {
    let mut blocks = Vec::new();
    let mut rest = String::new();
    let mut remaining = text;
    while let Some(start) = remaining.find("extern \"C\" {") {
        rest.push_str(&remaining[..start]);
        let open = start + remaining[start..].find('{').unwrap();
        let (body, end) = super::balanced(remaining, open, '{', '}');
        blocks.push(body);
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
    for block in &blocks {
        parse_extern_block(&mut decls, block);
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
