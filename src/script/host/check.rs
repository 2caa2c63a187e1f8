//! `skitter check` (every error in every mod, without running the world) and the API
//! surface the editor definitions are tested against.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::rc::Rc;

use mlua::{Lua, LuaOptions, Table, Value};

use super::load::mod_libs;
use super::ScriptHost;
use crate::script::api::{self, resolve_behaviour, ModCtx};
use crate::script::convert::LuaCurve;
use crate::script::error::{root_message, ScriptError};
use crate::script::manifest::Manifest;
use crate::script::shared::Shared;
use crate::script::source::{self, read_script, SourceError, BYTECODE_REFUSED};
use crate::sim::World;

/// Every function the Lua API registers, by name: globals (`world.spawn`, `vec3`, callable
/// tables such as `curve`), creature handle methods (`Creature:move`) and userdata methods
/// (`Curve:eval`, `Path:length`). Luau's own libraries are left out. The editor definitions
/// shipped in `defs/` are tested against this list.
pub fn api_surface() -> mlua::Result<BTreeSet<String>> {
    let plain = Lua::new_with(mod_libs(), LuaOptions::default())?;
    let builtin: BTreeSet<String> = plain
        .globals()
        .pairs::<String, Value>()
        .filter_map(|p| p.ok().map(|(k, _)| k))
        .collect();
    let lua = Lua::new_with(mod_libs(), LuaOptions::default())?;
    let ctx = Rc::new(ModCtx::new(
        "surface",
        BTreeMap::new(),
        Rc::new(RefCell::new(World::new(0))),
        Rc::new(RefCell::new(Shared::default())),
    ));
    api::install(&lua, ctx, 0)?;
    let mut out = BTreeSet::new();
    let methods = |t: &Table, prefix: &str, sep: &str, out: &mut BTreeSet<String>| {
        for (k, v) in t.pairs::<String, Value>().flatten() {
            if matches!(v, Value::Function(_)) && !k.starts_with("__") {
                out.insert(format!("{prefix}{sep}{k}"));
            }
        }
    };
    for (k, v) in lua.globals().pairs::<String, Value>().flatten() {
        if builtin.contains(&k) {
            continue;
        }
        match v {
            Value::Function(_) => {
                out.insert(k);
            }
            Value::Table(t) => {
                methods(&t, &k, ".", &mut out);
                if let Some(mt) = t.metatable() {
                    if matches!(mt.raw_get::<Value>("__call")?, Value::Function(_)) {
                        out.insert(k.clone());
                    }
                }
            }
            _ => {}
        }
    }
    methods(&api::handle_methods(&lua)?, "Creature", ":", &mut out);
    let curve = lua.create_userdata(LuaCurve(crate::math::Curve::Constant(0.0)))?;
    let path = api::sample_path_userdata(&lua)?;
    for (name, ud) in [("Curve", curve), ("Path", path)] {
        let mt = ud.metatable()?;
        if let Ok(Value::Table(t)) = mt.get::<Value>("__index") {
            methods(&t, name, ":", &mut out);
        }
    }
    Ok(out)
}

/// `skitter check`: every error in every mod.
impl ScriptHost {
    /// Loads `paths` as [`ScriptHost::load`] does, but a bad definition does not stop its
    /// script (each one is reported), and every script file of every mod is compiled, so
    /// syntax errors in files the entry never reaches show too. Returns every error.
    pub fn check(&mut self, paths: &[PathBuf]) -> Vec<ScriptError> {
        self.shared.borrow_mut().check_mode = true;
        self.load(paths);
        self.shared.borrow_mut().check_mode = false;
        let collected = std::mem::take(&mut self.shared.borrow_mut().check_errors);
        for (m, text) in collected {
            self.report(ScriptError::from_text(&m, &text));
        }
        self.check_default_behaviours();
        let known: Vec<Manifest> = self.known.values().cloned().collect();
        for m in known {
            // Scripts only: not the manifest, not `.d.luau` editor definitions.
            let mut files: Vec<PathBuf> = crate::script::watch::mod_files(&m.dir)
                .into_iter()
                .filter(|p| {
                    p.extension().is_some_and(|x| x == "lua" || x == "luau")
                        && !p.to_string_lossy().ends_with(".d.luau")
                })
                .collect();
            files.sort();
            let lua = Lua::new();
            for f in files {
                let rel = f.strip_prefix(&m.dir).unwrap_or(&f).display().to_string();
                let chunk = format!("{}/{}", m.name, rel);
                let src = match read_script(&f) {
                    Ok(src) => src,
                    Err(SourceError::Io(_)) => continue,
                    Err(e) => {
                        self.report(ScriptError::at(&m.name, chunk, e.to_string()));
                        continue;
                    }
                };
                if let Err(e) = source::chunk(&lua, src.as_bytes(), &chunk).into_function() {
                    let mut err = ScriptError::from_text(&m.name, &root_message(&e));
                    if source::is_binary_chunk_error(&e) {
                        err.message = BYTECODE_REFUSED.to_string();
                    }
                    err.location = err.location.or(Some(chunk));
                    self.report(err);
                }
            }
        }
        let mut errors = self.take_errors();
        // In source order: by mod, file and line (errors with no place first in their mod).
        errors.sort_by_key(|e| {
            let (file, line) = match e.location.as_deref().and_then(|l| l.rsplit_once(':')) {
                Some((f, n)) if n.parse::<u32>().is_ok() => (f.to_string(), n.parse().unwrap_or(0)),
                _ => (e.location.clone().unwrap_or_default(), 0),
            };
            (e.mod_name.clone(), file, line)
        });
        errors
    }

