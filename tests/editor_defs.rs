//! The editor definitions shipped in `defs/` (luau-lsp `.d.luau` and LuaLS `---@meta`)
//! declare exactly the functions the runtime registers: none missing, none extra.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test set-up: a failure is a failed test

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

fn read(name: &str) -> String {
    std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("defs")
            .join(name),
    )
    .expect("defs file")
}

/// Names declared in a luau-lsp definition file: `declare function f`, `declare class C`
/// methods (`C:m`), `declare t: { k: ... }` fields (`t.k`), and `declare t: {...} & ((...)`
/// (a callable table: `t`).
fn luau_names(src: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut class: Option<String> = None;
    let mut table: Option<String> = None;
    for line in src.lines() {
        let t = line.trim();
        if t.starts_with("--") {
            continue;
        }
        if let Some(rest) = t.strip_prefix("declare function ") {
            out.insert(rest.split('(').next().unwrap().trim().to_string());
        } else if let Some(rest) = t.strip_prefix("declare class ") {
            class = Some(rest.split_whitespace().next().unwrap().to_string());
        } else if let Some(rest) = t.strip_prefix("declare ") {
            let name = rest.split(':').next().unwrap().trim().to_string();
            if t.ends_with('{') {
                table = Some(name);
            }
        } else if t == "end" {
            class = None;
        } else if t.starts_with('}') {
            if let Some(n) = table.take() {
                if t.contains("& ((") {
                    out.insert(n);
                }
            }
        } else if let (Some(c), Some(rest)) = (&class, t.strip_prefix("function ")) {
            out.insert(format!("{c}:{}", rest.split('(').next().unwrap().trim()));
        } else if let Some(n) = &table {
            if let Some((k, v)) = t.split_once(':') {
                if v.trim_start().starts_with('(') {
                    out.insert(format!("{n}.{}", k.trim()));
                }
            }
        }
    }
    out
}

/// Names declared in a LuaLS meta file: `function f`, `function t.f`, `function C:m`, and a
/// table with a call overload (`---@overload fun(` in the class block before `t = {}`).
fn luals_names(src: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut overload = false;
    for line in src.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("function ") {
            out.insert(rest.split('(').next().unwrap().trim().to_string());
            overload = false;
        } else if t.starts_with("---@overload fun(") {
            overload = true;
        } else if let Some(name) = t.strip_suffix(" = {}") {
            if overload && !name.starts_with("local ") {
                out.insert(name.to_string());
            }
            overload = false;
        } else if !t.starts_with("---") {
            overload = false;
        }
    }
    // Local class tables (`local Curve = {}`) only carry methods.
    out
}

#[test]
fn the_definitions_match_what_the_runtime_registers() {
    let runtime = skitter::script::api_surface().expect("surface");
    assert!(runtime.len() > 40, "{runtime:?}");
    for (file, declared) in [
        ("skitter.d.luau", luau_names(&read("skitter.d.luau"))),
        ("skitter.lua", luals_names(&read("skitter.lua"))),
    ] {
        let missing: Vec<_> = runtime.difference(&declared).collect();
        let extra: Vec<_> = declared.difference(&runtime).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "defs/{file}: missing {missing:?}, not in the runtime {extra:?}"
        );
    }
}

/// The parameter list after `name` in `text` (from the `(` after it to its match), split
/// at top-level commas: `(param name, optional)`, `self` left out.
fn params_after(text: &str, open: usize) -> Vec<(String, bool)> {
    let bytes = text.as_bytes();
    let (mut depth, mut end) = (0i32, open);
    for (i, b) in bytes.iter().enumerate().skip(open) {
        match b {
            b'(' | b'{' | b'[' => depth += 1,
            b')' | b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    end = i;
                    break;
                }
            }
            _ => {}
        }
    }
    let inner = &text[open + 1..end];
    let mut parts = Vec::new();
    let (mut d, mut start) = (0i32, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '(' | '{' | '[' => d += 1,
            ')' | '}' | ']' => d -= 1,
            ',' if d == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty() && *p != "self")
        .map(|p| {
            let (name, ty) = p.split_once(':').unwrap_or((p, ""));
            let name = name.trim();
            let optional = name.ends_with('?') || ty.trim().ends_with('?');
            (name.trim_end_matches('?').to_string(), optional)
        })
        .collect()
}

