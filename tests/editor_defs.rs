//! The editor definitions shipped in `defs/` (luau-lsp `.d.luau` and LuaLS `---@meta`)
//! declare exactly the functions the runtime registers: none missing, none extra.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test set-up: a failure is a failed test

use std::collections::BTreeSet;
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
