//! `require("./x")`, `require("x/y")` (inside the calling file's mod), `require("@dep/x")`:
//! modules load as source text from inside the allowed mod folders only, once each.

use std::path::{Component, Path, PathBuf};

use mlua::{Lua, Table, Value};

use super::context::{caller_location, ctx, located};
use super::registry;
use crate::script::source::{self, read_script, BYTECODE_REFUSED};

/// The folder and chunk-name prefix of the script that is calling (from its chunk name `mod/path`).
pub(super) fn calling_file(lua: &Lua) -> Option<(String, PathBuf)> {
    let loc = caller_location(lua)?;
    let file = loc.rsplit_once(':').map(|(f, _)| f.to_string())?;
    let (m, rel) = file.split_once('/')?;
    Some((m.to_string(), PathBuf::from(rel)))
}

/// Where `spec` leads from the calling file: (chunk name `mod/path.lua`, the file's
/// canonical path), refusing anything outside the allowed mod folders.
fn resolve(lua: &Lua, spec: &str) -> mlua::Result<(String, PathBuf)> {
    let c = ctx(lua)?;
    let (from_mod, from_file) =
        calling_file(lua).unwrap_or_else(|| (c.name.clone(), PathBuf::from("main.lua")));
    let (target_mod, rel): (String, PathBuf) = if let Some(rest) = spec.strip_prefix('@') {
        let (dep, path) = rest.split_once('/').ok_or_else(|| {
            located(
                lua,
                format!("require(\"{spec}\"): write it as \"@mod/module\""),
            )
        })?;
        let allowed = c
            .roots
            .get(&from_mod)
            .map(|(_, deps)| deps.contains(dep))
            .unwrap_or(false)
            || dep == from_mod;
        if !allowed || !c.roots.contains_key(dep) {
            return Err(located(
                lua,
                format!("require(\"{spec}\"): \"{dep}\" is not a dependency of mod \"{from_mod}\" (add it to depends in mod.toml)"),
            ));
        }
        (dep.to_string(), PathBuf::from(path))
    } else {
        let base = from_file
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let p = spec.strip_prefix("./").unwrap_or(spec);
        (from_mod.clone(), base.join(p))
    };
    if Path::new(spec).is_absolute() || spec.contains('\\') {
        return Err(located(lua, format!("require(\"{spec}\"): absolute paths are not allowed; require inside the mod or \"@dep/module\"")));
    }
    // Normalise, refusing to climb out of the mod folder.
    let mut parts: Vec<String> = Vec::new();
    for comp in rel.components() {
        match comp {
            Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::ParentDir => {
                if parts.pop().is_none() {
                    return Err(located(
                        lua,
                        format!("require(\"{spec}\"): the path leaves the mod folder"),
                    ));
                }
            }
            _ => {
                return Err(located(
                    lua,
                    format!("require(\"{spec}\"): absolute paths are not allowed"),
                ))
            }
        }
    }
    let (root, _) = c.roots.get(&target_mod).ok_or_else(|| {
        located(
            lua,
            format!("require(\"{spec}\"): unknown mod \"{target_mod}\""),
        )
    })?;
    let stem = parts.join("/");
    let mut found = None;
    for cand in [
        format!("{stem}.luau"),
        format!("{stem}.lua"),
        format!("{stem}/init.luau"),
        format!("{stem}/init.lua"),
    ] {
        let p = root.join(&cand);
        if p.is_file() {
            found = Some((cand, p));
            break;
        }
    }
    let (rel_name, path) = found.ok_or_else(|| {
        located(
            lua,
            format!("require(\"{spec}\"): no module {target_mod}/{stem}.lua or .luau"),
        )
    })?;
    // Symlinks must not lead outside either.
    let canon_root = root
        .canonicalize()
        .map_err(|e| located(lua, format!("require(\"{spec}\"): {e}")))?;
    let canon = path
        .canonicalize()
        .map_err(|e| located(lua, format!("require(\"{spec}\"): {e}")))?;
    if !canon.starts_with(&canon_root) {
        return Err(located(
            lua,
            format!("require(\"{spec}\"): the module resolves outside the mod folder"),
        ));
    }
    Ok((format!("{target_mod}/{rel_name}"), canon))
}

/// `require("./x")`, `require("x/y")` (inside the calling file's mod), `require("@dep/x")`.
pub(super) fn require(lua: &Lua, spec: String) -> mlua::Result<Value> {
    let (chunk, canon) = resolve(lua, &spec)?;
    // Code of another mod now runs in this one: a reload of that mod reloads this one too.
    if let Some((from, _)) = chunk.split_once('/') {
        let c = ctx(lua)?;
        if from != c.name {
            c.shared
                .borrow_mut()
                .required
                .insert((c.name.clone(), from.to_string()));
        }
    }
    let modules: Table = registry::modules(lua)?;
    match modules.raw_get::<Value>(chunk.as_str())? {
        Value::Nil => {}
        Value::Boolean(false) => {
            return Err(located(
                lua,
                format!("require(\"{spec}\"): require cycle through {chunk}"),
            ))
        }
        v => return Ok(v),
    }
    let src = read_script(&canon).map_err(|e| {
        located(
            lua,
            format!("require(\"{spec}\"): cannot read {chunk}: {e}"),
        )
    })?;
    modules.raw_set(chunk.as_str(), false)?;
    let result = source::chunk(lua, src.as_bytes(), &chunk).call::<Value>(());
    let value = match result {
        Ok(Value::Nil) => Value::Boolean(true),
        Ok(v) => v,
        Err(e) => {
            modules.raw_set(chunk.as_str(), Value::Nil)?;
            if source::is_binary_chunk_error(&e) {
                return Err(located(
                    lua,
                    format!("require(\"{spec}\"): {chunk}: {BYTECODE_REFUSED}"),
                ));
            }
            return Err(e);
        }
    };
    modules.raw_set(chunk.as_str(), value.clone())?;
    Ok(value)
}
