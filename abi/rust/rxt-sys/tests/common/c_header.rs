//! rxt.h's declarations, read from its text: `RXT_API` prototypes, enum, struct, function-
//! pointer and opaque typedefs, and `#define`d numbers. The header is plain C99 written to one
//! style (docs/abi.md), which is all this reader handles; anything else it meets is an error.
use std::collections::{BTreeMap, BTreeSet};

use super::types::{c_declaration, c_params, canonical};

/// A function: canonical types of its parameters (name, type) and of its result.
#[derive(Debug)]
pub struct Function {
    pub params: Vec<(String, String)>,
    pub result: String,
}

#[derive(Debug, Default)]
pub struct Header {
    pub functions: BTreeMap<String, Function>,
    /// Enum typedef name -> its constants and values.
    pub enums: BTreeMap<String, Vec<(String, i64)>>,
    /// Struct typedef name -> fields (name, canonical type), in order.
    pub structs: BTreeMap<String, Vec<(String, String)>>,
    /// Typedefs of function pointers and of pointers: name -> canonical type.
    pub aliases: BTreeMap<String, String>,
    /// Typedefs of incomplete structs (the handles).
    pub opaque: BTreeSet<String>,
    /// `#define NAME <integer>`.
    pub numbers: BTreeMap<String, i64>,
}

/// Drops comments, `#...` lines (keeping integer #defines) and the `#ifdef __cplusplus` blocks.
fn strip(text: &str, numbers: &mut BTreeMap<String, i64>) -> String {
    let mut without_comments = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("/*") {
        without_comments.push_str(&rest[..start]);
        let end = rest[start..].find("*/").expect("an unterminated comment") + start + 2;
        rest = &rest[end..];
    }
    without_comments.push_str(rest);
    let mut kept = String::new();
    let mut in_cplusplus = false;
    for line in without_comments.lines() {
        let line = line.split("//").next().unwrap();
        let trimmed = line.trim();
        if trimmed.starts_with("#ifdef __cplusplus") {
            in_cplusplus = true;
        } else if in_cplusplus {
            in_cplusplus = !trimmed.starts_with("#endif");
        } else if let Some(define) = trimmed.strip_prefix("#define ") {
            let mut words = define.split_whitespace();
            if let (Some(name), Some(value)) = (words.next(), words.next()) {
                if let Ok(value) = value.parse() {
                    numbers.insert(name.to_string(), value);
                }
            }
        } else if !trimmed.starts_with('#') {
            kept.push_str(line);
            kept.push('\n');
        }
    }
    kept
}

/// Statements ending in `;` outside braces.
fn statements(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if c == ';' && depth == 0 {
            out.push(current.split_whitespace().collect::<Vec<_>>().join(" "));
            current.clear();
        } else {
            current.push(c);
        }
    }
    assert!(current.trim().is_empty(), "text after the last statement: {}", current.trim());
    out
}

fn parse_function(header: &mut Header, statement: &str) {
    let declaration = statement.trim_start_matches("RXT_API").trim();
    let open = declaration.find('(').expect("a prototype");
    let (params, end) = super::balanced(declaration, open, '(', ')');
    assert!(declaration[end..].trim().is_empty(), "unexpected text after {}", declaration);
    let (name, result) = c_declaration(&declaration[..open]);
    let params = c_params(&params).into_iter().map(|(n, ty)| (n, canonical(&ty))).collect();
    header.functions.insert(name, Function { params, result: canonical(&result) });
}

fn parse_typedef(header: &mut Header, statement: &str) {
    let body_start = statement.find('{');
    if statement.starts_with("typedef enum") {
        let (body, end) = super::balanced(statement, body_start.unwrap(), '{', '}');
        let mut constants = Vec::new();
        for item in super::split_top_level(&body, ',') {
            let (name, value) = item.split_once('=').expect("enum constants have explicit values");
            constants.push((name.trim().to_string(), value.trim().parse().expect("an integer")));
        }
        header.enums.insert(statement[end..].trim().to_string(), constants);
    } else if statement.starts_with("typedef struct") && body_start.is_some() {
        let (body, end) = super::balanced(statement, body_start.unwrap(), '{', '}');
        let fields = super::split_top_level(&body, ';')
            .iter()
            .map(|field| {
                let (name, ty) = c_declaration(field);
                (name, canonical(&ty))
            })
            .collect();
        header.structs.insert(statement[end..].trim().to_string(), fields);
    } else if statement.contains("(*") {
        let (name, ty) = c_declaration(statement.trim_start_matches("typedef"));
        header.aliases.insert(name, canonical(&ty));
    } else {
        // typedef struct X_s NAME;  or  typedef struct X_s* NAME;
        let (name, ty) = c_declaration(statement.trim_start_matches("typedef"));
        if ty.starts_with('*') {
            header.aliases.insert(name, canonical(&ty));
        } else {
            header.opaque.insert(name);
        }
    }
}

pub fn parse(text: &str) -> Header {
    let mut header = Header::default();
    let text = strip(text, &mut header.numbers);
    for statement in statements(&text) {
        if statement.starts_with("RXT_API") {
            parse_function(&mut header, &statement);
        } else if statement.starts_with("typedef") {
            parse_typedef(&mut header, &statement);
        } else if statement.starts_with("struct ") && !statement.contains('{') {
            // a forward declaration (struct rxt_ir_api_s;)
        } else {
            panic!("rxt.h: a statement this reader does not know: {}", statement);
        }
    }
    header
}
