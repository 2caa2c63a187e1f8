//! The script host: discovers and loads mods (one sandboxed Luau state each), runs their
//! callbacks every tick under CPU and memory budgets, and contains their failures.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Duration;

use glam::Vec3;
use mlua::chunk::ChunkMode;
use mlua::{Function, Lua, LuaOptions, StdLib, Table, Value};

use super::api::{self, BrainKind, Budget, LogLine, ModCtx, Overrun, Shared};
use super::manifest::{load_order, Manifest};
use super::plain::Plain;
use crate::locomotion::Intent;
use crate::sim::{Command, CreatureId, World, WorldEvent, TICK_DT};

/// Limits and seed for a host.
#[derive(Clone, Debug)]
pub struct HostOptions {
    /// Seed for the world and for every mod's `math.random`.
    pub seed: u64,
    /// CPU time each mod may use per tick, across all its callbacks.
    pub cpu_per_tick: Duration,
    /// CPU time a mod's load (its entry script) may take.
    pub cpu_at_load: Duration,
    /// Memory each mod's Lua state may use, bytes.
    pub memory_limit: usize,
    /// Most creatures one mod may have alive (0: no limit).
    pub max_creatures: usize,
}

impl Default for HostOptions {
    fn default() -> Self {
        HostOptions {
            seed: 0,
            cpu_per_tick: Duration::from_millis(4),
            cpu_at_load: Duration::from_secs(2),
            memory_limit: 64 << 20,
            max_creatures: 4096,
        }
    }
}

/// An error from a mod: where (`mod/file.lua:LINE`, when known) and what.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptError {
    /// The mod.
    pub mod_name: String,
    /// `mod/file.lua:LINE`, when the error points into a script.
    pub location: Option<String>,
    /// The message, without the location.
    pub message: String,
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Some(l) => write!(f, "{l}: {}", self.message),
            None => write!(f, "{}: {}", self.mod_name, self.message),
        }
    }
}

/// Splits `"mod/file.lua:12: message"` into location and message.
fn split_location(msg: &str) -> (Option<String>, String) {
    let msg = msg.trim();
    for ext in [".luau:", ".lua:"] {
        if let Some(i) = msg.find(ext) {
            let after = &msg[i + ext.len()..];
            let digits: String = after.chars().take_while(|c| c.is_ascii_digit()).collect();
            if !digits.is_empty()
                && after[digits.len()..].starts_with(": ")
                && !msg[..i].contains(' ')
            {
                let loc = &msg[..i + ext.len() + digits.len()];
                return (Some(loc.to_string()), after[digits.len() + 2..].to_string());
            }
        }
    }
    (None, msg.to_string())
}

/// The root message of an mlua error (callback wrappers and tracebacks removed).
fn root_message(e: &mlua::Error) -> String {
    let msg = root_message_full(e);
    match msg.find("\nstack traceback:") {
        Some(i) => msg[..i].to_string(),
        None => msg,
    }
}

fn root_message_full(e: &mlua::Error) -> String {
    match e {
        mlua::Error::CallbackError { cause, .. } => root_message_full(cause),
        mlua::Error::WithContext { cause, .. } => root_message_full(cause),
        mlua::Error::RuntimeError(s) => s.clone(),
        mlua::Error::SyntaxError { message, .. } => message.clone(),
        mlua::Error::MemoryError(_) => "memory limit exceeded".to_string(),
        other => other.to_string(),
    }
}

/// What a mod is told when a script file holds bytecode.
pub(crate) const BYTECODE_REFUSED: &str =
    "bytecode is not allowed: mods are loaded from source text only";

struct ModRuntime {
    manifest: Manifest,
    lua: Lua,
    budget: Rc<Budget>,
    suspended: Option<String>,
}

struct Brain {
    mod_idx: usize,
    kind: BrainKind,
    handle: Table,
    on_reload: Option<Function>,
    on_update: Option<Function>,
    on_step: Option<Function>,
    on_hit: Option<Function>,
    on_arrive: Option<Function>,
    on_spawn: Option<Function>,
    spawn_pending: bool,
}

