//! One spelling for a type from either language: a C declaration is first written as the Rust
//! type it must be declared as (`const char* const*` -> `*const *const c_char`), then both are
//! reduced the same way (no paths, no parameter names, no `unsafe extern "C"`, single spaces).

/// The Rust spelling of the C scalar |name| (typedef names stay as they are).
fn rust_scalar(name: &str, pointed_to: bool) -> String {
    let mapped = match name {
        "void" if pointed_to => "c_void",
        "void" => "()",
        "char" => "c_char",
        "int" => "c_int",
        "size_t" => "usize",
        "int8_t" => "i8",
        "uint8_t" => "u8",
        "int16_t" => "i16",
        "uint16_t" => "u16",
        "int32_t" => "i32",
        "uint32_t" => "u32",
        "int64_t" => "i64",
        "uint64_t" => "u64",
        "float" => "f32",
        "double" => "f64",
        other => other,
    };
    mapped.to_string()
}

fn is_identifier(token: &str) -> bool {
    token.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !token.is_empty()
}

/// Words and stars of a C declaration.
fn c_tokens(decl: &str) -> Vec<String> {
    decl.replace('*', " * ").split_whitespace().map(str::to_string).collect()
}

/// The Rust type a C type (no declarator name) must be declared as.
pub fn c_type_to_rust(c_type: &str) -> String {
    if c_type.contains("(*") {
        return c_function_pointer(c_type).1;
    }
    // qualifiers[k]: whether what k stars point through is const (0: the base type).
    let mut qualifiers = vec![false];
    let mut base = Vec::new();
    for token in c_tokens(c_type) {
        match token.as_str() {
            "*" => qualifiers.push(false),
            "const" => *qualifiers.last_mut().unwrap() = true,
            "struct" | "enum" => {}
            word if qualifiers.len() == 1 => base.push(word.to_string()),
            word => panic!("unexpected '{}' after a '*' in C type '{}'", word, c_type),
        }
    }
    let mut rust = rust_scalar(&base.join(" "), qualifiers.len() > 1);
    for is_const in &qualifiers[..qualifiers.len() - 1] {
        rust = format!("{} {}", if *is_const { "*const" } else { "*mut" }, rust);
    }
    rust
}

/// (name, Rust type) of a C declaration `RET (*name)(PARAMS)`.
fn c_function_pointer(decl: &str) -> (String, String) {
    let star = decl.find("(*").unwrap();
    let close = star + decl[star..].find(')').unwrap();
    let name = decl[star + 2..close].trim().to_string();
    let open = close + decl[close..].find('(').unwrap();
    let (params, _) = super::balanced(decl, open, '(', ')');
    let params: Vec<String> = c_params(&params).into_iter().map(|(_, ty)| ty).collect();
    let ret = c_type_to_rust(&decl[..star]);
    let ret = if ret == "()" { String::new() } else { format!(" RETURNS {}", ret) };
    (name, format!("Option<fn({}){}>", params.join(", "), ret))
}

/// (name, Rust type) of one C parameter or field declaration (`const char* name`).
pub fn c_declaration(decl: &str) -> (String, String) {
    if decl.contains("(*") {
        return c_function_pointer(decl);
    }
    let tokens = c_tokens(decl);
    let last = tokens.last().cloned().unwrap_or_default();
    let base_words = tokens.iter().filter(|t| is_identifier(t) && !matches!(t.as_str(), "const" | "struct")).count();
    if is_identifier(&last) && base_words >= 2 {
        let type_part = decl[..decl.rfind(&last).unwrap()].to_string();
        (last, c_type_to_rust(&type_part))
    } else {
        (String::new(), c_type_to_rust(decl))
    }
}

/// The parameters of a C parameter list (`void` or empty: none).
pub fn c_params(list: &str) -> Vec<(String, String)> {
    let list = list.trim();
    if list.is_empty() || list == "void" {
        return Vec::new();
    }
    super::split_top_level(list, ',').iter().map(|p| c_declaration(p)).collect()
}

/// The canonical spelling of a Rust type.
pub fn canonical(rust_type: &str) -> String {
    let text = rust_type
        .replace("->", " RETURNS ")
        .replace("unsafe", " ")
        .replace("extern \"C\"", " ")
        .replace("std::ffi::", "")
        .replace("std::os::raw::", "")
        .replace("crate::", "");
    let mut tokens: Vec<String> = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            tokens.push(std::mem::take(&mut word));
        }
        if !c.is_whitespace() {
            tokens.push(c.to_string());
        }
    }
    if !word.is_empty() {
        tokens.push(word);
    }
    // Parameter names inside fn types (`name :`) and trailing commas go.
    let mut kept: Vec<String> = Vec::new();
    for token in tokens {
        if token == ":" {
            kept.pop();
            continue;
        }
        if (token == ")" || token == ">") && kept.last().map_or(false, |t| t == ",") {
            kept.pop();
        }
        kept.push(token);
    }
    kept.join(" ")
}