/// Parameter lists declared in the luau-lsp file, by the names `luau_names` gives.
fn luau_params(src: &str) -> BTreeMap<String, Vec<(String, bool)>> {
    let mut out = BTreeMap::new();
    let mut class: Option<String> = None;
    let mut table: Option<String> = None;
    for line in src.lines() {
        let t = line.trim();
        let at = line.len() - line.trim_start().len();
        let find = |key: &str| line[at..].find(key).map(|i| at + i);
        if let Some(rest) = t.strip_prefix("declare function ") {
            let name = rest.split('(').next().unwrap().trim().to_string();
            out.insert(name, params_after(line, find("(").unwrap()));
        } else if let Some(rest) = t.strip_prefix("declare class ") {
            class = Some(rest.split_whitespace().next().unwrap().to_string());
        } else if let Some(rest) = t.strip_prefix("declare ") {
            if t.ends_with('{') {
                table = Some(rest.split(':').next().unwrap().trim().to_string());
            }
        } else if t == "end" {
            class = None;
        } else if t.starts_with('}') {
            table = None;
        } else if let (Some(c), Some(rest)) = (&class, t.strip_prefix("function ")) {
            let name = rest.split('(').next().unwrap().trim();
            out.insert(
                format!("{c}:{name}"),
                params_after(line, find("(").unwrap()),
            );
        } else if let Some(n) = &table {
            if let Some((k, v)) = t.split_once(':') {
                if v.trim_start().starts_with('(') {
                    let open = line.find(':').unwrap()
                        + line[line.find(':').unwrap()..].find('(').unwrap();
                    out.insert(format!("{n}.{}", k.trim()), params_after(line, open));
                }
            }
        }
    }
    out
}

/// Parameter lists declared in the LuaLS file: `---@param name[?] type[?]` lines, then
/// `function name(a, b) end`.
fn luals_params(src: &str) -> BTreeMap<String, Vec<(String, bool)>> {
    let mut out = BTreeMap::new();
    let mut optional: BTreeMap<String, bool> = BTreeMap::new();
    for line in src.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("---@param ") {
            let mut it = rest.splitn(2, ' ');
            let name = it.next().unwrap_or("");
            let ty = it.next().unwrap_or("").split("--").next().unwrap_or("");
            let ty = ty.split_whitespace().next().unwrap_or("");
            optional.insert(
                name.trim_end_matches('?').to_string(),
                name.ends_with('?') || ty.ends_with('?'),
            );
        } else if let Some(rest) = t.strip_prefix("function ") {
            let name = rest.split('(').next().unwrap().trim().to_string();
            let args = rest.split_once('(').unwrap().1.split(')').next().unwrap();
            let list = args
                .split(',')
                .map(str::trim)
                .filter(|a| !a.is_empty() && *a != "...")
                .map(|a| (a.to_string(), optional.get(a).copied().unwrap_or(false)))
                .collect();
            out.insert(name, list);
            optional.clear();
        } else if !t.starts_with("---") {
            optional.clear();
        }
    }
    out
}

#[test]
fn the_definitions_agree_on_which_parameters_are_optional() {
    let runtime = skitter::script::api_signatures();
    for (file, declared) in [
        ("skitter.d.luau", luau_params(&read("skitter.d.luau"))),
        ("skitter.lua", luals_params(&read("skitter.lua"))),
    ] {
        let mut wrong = Vec::new();
        let mut compared = 0;
        for (name, params) in &runtime {
            let Some(params) = params else { continue };
            let Some(decl) = declared.get(name) else {
                continue;
            };
            compared += 1;
            let want: Vec<bool> = params.iter().map(|p| p.1).collect();
            let got: Vec<bool> = decl.iter().map(|p| p.1).collect();
            if want != got {
                wrong.push(format!("{name}: runtime {params:?}, declared {decl:?}"));
            }
        }
        assert!(
            compared > 35,
            "defs/{file}: only {compared} functions compared"
        );
        assert!(wrong.is_empty(), "defs/{file}:\n{}", wrong.join("\n"));
    }
}

#[test]
fn the_luals_file_is_valid_lua() {
    let lua = mlua::Lua::new();
    lua.load(read("skitter.lua"))
        .set_name("=defs/skitter.lua")
        .into_function()
        .expect("defs/skitter.lua parses");
}

#[test]
fn the_parsers_see_each_kind_of_declaration() {
    let luau = luau_names(
        "declare function f(x: number): ()\ndeclare class C\n\tfunction m(self): ()\nend\ndeclare t: {\n\tk: () -> (),\n} & ((x: number) -> C)\n",
    );
    assert_eq!(
        luau,
        ["C:m", "f", "t", "t.k"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    );
    let luals = luals_names(
        "function f(x) end\nfunction C:m() end\n---@class L\n---@overload fun(x: number): C\nt = {}\nfunction t.k() end\n",
    );
    assert_eq!(
        luals,
        ["C:m", "f", "t", "t.k"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    );
}

#[test]
fn the_parameter_parsers_see_optional_parameters() {
    let luau = luau_params(
        "declare class C\n\tfunction m(self, a: number, b: { x: number? }?): ()\nend\ndeclare t: {\n\tk: (p: vector, q: number?) -> (),\n}\n",
    );
    let flags = |v: &Vec<(String, bool)>| v.iter().map(|p| p.1).collect::<Vec<_>>();
    assert_eq!(flags(&luau["C:m"]), [false, true]);
    assert_eq!(flags(&luau["t.k"]), [false, true]);
    let luals = luals_params(
        "---@param a number\n---@param b? table\n---@param c number?\nfunction t.f(a, b, c) end\n",
    );
    assert_eq!(flags(&luals["t.f"]), [false, true, true]);
}
