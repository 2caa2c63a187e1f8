//! Loading: discovery, manifests, load order, fresh sandboxed states, and the transaction
//! every load and reload runs in.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::rc::Rc;

use mlua::{Lua, LuaOptions, StdLib};

use super::{ModRuntime, ScriptHost};
use crate::script::api::{self, ModCtx, Roots};
use crate::script::budget::Budget;
use crate::script::error::ScriptError;
use crate::script::manifest::{load_order, Manifest};
use crate::script::shared::{LogLevel, LogLine};
use crate::script::source::{self, read_script, SourceError, BYTECODE_REFUSED};

/// The Luau libraries a mod's state opens (no `io`, no `debug`, no `package`).
pub(super) fn mod_libs() -> StdLib {
    StdLib::COROUTINE
        | StdLib::TABLE
        | StdLib::STRING
        | StdLib::UTF8
        | StdLib::BIT
        | StdLib::MATH
        | StdLib::BUFFER
        | StdLib::VECTOR
        | StdLib::OS
}

/// The mod folders (with a `mod.toml`) one level down in `dir`, sorted.
pub(super) fn mod_folders_in(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|d| d.join("mod.toml").is_file())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

/// Expands each path: a folder with `mod.toml` is a mod; a `.zip` is a package (checked and
/// unpacked, see `script::package`; files over `max_file` bytes refused); any other folder is
/// searched one level down for mod folders (so `scripts/` means every bundled mod).
/// Returns the mod folders, the errors, and the package each unpacked folder came from.
pub fn discover(
    paths: &[PathBuf],
    max_file: u64,
) -> (Vec<PathBuf>, Vec<String>, Vec<(PathBuf, PathBuf)>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let mut packages = Vec::new();
    for p in paths {
        if p.is_file() && p.extension().is_some_and(|x| x.eq_ignore_ascii_case("zip")) {
            match crate::script::package::open(p, max_file) {
                Ok(dir) => {
                    packages.push((dir.clone(), p.clone()));
                    out.push(dir);
                }
                Err(e) => errors.push(e.to_string()),
            }
        } else if p.join("mod.toml").is_file() {
            out.push(p.clone());
        } else if p.is_dir() {
            let found = mod_folders_in(p);
            if found.is_empty() {
                errors.push(format!(
                    "{}: no mod.toml here (a mod is a folder with a mod.toml)",
                    p.display()
                ));
            }
            out.extend(found);
        } else {
            errors.push(format!("{}: no such mod folder", p.display()));
        }
    }
    (out, errors, packages)
}

impl ScriptHost {
    /// Loads every mod found under `paths` in dependency order. Failures are recorded (see
    /// [`ScriptHost::take_errors`]); the mods that loaded keep running.
    pub fn load(&mut self, paths: &[PathBuf]) {
        self.finish_migration();
        let (dirs, errs, packages) = discover(paths, self.opts.max_asset_bytes);
        self.packages.extend(packages);
        for e in errs {
            self.report(ScriptError::in_mod("", e));
        }
        let mut manifests = Vec::new();
        for d in dirs {
            match Manifest::load(&d) {
                Ok(m) => {
                    let mut sh = self.shared.borrow_mut();
                    for w in &m.warnings {
                        sh.logs.push(LogLine {
                            mod_name: m.name.clone(),
                            level: LogLevel::Warn,
                            text: format!("{}/mod.toml: {w}", m.name),
                        });
                    }
                    drop(sh);
                    self.known.insert(m.name.clone(), m.clone());
                    manifests.push(m)
                }
                Err(e) => {
                    let name = d
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    self.report(ScriptError::in_mod(&name, e.to_string()));
                }
            }
        }
        let looked = self.find_dependencies(&mut manifests, paths);
        let (order, errs) = load_order(manifests, &|name| looked.why_missing(name));
        for (m, e) in errs {
            self.report(ScriptError::in_mod(&m, e));
        }
        let all: BTreeMap<String, Manifest> =
            order.iter().map(|m| (m.name.clone(), m.clone())).collect();
        let mut failed: BTreeSet<String> = BTreeSet::new();
        for m in order {
            if let Some(dep) = m.depends.iter().find(|d| failed.contains(&d.name)) {
                self.report(ScriptError::in_mod(
                    &m.name,
                    format!("not loaded: its dependency \"{}\" failed to load", dep.name),
                ));
                failed.insert(m.name.clone());
                continue;
            }
            if let Err(e) = self.load_mod(&m, &all) {
                self.broken.insert(m.name.clone(), e.clone());
                self.report(e);
                failed.insert(m.name.clone());
            }
        }
        self.apply_brain_requests();
        self.world.borrow_mut().prebake();
    }

