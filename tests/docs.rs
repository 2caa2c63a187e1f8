//! Docs that travel with the program (issue 45, item 7): the API reference is generated
//! from `defs/skitter.lua` (which `tests/editor_defs.rs` holds to what the runtime
//! registers), so it cannot drift; the debug layers are one list that the help, the error,
//! the README and the docs agree on; `mod.toml`'s keys are all documented; README and docs
//! point only at files a user has.
//!
//! `SKITTER_BLESS=1 cargo test --test docs` rewrites the generated part of `docs/api.md`.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test set-up: a failure is a failed test

mod common;
use common::*;

const BEGIN: &str =
    "<!-- generated from defs/skitter.lua by tests/docs.rs: do not edit by hand -->";
const END: &str = "<!-- end of the generated part -->";

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// One declared function: how a script calls it, its description, its parameters and
/// returns (name or type, what).
struct Decl {
    call: String,
    about: Vec<String>,
    params: Vec<(String, String)>,
    returns: Vec<String>,
}

/// How a script writes a declared name: `Creature:move` → `c:move`, `Path:point` →
/// `p:point`, `Curve:eval` → `curve_value:eval`; others as declared.
fn script_name(declared: &str) -> String {
    for (class, var) in [("Creature:", "c:"), ("Path:", "p:"), ("Curve:", "k:")] {
        if let Some(m) = declared.strip_prefix(class) {
            return format!("{var}{m}");
        }
    }
    declared.to_string()
}

/// The declarations of a LuaLS meta file, in file order.
fn declarations(src: &str) -> Vec<Decl> {
    let mut out = Vec::new();
    let (mut about, mut params, mut returns) = (Vec::new(), Vec::new(), Vec::new());
    for line in src.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("---@param ") {
            let mut it = rest.splitn(2, ' ');
            let name = it.next().unwrap_or("").to_string();
            params.push((name, it.next().unwrap_or("").trim().to_string()));
        } else if let Some(rest) = t.strip_prefix("---@return ") {
            returns.push(rest.trim().to_string());
        } else if t.starts_with("---@") {
            continue;
        } else if let Some(rest) = t.strip_prefix("--- ") {
            about.push(rest.to_string());
        } else if let Some(rest) = t.strip_prefix("function ") {
            let name = rest.split('(').next().unwrap().trim();
            let args: Vec<String> = params
                .iter()
                .map(|(n, ty): &(String, String)| {
                    let optional = n.ends_with('?')
                        || ty
                            .split_whitespace()
                            .next()
                            .is_some_and(|t| t.ends_with('?'));
                    let n = n.trim_end_matches('?');
                    if optional && n != "..." {
                        format!("{n}?")
                    } else {
                        n.to_string()
                    }
                })
                .collect();
            out.push(Decl {
                call: format!("{}({})", script_name(name), args.join(", ")),
                about: std::mem::take(&mut about),
                params: std::mem::take(&mut params),
                returns: std::mem::take(&mut returns),
            });
        } else {
            about.clear();
            params.clear();
            returns.clear();
        }
    }
    out
}

/// The section a declaration goes under.
fn section(call: &str) -> &'static str {
    match call.split(['.', ':', '(']).next().unwrap() {
        "c" => "Creature handles (`c`)",
        "world" => "The world",
        "p" | "path" => "Paths",
        "camera" => "The camera",
        "creature" | "behaviour" => "Definitions",
        "k" | "curve" | "vec3" => "Values",
        _ => "Logging",
    }
}

/// The reference part of `docs/api.md`, from `defs/skitter.lua`.
fn reference(defs: &str) -> String {
    let decls = declarations(defs);
    let order = [
        "Definitions",
        "The world",
        "Creature handles (`c`)",
        "Paths",
        "The camera",
        "Values",
        "Logging",
    ];
    let mut out = String::new();
    for s in order {
        out.push_str(&format!("\n### {s}\n\n"));
        for d in decls.iter().filter(|d| section(&d.call) == s) {
            out.push_str(&format!("- `{}`", d.call));
            if !d.about.is_empty() {
                out.push_str(&format!(" — {}", d.about.join(" ")));
            }
            out.push('\n');
            for (n, ty) in &d.params {
                out.push_str(&format!("  - `{}`: {}\n", n.trim_end_matches('?'), ty));
            }
            for r in &d.returns {
                out.push_str(&format!("  - returns {r}\n"));
            }
        }
    }
    out
}