/// The Luau libraries a mod's state opens (no `io`, no `debug`, no `package`).
fn mod_libs() -> StdLib {
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

/// Loads mods and runs their callbacks around `World::step`.
pub struct ScriptHost {
    world: Rc<RefCell<World>>,
    shared: Rc<RefCell<Shared>>,
    mods: Vec<ModRuntime>,
    brains: BTreeMap<CreatureId, Brain>,
    /// Creatures sent somewhere by hand (a click in the window): their brains wait.
    manual: BTreeMap<CreatureId, Vec3>,
    errors: Vec<ScriptError>,
    reported: BTreeSet<String>,
    opts: HostOptions,
    /// Replaying a record: no callbacks run; the record feeds the world instead.
    replaying: bool,
    /// Every mod discovered (valid manifest), by name, whether or not it loaded.
    known: BTreeMap<String, Manifest>,
    /// Mods running their last good version (or not running) because their latest files
    /// failed: the error that says why.
    broken: BTreeMap<String, ScriptError>,
    /// Reloads since the last `take_reloads`.
    reloads: Vec<ReloadReport>,
    /// Watches the mod folders (after `watch`).
    watcher: Option<super::watch::ModWatcher>,
}

/// What one mod's reload did.
#[derive(Clone, Debug, PartialEq)]
pub struct ReloadReport {
    /// The mod.
    pub mod_name: String,
    /// Whether the new version is running (else the last good one still is).
    pub ok: bool,
    /// Files that changed, relative to the mod folder (empty when a dependency changed).
    pub files: Vec<String>,
    /// Milliseconds from the newest change's modification time to the new code being active
    /// (or, with no file times, the reload's own duration).
    pub ms: f64,
    /// Why it failed.
    pub error: Option<ScriptError>,
    /// The tick it happened at.
    pub frame: u64,
}

/// Expands each path: a folder with `mod.toml` is a mod; any other folder is searched one
/// level down for mod folders (so `scripts/` means every bundled mod).
pub fn discover(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<String>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for p in paths {
        if p.join("mod.toml").is_file() {
            out.push(p.clone());
        } else if p.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(p)
                .map(|rd| {
                    rd.flatten()
                        .map(|e| e.path())
                        .filter(|d| d.join("mod.toml").is_file())
                        .collect()
                })
                .unwrap_or_default();
            found.sort();
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
    (out, errors)
}

impl ScriptHost {
    /// A host over an empty world.
    pub fn new(opts: HostOptions) -> ScriptHost {
        ScriptHost {
            world: Rc::new(RefCell::new(World::new(opts.seed))),
            shared: Rc::new(RefCell::new(Shared {
                max_creatures: opts.max_creatures,
                ..Shared::default()
            })),
            mods: Vec::new(),
            brains: BTreeMap::new(),
            manual: BTreeMap::new(),
            errors: Vec::new(),
            reported: BTreeSet::new(),
            replaying: false,
            known: BTreeMap::new(),
            broken: BTreeMap::new(),
            reloads: Vec::new(),
            watcher: None,
            opts,
        }
    }

    /// Replay mode: ticks step the world without running any callback (a
    /// [`crate::sim::Replay`] feeds the world what the scripts and the user did).
    pub fn set_replaying(&mut self, on: bool) {
        self.replaying = on;
    }

    /// Whether callbacks are off for a replay.
    pub fn replaying(&self) -> bool {
        self.replaying
    }

    /// Loads every mod found under `paths` in dependency order. Failures are recorded (see
    /// [`ScriptHost::take_errors`]); the mods that loaded keep running.
    pub fn load(&mut self, paths: &[PathBuf]) {
        let (dirs, errs) = discover(paths);
        for e in errs {
            self.report(ScriptError {
                mod_name: "-".into(),
                location: None,
                message: e,
            });
        }
        let mut manifests = Vec::new();
        for d in dirs {
            match Manifest::load(&d) {
                Ok(m) => {
                    self.known.insert(m.name.clone(), m.clone());
                    manifests.push(m)
                }
                Err(e) => {
                    let name = d
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    self.report(ScriptError {
                        mod_name: name,
                        location: None,
                        message: e,
                    });
                }
            }
        }
        let (order, errs) = load_order(manifests);
        for (m, e) in errs {
            self.report(ScriptError {
                mod_name: m,
                location: None,
                message: e,
            });
        }
        let all: BTreeMap<String, Manifest> =
            order.iter().map(|m| (m.name.clone(), m.clone())).collect();
        let mut failed: BTreeSet<String> = BTreeSet::new();
        for m in order {
            if let Some(dep) = m.depends.iter().find(|d| failed.contains(&d.name)) {
                self.report(ScriptError {
                    mod_name: m.name.clone(),
                    location: None,
                    message: format!("not loaded: its dependency \"{}\" failed to load", dep.name),
                });
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

    fn roots_for(
        m: &Manifest,
        all: &BTreeMap<String, Manifest>,
    ) -> BTreeMap<String, (PathBuf, BTreeSet<String>)> {
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

    fn new_state(
        &self,
        m: &Manifest,
        all: &BTreeMap<String, Manifest>,
    ) -> mlua::Result<(Lua, Rc<Budget>)> {
        let lua = Lua::new_with(mod_libs(), LuaOptions::default())?;
        let budget = Rc::new(Budget::new(self.opts.cpu_at_load, self.opts.memory_limit));
        let ctx = Rc::new(ModCtx::new(
            &m.name,
            Self::roots_for(m, all),
            self.world.clone(),
            self.shared.clone(),
        ));
        api::install(&lua, ctx, self.opts.seed)?;
        lua.sandbox(true)?;
        let b = budget.clone();
        lua.set_interrupt(move |lua| b.check_interrupt(lua));
        lua.set_memory_limit(self.opts.memory_limit)?;
        Ok((lua, budget))
    }

    fn load_mod(
        &mut self,
        m: &Manifest,
        all: &BTreeMap<String, Manifest>,
    ) -> Result<(), ScriptError> {
        let cp = self.world.borrow().checkpoint();
        let shared_cp = self.shared.borrow().clone();
        match self.run_entry(m, all) {
            Ok(rt) => {
                self.mods.push(rt);
                Ok(())
            }
            Err(e) => {
                // Undo what the half-loaded mod did; the rest of the world is untouched.
                self.world.borrow_mut().restore(cp);
                self.restore_shared(shared_cp);
                Err(e)
            }
        }
    }

    /// Puts the shared state back after a failed load, keeping the log lines it printed.
    fn restore_shared(&mut self, cp: Shared) {
        let mut sh = self.shared.borrow_mut();
        let logs = std::mem::take(&mut sh.logs);
        *sh = cp;
        sh.logs = logs;
    }

    /// Builds a fresh state for `m` and runs its entry script under the load budget.
    fn run_entry(
        &mut self,
        m: &Manifest,
        all: &BTreeMap<String, Manifest>,
    ) -> Result<ModRuntime, ScriptError> {
        let fail = |message: String| ScriptError {
            mod_name: m.name.clone(),
            location: None,
            message,
        };
        let (lua, budget) = self
            .new_state(m, all)
            .map_err(|e| fail(format!("cannot create the Lua state: {e}")))?;
        let entry = m.dir.join(&m.entry);
        let src = api::read_script(&entry).map_err(|e| ScriptError {
            mod_name: m.name.clone(),
            location: Some(format!("{}/{}", m.name, m.entry)),
            message: format!("cannot read the entry script: {e}"),
        })?;
        let chunk = format!("{}/{}", m.name, m.entry);
        self.shared.borrow_mut().loading = Some(m.name.clone());
        budget.reset(self.opts.cpu_at_load);
        budget.begin();
        let r = lua
            .load(src)
            .set_name(format!("={chunk}"))
            .set_mode(ChunkMode::Text)
            .exec();
        budget.end();
        self.shared.borrow_mut().loading = None;
        if let Err(e) = r {
            let mut err = self.error_from(&m.name, &budget, &e);
            if err.location.is_none() {
                if err.message.contains("binary chunk") {
                    err.message = BYTECODE_REFUSED.to_string();
                }
                err.location = Some(chunk.clone());
            }
            return Err(err);
        }
        Ok(ModRuntime {
            manifest: m.clone(),
            lua,
            budget,
            suspended: None,
        })
    }

    fn error_from(&self, mod_name: &str, budget: &Budget, e: &mlua::Error) -> ScriptError {
        if let Some(o) = budget.overrun.take() {
            let at = budget.overrun_at.borrow_mut().take();
            let what = budget.overrun_message(o);
            return ScriptError {
                mod_name: mod_name.to_string(),
                location: at,
                message: what,
            };
        }
        if let mlua::Error::MemoryError(_) = e {
            return ScriptError {
                mod_name: mod_name.to_string(),
                location: None,
                message: budget.overrun_message(Overrun::Memory),
            };
        }
        let (location, message) = split_location(&root_message(e));
        ScriptError {
            mod_name: mod_name.to_string(),
            location,
            message,
        }
    }

    fn report(&mut self, e: ScriptError) {
        let key = e.to_string();
        if self.reported.insert(key) {
            self.errors.push(e);
        }
    }

    /// Errors since the last call (each distinct error once).
    pub fn take_errors(&mut self) -> Vec<ScriptError> {
        std::mem::take(&mut self.errors)
    }

    /// Log lines since the last call.
    pub fn take_logs(&mut self) -> Vec<LogLine> {
        std::mem::take(&mut self.shared.borrow_mut().logs)
    }

    /// Names of the mods running (loaded and not suspended), in load order.
    pub fn running_mods(&self) -> Vec<String> {
        self.mods
            .iter()
            .filter(|m| m.suspended.is_none())
            .map(|m| m.manifest.name.clone())
            .collect()
    }

    /// Names of all loaded mods, in load order.
    pub fn loaded_mods(&self) -> Vec<String> {
        self.mods.iter().map(|m| m.manifest.name.clone()).collect()
    }

    /// Read access to the world.
    pub fn world(&self) -> std::cell::Ref<'_, World> {
        self.world.borrow()
    }

    /// Write access to the world (not while a script runs).
    pub fn world_mut(&self) -> std::cell::RefMut<'_, World> {
        self.world.borrow_mut()
    }

    fn apply_brain_requests(&mut self) {
        let requests = std::mem::take(&mut self.shared.borrow_mut().brain_requests);
        for req in requests {
            let Some(mod_idx) = self
                .mods
                .iter()
                .position(|m| m.manifest.name == req.mod_name)
            else {
                continue;
            };
            let type_name = {
                let w = self.world.borrow();
                match w.creature(req.id) {
                    Some(c) => w
                        .creature_type(c.type_id)
                        .map(|t| t.name.clone())
                        .unwrap_or_default(),
                    None => continue,
                }
            };
            let lua = &self.mods[mod_idx].lua;
            let built = (|| -> mlua::Result<Brain> {
                let handle = api::handle(lua, req.id, &type_name)?;
                let (registry, key, what) = match &req.kind {
                    BrainKind::Behaviour(n) => ("skitter.behaviours", n.as_str(), "behaviour"),
                    BrainKind::Type(t) => ("skitter.types", t.as_str(), "creature type"),
                };
                let table: Table = match lua
                    .named_registry_value::<Table>(registry)?
                    .raw_get::<Value>(key)?
                {
                    Value::Table(t) => t,
                    _ => {
                        return Err(mlua::Error::runtime(format!(
                            "{what} \"{key}\" no longer exists in mod \"{}\": creature {} stands without a brain",
                            req.mod_name, req.id.0
                        )))
                    }
                };
                // params = the behaviour's defaults, overlaid with the given ones.
                let params = lua.create_table()?;
                if let Value::Table(defaults) = table.raw_get::<Value>("params")? {
                    if let Value::Table(copy) =
                        Plain::from_lua(&Value::Table(defaults)).to_lua(lua)?
                    {
                        for (k, v) in copy.pairs::<Value, Value>().flatten() {
                            params.raw_set(k, v)?;
                        }
                    }
                }
                if let Value::Table(given) = req.params.to_lua(lua)? {
                    for (k, v) in given.pairs::<Value, Value>().flatten() {
                        params.raw_set(k, v)?;
                    }
                }
                handle.raw_set("params", params)?;
                let f = |name: &str| -> mlua::Result<Option<Function>> {
                    Ok(match table.raw_get::<Value>(name)? {
                        Value::Function(f) => Some(f),
                        _ => None,
                    })
                };
                Ok(Brain {
                    mod_idx,
                    kind: req.kind.clone(),
                    handle: handle.clone(),
                    on_reload: f("on_reload")?,
                    on_update: f("on_update")?,
                    on_step: f("on_step")?,
                    on_hit: f("on_hit")?,
                    on_arrive: f("on_arrive")?,
                    on_spawn: f("on_spawn")?,
                    spawn_pending: true,
                })
            })();
            match built {
                Ok(b) => {
                    self.brains.insert(req.id, b);
                }
                Err(e) => {
                    let err = self.error_from(&req.mod_name, &self.mods[mod_idx].budget, &e);
                    self.report(err);
                }
            }
        }
    }

    /// Calls `f(handle, arg)` in mod `mod_idx` under its budget. On failure: a budget overrun
    /// suspends the mod (its creatures stop); any other error detaches this creature's brain.
    fn call(&mut self, id: CreatureId, f: &Function, arg: Value) {
        self.call_with(id, f, arg);
    }

    /// Calls `f(self_handle, args...)` for creature `id` under its mod's budget.
    fn call_with(&mut self, id: CreatureId, f: &Function, args: impl mlua::IntoLuaMulti) {
        let Some(brain) = self.brains.get(&id) else {
            return;
        };
        let mod_idx = brain.mod_idx;
        let rt = &self.mods[mod_idx];
        if rt.suspended.is_some() {
            return;
        }
        let mut argv = match args.into_lua_multi(&rt.lua) {
            Ok(a) => a,
            Err(_) => return,
        };
        argv.push_front(Value::Table(brain.handle.clone()));
        rt.budget.begin();
        let r = f.call::<()>(argv);
        rt.budget.end();
        let Err(e) = r else { return };
        let overrun = rt.budget.overrun.get().is_some() || matches!(e, mlua::Error::MemoryError(_));
        let err = self.error_from(
            &self.mods[mod_idx].manifest.name.clone(),
            &self.mods[mod_idx].budget,
            &e,
        );
        if overrun {
            let name = self.mods[mod_idx].manifest.name.clone();
            self.mods[mod_idx].suspended = Some(err.to_string());
            let ids: Vec<CreatureId> = self
                .brains
                .iter()
                .filter(|(_, b)| b.mod_idx == mod_idx)
                .map(|(id, _)| *id)
                .collect();
            let mut w = self.world.borrow_mut();
            for cid in ids {
                w.push(Command::SetIntent(cid, Intent::Idle));
            }
            drop(w);
            self.report(ScriptError {
                message: format!(
                    "{} (mod \"{name}\" suspended; the world goes on)",
                    err.message
                ),
                ..err
            });
            // Free what a memory bomb left behind.
            let _ = self.mods[mod_idx].lua.gc_collect();
        } else {
            self.brains.remove(&id);
            self.world
                .borrow_mut()
                .push(Command::SetIntent(id, Intent::Idle));
            self.report(err);
        }
    }

    /// Camera requests from scripts since the last call.
    pub fn take_camera_requests(&mut self) -> Vec<api::CameraRequest> {
        std::mem::take(&mut self.shared.borrow_mut().camera)
    }

    /// Sends creature `id` to `dest` by hand: it walks there (`c:move` at its cruise speed),
    /// its brain paused, and resumes its brain on arrival. `None` cancels.
    pub fn send_to(&mut self, id: CreatureId, dest: Option<Vec3>) {
        match dest {
            Some(d) => {
                self.manual.insert(id, d);
                self.world.borrow_mut().push(Command::SetDestination(id, d));
            }
            None => {
                if self.manual.remove(&id).is_some() {
                    self.world.borrow_mut().push(Command::ClearDestination(id));
                }
            }
        }
    }

    /// Creatures walking to a destination given by hand.
    pub fn destinations(&self) -> Vec<(CreatureId, Vec3)> {
        self.manual.iter().map(|(id, d)| (*id, *d)).collect()
    }

    /// Forgets hand-sent creatures that arrived, were given another order, or are gone:
    /// their brains run again.
    fn release_manual(&mut self, events: &[WorldEvent]) {
        let w = self.world.borrow();
        self.manual.retain(|id, _| {
            let arrived = events
                .iter()
                .any(|e| matches!(e, WorldEvent::Arrive { id: a } if a == id));
            !arrived && w.creature(*id).is_some_and(|c| c.nav.is_some())
        });
    }

    /// One tick: on_spawn for new brains, on_update for all, `World::step`, then on_step for
    /// every landed foot. Returns the world events of the tick.
    pub fn tick(&mut self) -> Vec<WorldEvent> {
        if self.replaying {
            self.world.borrow_mut().step(TICK_DT);
            let events = self.world.borrow_mut().drain_events();
            self.forget_gone();
            return events;
        }
        self.apply_brain_requests();
        for m in &self.mods {
            m.budget.reset(self.opts.cpu_per_tick);
        }
        self.run_updates();
        self.apply_brain_requests();
        self.world.borrow_mut().step(TICK_DT);
        let events = self.world.borrow_mut().drain_events();
        self.release_manual(&events);
        self.dispatch_steps(&events);
        self.forget_gone();
        events
    }

    /// The script half of a tick: `on_spawn` for new brains, then `on_update` for every brain,
    /// in creature id order. (`tick` calls this; benches call it alone.)
    pub fn run_updates(&mut self) {
        let ids: Vec<CreatureId> = self.brains.keys().copied().collect();
        for id in &ids {
            let Some(b) = self.brains.get_mut(id) else {
                continue;
            };
            if b.spawn_pending {
                b.spawn_pending = false;
                if let Some(f) = b.on_spawn.clone() {
                    self.call(*id, &f, Value::Nil);
                }
            }
        }
        for id in &ids {
            if self.manual.contains_key(id) {
                continue;
            }
            let Some(f) = self.brains.get(id).and_then(|b| b.on_update.clone()) else {
                continue;
            };
            self.call(*id, &f, Value::Number(TICK_DT as f64));
        }
    }

    /// Calls `on_step` for every landed foot and `on_hit` for every hit.
    fn dispatch_steps(&mut self, events: &[WorldEvent]) {
        for ev in events {
            let (id, leg, position) = match ev {
                WorldEvent::Step { id, leg, position } => (id, leg, position),
                WorldEvent::Arrive { id } => {
                    if let Some(f) = self.brains.get(id).and_then(|b| b.on_arrive.clone()) {
                        self.call(*id, &f, Value::Nil);
                    }
                    continue;
                }
                WorldEvent::NavWarning { id, message } => {
                    let mod_name = self
                        .brains
                        .get(id)
                        .map(|b| self.mods[b.mod_idx].manifest.name.clone())
                        .unwrap_or_else(|| "world".into());
                    self.shared.borrow_mut().logs.push(LogLine {
                        mod_name,
                        level: "warn",
                        text: format!("creature {}: {message}", id.0),
                    });
                    continue;
                }
                WorldEvent::Hit { id, dir, strength } => {
                    let Some(f) = self.brains.get(id).and_then(|b| b.on_hit.clone()) else {
                        continue;
                    };
                    let args = (super::convert::to_vector(*dir), *strength as f64);
                    self.call_with(*id, &f, args);
                    continue;
                }
            };
            let Some(b) = self.brains.get(id) else {
                continue;
            };
            let Some(f) = b.on_step.clone() else { continue };
            let lua = &self.mods[b.mod_idx].lua;
            let leg_name = self
                .world
                .borrow()
                .creature(*id)
                .and_then(|c| c.def.legs.get(*leg).map(|l| l.name.clone()))
                .unwrap_or_default();
            let arg = (|| -> mlua::Result<Value> {
                let t = lua.create_table_with_capacity(0, 2)?;
                t.raw_set("name", leg_name)?;
                t.raw_set("position", super::convert::to_vector(*position))?;
                Ok(Value::Table(t))
            })();
            if let Ok(arg) = arg {
                self.call(*id, &f, arg);
            }
        }
    }

    /// Forgets the brains of creatures that are gone.
    fn forget_gone(&mut self) {
        let gone: Vec<CreatureId> = {
            let w = self.world.borrow();
            self.brains
                .keys()
                .filter(|id| w.creature(**id).is_none())
                .copied()
                .collect()
        };
        for id in gone {
            if let Some(b) = self.brains.remove(&id) {
                let _ = api::drop_handle(&self.mods[b.mod_idx].lua, id);
            }
        }
    }

    /// The folder of a loaded mod.
    pub fn mod_dir(&self, name: &str) -> Option<&Path> {
        self.mods
            .iter()
            .find(|m| m.manifest.name == name)
            .map(|m| m.manifest.dir.as_path())
    }
}

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
    let handle_mt: Table = lua.named_registry_value("skitter.handle_mt")?;
    if let Value::Table(t) = handle_mt.raw_get::<Value>("__index")? {
        methods(&t, "Creature", ":", &mut out);
    }
    let curve = lua.create_userdata(super::convert::LuaCurve(crate::math::Curve::Constant(0.0)))?;
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
            let (location, message) = split_location(&text);
            self.report(ScriptError {
                mod_name: m,
                location,
                message,
            });
        }
        let known: Vec<Manifest> = self.known.values().cloned().collect();
        for m in known {
            // Scripts only: not the manifest, not `.d.luau` editor definitions.
            let mut files: Vec<PathBuf> = super::watch::mod_files(&m.dir)
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
                if std::fs::metadata(&f).map(|m| m.len()).unwrap_or(0) > api::MAX_SCRIPT_BYTES {
                    self.report(ScriptError {
                        mod_name: m.name.clone(),
                        location: Some(chunk),
                        message: format!(
                            "the file is too big: scripts may be at most {} MiB",
                            api::MAX_SCRIPT_BYTES >> 20
                        ),
                    });
                    continue;
                }
                let Ok(src) = std::fs::read(&f) else { continue };
                if src.first() == Some(&0x1b) || src.first().is_some_and(|b| *b < 9) {
                    self.report(ScriptError {
                        mod_name: m.name.clone(),
                        location: Some(chunk),
                        message: BYTECODE_REFUSED.to_string(),
                    });
                    continue;
                }
                if let Err(e) = lua
                    .load(&src[..])
                    .set_name(format!("={chunk}"))
                    .set_mode(ChunkMode::Text)
                    .into_function()
                {
                    let (location, message) = split_location(&root_message(&e));
                    self.report(ScriptError {
                        mod_name: m.name.clone(),
                        location: location.or(Some(chunk)),
                        message,
                    });
                }
            }
        }
        self.take_errors()
    }
}