    /// The folders mod `m` may `require` from: its own and its dependencies', transitively.
    fn roots_for(m: &Manifest, all: &BTreeMap<String, Manifest>) -> Roots {
        let mut roots = BTreeMap::new();
        let mut todo = vec![m.name.clone()];
        while let Some(n) = todo.pop() {
            if roots.contains_key(&n) {
                continue;
            }
            let Some(mm) = all.get(&n) else { continue };
            let deps: BTreeSet<String> = mm
                .depends
                .iter()
                .filter(|d| all.contains_key(&d.name))
                .map(|d| d.name.clone())
                .collect();
            todo.extend(deps.iter().cloned());
            roots.insert(n, (mm.dir.clone(), deps));
        }
        roots
    }

    /// A fresh sandboxed state for `m` with the API installed, its budget and memory cap set.
    pub(super) fn new_state(
        &self,
        m: &Manifest,
        all: &BTreeMap<String, Manifest>,
    ) -> mlua::Result<(Lua, Rc<Budget>)> {
        let lua = Lua::new_with(mod_libs(), LuaOptions::default())?;
        let budget = Rc::new(Budget::new(
            self.opts.work_at_load,
            self.opts.cpu_at_load,
            self.opts.memory_limit,
        ));
        let ctx = Rc::new(ModCtx::new(
            &m.name,
            Self::roots_for(m, all),
            self.world.clone(),
            self.shared.clone(),
        ));
        api::install(&lua, ctx, self.opts.seed)?;
        super::updates::install_dispatch(&lua)?;
        lua.sandbox(true)?;
        let b = budget.clone();
        lua.set_interrupt(move |lua| b.check_interrupt(lua));
        // Host calls charge the budget too (`api::context::api_fn`).
        lua.set_app_data(budget.clone());
        lua.set_memory_limit(self.opts.memory_limit)?;
        Ok((lua, budget))
    }

    /// Loads one mod as a transaction: a failed load leaves no trace of it.
    fn load_mod(
        &mut self,
        m: &Manifest,
        all: &BTreeMap<String, Manifest>,
    ) -> Result<(), ScriptError> {
        let rt = self.transaction(|h| h.run_entry(m, all))?;
        self.mods.push(rt);
        Ok(())
    }

    /// Runs `f` as a transaction: on failure the world and the shared state are put back
    /// as they were (the log lines printed meanwhile are kept), so a broken mod changes
    /// nothing. Load and reload both run through here.
    pub(super) fn transaction<R>(
        &mut self,
        f: impl FnOnce(&mut ScriptHost) -> Result<R, ScriptError>,
    ) -> Result<R, ScriptError> {
        let cp = self.world.borrow().checkpoint();
        let shared_cp = self.shared.borrow().clone();
        let r = f(self);
        if r.is_ok() {
            self.world.borrow_mut().keep_level_number(&cp);
        } else {
            self.world.borrow_mut().restore(cp);
            let mut sh = self.shared.borrow_mut();
            let logs = std::mem::take(&mut sh.logs);
            let checked = std::mem::take(&mut sh.check_errors);
            let (types, behaviours) = (sh.types.clone(), sh.behaviours.clone());
            *sh = shared_cp;
            sh.logs = logs;
            if sh.check_mode {
                // `skitter check` keeps what it found before the failure, and the names the
                // mod defined, to check the references to them.
                sh.check_errors = checked;
                sh.types = types;
                sh.behaviours = behaviours;
            }
        }
        r
    }

    /// Builds a fresh state for `m` and runs its entry script under the load budget.
    pub(super) fn run_entry(
        &mut self,
        m: &Manifest,
        all: &BTreeMap<String, Manifest>,
    ) -> Result<ModRuntime, ScriptError> {
        let (lua, budget) = self.new_state(m, all).map_err(|e| {
            ScriptError::in_mod(&m.name, format!("cannot create the Lua state: {e}"))
        })?;
        let chunk = format!("{}/{}", m.name, m.entry);
        let src = read_script(&m.dir.join(&m.entry)).map_err(|e: SourceError| {
            ScriptError::at(
                &m.name,
                &chunk,
                format!("cannot read the entry script: {e}"),
            )
        })?;
        self.shared.borrow_mut().loading = Some(m.name.clone());
        budget.reset(self.opts.work_at_load, 0, 0, self.opts.cpu_at_load);
        budget.begin();
        let r = source::chunk(&lua, src.as_bytes(), &chunk).exec();
        budget.end();
        self.shared.borrow_mut().loading = None;
        if let Err(e) = r {
            let mut err = self.error_from(&m.name, &budget, &e);
            if err.location.is_none() {
                if source::is_binary_chunk_error(&e) {
                    err.message = BYTECODE_REFUSED.to_string();
                }
                err.location = Some(chunk.clone());
            }
            return Err(err);
        }
        let load_cost = (budget.units_used(), lua.used_memory());
        Ok(ModRuntime {
            manifest: m.clone(),
            lua,
            budget,
            suspended: None,
            updates: None,
            load_cost,
        })
    }
}