#[test]
fn the_api_reference_is_generated_from_the_definitions() {
    let defs = read("defs/skitter.lua");
    let want = reference(&defs);
    let path = root().join("docs/api.md");
    let doc = read("docs/api.md");
    let (head, rest) = doc
        .split_once(BEGIN)
        .expect("docs/api.md has the generated part");
    let (got, tail) = rest.split_once(END).expect("and its end");
    if got != want {
        if std::env::var_os("SKITTER_BLESS").is_some() {
            std::fs::write(&path, format!("{head}{BEGIN}{want}{END}{tail}")).expect("write");
        } else {
            panic!(
                "docs/api.md's reference is not what defs/skitter.lua says: run \
                 SKITTER_BLESS=1 cargo test --test docs"
            );
        }
    }
    // Every call in it: as many as the definitions declare, which are what the runtime
    // registers (tests/editor_defs.rs).
    let surface = skitter::script::api_surface().expect("surface");
    let listed = want.lines().filter(|l| l.starts_with("- `")).count();
    assert!(
        listed >= surface.len() - 2,
        "{listed} calls for {} names",
        surface.len()
    );
}

#[test]
fn the_level_tables_fields_are_each_explained() {
    let doc = read("docs/api.md");
    let defs = read("defs/skitter.lua");
    for table in ["world.ground", "world.box", "world.stairs", "world.link"] {
        let line = defs
            .lines()
            .zip(defs.lines().skip(1))
            .find(|(_, f)| f.starts_with(&format!("function {table}(")))
            .map(|(p, _)| p)
            .expect("declared");
        let fields: Vec<&str> = line
            .split(['{', ',', '}'])
            .filter_map(|f| f.split(':').next())
            .map(|f| f.trim().trim_end_matches('?'))
            .filter(|f| {
                !f.is_empty()
                    && !f.starts_with("---")
                    && f.chars().all(|c| c.is_ascii_lowercase() || c == '_')
            })
            .collect();
        assert!(fields.len() >= 3, "{table}: {fields:?}");
        for f in fields {
            let row = format!("| `{table}` | `{f}` |");
            assert!(doc.contains(&row), "docs/api.md has no row {row}");
        }
    }
}

#[test]
fn the_debug_layers_are_one_list() {
    let readme = read("README.md");
    let help = text(&skitter(&["run", "--help"]));
    let err = text(&skitter(&[
        "run",
        "--headless",
        "--frames",
        "1",
        "--debug",
        "nosuch",
    ]));
    let err = if err.contains("unknown debug layer") {
        err
    } else {
        // Headless runs do not draw: the screenshot path reads the layers.
        text(&skitter(&[
            "run",
            "--screenshot",
            "/nonexistent/x.png",
            "--frames",
            "1",
            "--debug",
            "nosuch",
        ]))
    };
    assert!(err.contains("unknown debug layer \"nosuch\""), "{err}");
    for (name, key, what) in skitter::render::DEBUG_LAYERS {
        let row = format!("| `{name}` | `{key}` | {what} |");
        assert!(readme.contains(&row), "README has no row {row}");
        assert!(help.contains(name), "--help does not name {name}: {help}");
        assert!(err.contains(name), "the error does not name {name}: {err}");
    }
    let rows = readme.lines().filter(|l| {
        skitter::render::DEBUG_LAYERS
            .iter()
            .any(|(n, _, _)| l.starts_with(&format!("| `{n}` |")))
    });
    assert_eq!(rows.count(), skitter::render::DEBUG_LAYERS.len());
    let notes = read("docs/lua-api-notes.md");
    assert!(notes.contains("README.md#debug-layers") || notes.contains("Debug layers"));
}

#[test]
fn every_mod_toml_key_is_documented() {
    let doc = read("docs/api.md");
    for key in skitter::script::MANIFEST_KEYS {
        let row = format!("| `{key}` |");
        assert!(doc.contains(&row), "docs/api.md has no mod.toml row {row}");
    }
}

#[test]
fn readme_and_docs_point_only_at_files_a_user_has() {
    let mut texts = vec![("README.md".to_string(), read("README.md"))];
    for e in std::fs::read_dir(root().join("docs")).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "md") {
            texts.push((
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            ));
        }
    }
    for (name, t) in texts {
        assert!(
            !t.contains("../shared"),
            "{name} points outside the repository (../shared)"
        );
        // Every `docs/…` or `defs/…` path it names exists.
        for word in t.split(|c: char| c == '`' || c == '(' || c == ')' || c.is_whitespace()) {
            let w = word.trim_end_matches(['.', ',', ':', ';']);
            if (w.starts_with("docs/") || w.starts_with("defs/")) && !w.contains('*') {
                let path = w.split('#').next().unwrap();
                assert!(
                    root().join(path).exists(),
                    "{name} names {path}, which is not there"
                );
            }
        }
    }
}