/// The files of `name` that changed, as the reload report and trace list them.
fn changed_files(changed: &BTreeMap<String, Vec<PathBuf>>, name: &str) -> Vec<String> {
    changed
        .get(name)
        .map(|f| f.iter().map(|p| p.display().to_string()).collect())
        .unwrap_or_default()
}

/// Hot reload: watching, and the per-mod reload transaction.
impl ScriptHost {
    /// Starts watching every discovered mod's folder (loaded or not: fixing a mod that
    /// failed to load loads it).
    pub fn watch(&mut self) -> Result<(), String> {
        let dirs: Vec<(String, PathBuf)> = self
            .known
            .values()
            .map(|m| (m.name.clone(), m.dir.clone()))
            .collect();
        self.watcher = Some(super::watch::ModWatcher::new(&dirs)?);
        Ok(())
    }

    /// Whether the mod folders are being watched.
    pub fn watching(&self) -> bool {
        self.watcher.is_some()
    }

    /// Reloads the mods whose files the watcher saw change (call between ticks). Returns
    /// what happened; the same reports are kept for [`ScriptHost::take_reloads`].
    pub fn poll_reloads(&mut self) -> Vec<ReloadReport> {
        let changed = match &self.watcher {
            Some(w) => w.poll(),
            None => return Vec::new(),
        };
        if changed.is_empty() {
            return Vec::new();
        }
        self.reload(&changed)
    }