    /// A type's default `behaviour` that names no loaded behaviour, reported at its define
    /// (a run would report it only when the type is spawned).
    fn check_default_behaviours(&mut self) {
        let unresolved: Vec<ScriptError> = {
            let sh = self.shared.borrow();
            sh.types
                .iter()
                .filter_map(|(q, t)| {
                    let b = t.default_behaviour.as_ref()?;
                    let e = resolve_behaviour(&sh, &t.mod_name, b).err()?;
                    let at = t.defined_at.clone().unwrap_or_else(|| t.mod_name.clone());
                    Some(ScriptError::at(
                        &t.mod_name,
                        at,
                        format!("creature.define: {e} (the default behaviour of \"{q}\")"),
                    ))
                })
                .collect()
        };
        for e in unresolved {
            self.report(e);
        }
    }
}

/// What a loaded mod does, as `skitter check` prints it: what it defines, the files it loads,
/// what its load cost, and the budget it runs under.
#[derive(Clone, Debug, PartialEq)]
pub struct ModReport {
    /// The mod.
    pub name: String,
    /// Creature types it defines (qualified names).
    pub types: Vec<String>,
    /// Behaviours it defines.
    pub behaviours: Vec<String>,
    /// Files it loads besides scripts: (file in the mod, what it is).
    pub assets: Vec<(String, &'static str)>,
    /// Creatures its entry script spawned.
    pub spawns_at_load: usize,
    /// Level pieces (ground, boxes, stairs) it built.
    pub level_pieces: usize,
    /// Work units its entry script used.
    pub load_units: u64,
    /// Its Lua state's memory after the load, bytes.
    pub memory: usize,
    /// Work units a tick it may use (before its creatures' share), per creature it drives,
    /// and its memory limit in bytes.
    pub budget: (u64, u64, usize),
}

impl ScriptHost {
    /// What each loaded mod does, in load order.
    pub fn mod_reports(&self) -> Vec<ModReport> {
        let sh = self.shared.borrow();
        let world = self.world.borrow();
        self.mods
            .iter()
            .map(|m| {
                let name = &m.manifest.name;
                let mut assets: Vec<(String, &'static str)> = sh
                    .assets
                    .iter()
                    .filter(|(n, _, _)| n == name)
                    .map(|(_, f, k)| (f.clone(), *k))
                    .collect();
                assets.extend(
                    sh.path_files
                        .values()
                        .filter(|p| p.mod_name == *name)
                        .map(|p| (format!("paths/{}.toml", p.name), "path")),
                );
                ModReport {
                    name: name.clone(),
                    types: sh
                        .types
                        .iter()
                        .filter(|(_, t)| t.mod_name == *name)
                        .map(|(q, _)| q.clone())
                        .collect(),
                    behaviours: sh
                        .behaviours
                        .iter()
                        .filter(|(n, _)| n == name)
                        .map(|(_, b)| b.clone())
                        .collect(),
                    assets,
                    spawns_at_load: sh.load_spawns.iter().filter(|(n, _, _)| n == name).count(),
                    level_pieces: world.pieces_of(name),
                    load_units: m.load_cost.0,
                    memory: m.load_cost.1,
                    budget: (
                        self.opts.work_per_tick,
                        self.opts.work_per_creature,
                        self.opts.memory_limit,
                    ),
                }
            })
            .collect()
    }
}