    /// Reloads after the files listed per mod changed (paths relative to each mod folder):
    /// each changed mod, then the loaded mods that depend on it, one transaction each.
    pub fn reload(&mut self, changed: &BTreeMap<String, Vec<PathBuf>>) -> Vec<ReloadReport> {
        if self.replaying {
            return Vec::new();
        }
        // The newest change, for the save-to-running time.
        let newest = changed
            .iter()
            .flat_map(|(m, files)| {
                let dir = self.known.get(m).map(|k| k.dir.clone());
                files.iter().filter_map(move |f| {
                    let d = dir.as_ref()?;
                    std::fs::metadata(d.join(f)).ok()?.modified().ok()
                })
            })
            .max();
        let started = std::time::Instant::now();
        let mut reports = Vec::new();
        // Manifests may have changed too.
        for name in changed.keys() {
            let Some(dir) = self.known.get(name).map(|m| m.dir.clone()) else {
                continue;
            };
            match Manifest::load(&dir) {
                Ok(m) if m.name == *name => {
                    self.known.insert(name.clone(), m);
                }
                Ok(m) => reports.push(self.failed_report(
                    name,
                    changed,
                    ScriptError {
                        mod_name: name.clone(),
                        location: Some(format!("{name}/mod.toml")),
                        message: format!(
                            "a mod cannot be renamed while running (now \"{}\"); restart to load it",
                            m.name
                        ),
                    },
                )),
                Err(e) => reports.push(self.failed_report(
                    name,
                    changed,
                    ScriptError {
                        mod_name: name.clone(),
                        location: Some(format!("{name}/mod.toml")),
                        message: e,
                    },
                )),
            }
        }
        let (order, errs) = load_order(self.known.values().cloned().collect());
        for (m, e) in errs {
            if changed.contains_key(&m) {
                reports.push(self.failed_report(
                    &m,
                    changed,
                    ScriptError {
                        mod_name: m.clone(),
                        location: None,
                        message: e,
                    },
                ));
            }
        }
        let all: BTreeMap<String, Manifest> =
            order.iter().map(|m| (m.name.clone(), m.clone())).collect();
        let failed_now: BTreeSet<String> = reports.iter().map(|r| r.mod_name.clone()).collect();
        // Which mods to reload: the changed ones and, after a good reload, their dependents.
        let mut redo: BTreeSet<String> = changed
            .keys()
            .filter(|m| !failed_now.contains(*m))
            .cloned()
            .collect();
        let mut bad: BTreeSet<String> = failed_now;
        for m in &order {
            if !redo.contains(&m.name) {
                // A dependent of a mod reloaded cleanly reloads too (its code ran against
                // the old one).
                let dep_reloaded = m.depends.iter().any(|d| {
                    redo.contains(&d.name) && !bad.contains(&d.name) && self.is_loaded(&m.name)
                });
                if !dep_reloaded {
                    continue;
                }
                redo.insert(m.name.clone());
            }
            if let Some(d) = m
                .depends
                .iter()
                .find(|d| !d.optional && !self.is_loaded(&d.name) && !redo.contains(&d.name))
            {
                let e = ScriptError {
                    mod_name: m.name.clone(),
                    location: None,
                    message: format!("not loaded: its dependency \"{}\" is not running", d.name),
                };
                reports.push(self.failed_report(&m.name, changed, e));
                bad.insert(m.name.clone());
                continue;
            }
            let outcome = self.reload_one(m, &all);
            let ms = match newest {
                Some(t) => std::time::SystemTime::now()
                    .duration_since(t)
                    .map(|d| d.as_secs_f64() * 1e3)
                    .unwrap_or(0.0),
                None => started.elapsed().as_secs_f64() * 1e3,
            };
            let files = changed_files(changed, &m.name);
            let frame = self.world.borrow().frame();
            match outcome {
                Ok(()) => reports.push(ReloadReport {
                    mod_name: m.name.clone(),
                    ok: true,
                    files,
                    ms,
                    error: None,
                    frame,
                }),
                Err(e) => {
                    bad.insert(m.name.clone());
                    reports.push(ReloadReport {
                        mod_name: m.name.clone(),
                        ok: false,
                        files,
                        ms,
                        error: Some(e),
                        frame,
                    });
                }
            }
        }
        for r in &reports {
            if let Some(e) = &r.error {
                self.broken.insert(r.mod_name.clone(), e.clone());
                // A failed save is reported every time it happens (not once per message).
                self.errors.push(e.clone());
            }
        }
        self.reloads.extend(reports.iter().cloned());
        reports
    }

    fn failed_report(
        &self,
        name: &str,
        changed: &BTreeMap<String, Vec<PathBuf>>,
        e: ScriptError,
    ) -> ReloadReport {
        ReloadReport {
            mod_name: name.to_string(),
            ok: false,
            files: changed_files(changed, name),
            ms: 0.0,
            error: Some(e),
            frame: self.world.borrow().frame(),
        }
    }

    fn is_loaded(&self, name: &str) -> bool {
        self.mods.iter().any(|m| m.manifest.name == name)
    }

    /// Reloads (or first loads) one mod as a transaction: its new version is built in a fresh
    /// state against a checkpoint of the world; on any failure the checkpoint is restored and
    /// the last good version keeps running.
    fn reload_one(
        &mut self,
        m: &Manifest,
        all: &BTreeMap<String, Manifest>,
    ) -> Result<(), ScriptError> {
        let cp = self.world.borrow().checkpoint();
        let shared_cp = self.shared.borrow().clone();
        let pieces_before = self.world.borrow().level_pieces().to_vec();
        let camera_before = self.shared.borrow().camera.len();
        {
            let mut sh = self.shared.borrow_mut();
            sh.types.retain(|_, t| t.mod_name != m.name);
            sh.behaviours.retain(|(mm, _)| mm != &m.name);
            let mut reuse: BTreeMap<String, std::collections::VecDeque<CreatureId>> =
                BTreeMap::new();
            for (_, ty, id) in sh.load_spawns.iter().filter(|(mm, _, _)| mm == &m.name) {
                reuse.entry(ty.clone()).or_default().push_back(*id);
            }
            sh.reuse = reuse;
            sh.load_spawns.retain(|(mm, _, _)| mm != &m.name);
            sh.kept.clear();
        }
        self.world.borrow_mut().remove_level_of(&m.name);
        let rt = match self.run_entry(m, all) {
            Ok(rt) => rt,
            Err(e) => {
                self.world.borrow_mut().restore(cp);
                self.restore_shared(shared_cp);
                return Err(e);
            }
        };
        // Camera moves belong to a fresh start, not to every save.
        self.shared.borrow_mut().camera.truncate(camera_before);

        // The new version is in. Its index: the old one's, or the next.
        let old_idx = self.mods.iter().position(|r| r.manifest.name == m.name);
        let idx = old_idx.unwrap_or(self.mods.len());
        self.broken.remove(&m.name);
        let (surplus, kept) = {
            let mut sh = self.shared.borrow_mut();
            let surplus: Vec<CreatureId> = std::mem::take(&mut sh.reuse)
                .into_values()
                .flatten()
                .collect();
            (surplus, std::mem::take(&mut sh.kept))
        };
        let mut gone: BTreeSet<CreatureId> = surplus.iter().copied().collect();
        // Creatures of a type the new version no longer defines go too.
        {
            let sh = self.shared.borrow();
            let w = self.world.borrow();
            let prefix = format!("{}/", m.name);
            for c in w.creatures() {
                let ty = w
                    .creature_type(c.type_id)
                    .map(|t| t.name.as_str())
                    .unwrap_or("");
                if ty.starts_with(&prefix) && !sh.types.contains_key(ty) {
                    gone.insert(c.id);
                }
            }
        }
        {
            let mut w = self.world.borrow_mut();
            for id in &gone {
                w.push(Command::Despawn(*id));
            }
            w.retype();
        }
        // Brains that ran in the old state: carry params and state over into the new one.
        let carried: Vec<(CreatureId, Brain)> = {
            let ids: Vec<CreatureId> = self
                .brains
                .iter()
                .filter(|(id, b)| b.mod_idx == idx && !gone.contains(id))
                .map(|(id, _)| *id)
                .collect();
            ids.into_iter()
                .filter_map(|id| self.brains.remove(&id).map(|b| (id, b)))
                .collect()
        };
        self.brains.retain(|id, _| !gone.contains(id));
        let mut dropped = super::plain::Dropped::default();
        let mut carry: BTreeMap<CreatureId, Plain> = BTreeMap::new();
        {
            let mut sh = self.shared.borrow_mut();
            for (id, b) in &carried {
                let state = b.handle.raw_get::<Value>("state").unwrap_or(Value::Nil);
                carry.insert(
                    *id,
                    Plain::from_lua_report(
                        &state,
                        &format!("creature {} state", id.0),
                        &mut dropped,
                    ),
                );
                if !sh.brain_requests.iter().any(|r| r.id == *id) {
                    let params = b.handle.raw_get::<Value>("params").unwrap_or(Value::Nil);
                    sh.brain_requests.push(api::BrainRequest {
                        id: *id,
                        mod_name: m.name.clone(),
                        kind: b.kind.clone(),
                        params: Plain::from_lua(&params),
                    });
                }
            }
            // Kept load-time creatures keep their state even when their brain moved to
            // another mod's behaviour.
            for id in &kept {
                if !carry.contains_key(id) {
                    if let Some(b) = self.brains.get(id) {
                        let state = b.handle.raw_get::<Value>("state").unwrap_or(Value::Nil);
                        carry.insert(
                            *id,
                            Plain::from_lua_report(
                                &state,
                                &format!("creature {} state", id.0),
                                &mut dropped,
                            ),
                        );
                    }
                }
            }
        }
        drop(carried);
        // Swap the state only now: the carried values were read from the old one.
        match old_idx {
            Some(i) => self.mods[i] = rt,
            None => self.mods.push(rt),
        }
        if dropped.count > 0 {
            self.shared.borrow_mut().logs.push(LogLine {
                mod_name: m.name.clone(),
                level: "warn",
                text: format!(
                    "reload kept only plain data in state; dropped {} value(s): {}{}",
                    dropped.count,
                    dropped.items.join(", "),
                    if dropped.count > dropped.items.len() {
                        ", ..."
                    } else {
                        ""
                    }
                ),
            });
        }
        self.apply_brain_requests();
        // Put the carried state into the new brains; they do not start again.
        let mut reloaded = Vec::new();
        for (id, state) in carry {
            let Some(b) = self.brains.get_mut(&id) else {
                continue;
            };
            let lua = &self.mods[b.mod_idx].lua;
            if let Ok(v) = state.to_lua(lua) {
                let _ = b.handle.raw_set("state", v);
            }
            b.spawn_pending = false;
            reloaded.push(id);
        }
        if self.world.borrow().level_pieces() != pieces_before.as_slice() {
            self.world.borrow_mut().reground_all();
            self.world.borrow_mut().prebake();
        }
        self.mods[idx].budget.reset(self.opts.cpu_per_tick);
        for id in reloaded {
            if let Some(f) = self.brains.get(&id).and_then(|b| b.on_reload.clone()) {
                self.call(id, &f, Value::Nil);
            }
        }
        Ok(())
    }

    /// Reloads since the last call (for toasts and trace events).
    pub fn take_reloads(&mut self) -> Vec<ReloadReport> {
        std::mem::take(&mut self.reloads)
    }

    /// Mods whose latest files failed, with why: they run their last good version (or, if
    /// they never loaded, nothing) until a save loads cleanly.
    pub fn broken_mods(&self) -> &BTreeMap<String, ScriptError> {
        &self.broken
    }

    /// Mods stopped for going over budget, with why (a clean reload lifts it).
    pub fn suspended_mods(&self) -> Vec<(String, String)> {
        self.mods
            .iter()
            .filter_map(|m| m.suspended.clone().map(|s| (m.manifest.name.clone(), s)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_locations() {
        assert_eq!(
            split_location("spider/main.lua:12: boom"),
            (Some("spider/main.lua:12".into()), "boom".into())
        );
        assert_eq!(
            split_location("a/b/c.luau:3: x: y"),
            (Some("a/b/c.luau:3".into()), "x: y".into())
        );
        assert_eq!(
            split_location("no location here"),
            (None, "no location here".into())
        );
    }
}
