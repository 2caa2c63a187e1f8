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
}

impl Default for HostOptions {
    fn default() -> Self {
        HostOptions {
            seed: 0,
            cpu_per_tick: Duration::from_millis(4),
            cpu_at_load: Duration::from_secs(2),
            memory_limit: 64 << 20,
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
    handle: Table,
    on_update: Option<Function>,
    on_step: Option<Function>,
    on_hit: Option<Function>,
    on_spawn: Option<Function>,
    spawn_pending: bool,
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
            shared: Rc::new(RefCell::new(Shared::default())),
            mods: Vec::new(),
            brains: BTreeMap::new(),
            manual: BTreeMap::new(),
            errors: Vec::new(),
            reported: BTreeSet::new(),
            opts,
            replaying: false,
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
                Ok(m) => manifests.push(m),
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
                self.report(e);
                failed.insert(m.name.clone());
            }
        }
        self.apply_brain_requests();
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
        let libs = StdLib::COROUTINE
            | StdLib::TABLE
            | StdLib::STRING
            | StdLib::UTF8
            | StdLib::BIT
            | StdLib::MATH
            | StdLib::BUFFER
            | StdLib::VECTOR
            | StdLib::OS;
        let lua = Lua::new_with(libs, LuaOptions::default())?;
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
        let fail = |message: String| ScriptError {
            mod_name: m.name.clone(),
            location: None,
            message,
        };
        let (lua, budget) = self
            .new_state(m, all)
            .map_err(|e| fail(format!("cannot create the Lua state: {e}")))?;
        let entry = m.dir.join(&m.entry);
        let src = std::fs::read_to_string(&entry).map_err(|e| ScriptError {
            mod_name: m.name.clone(),
            location: Some(format!("{}/{}", m.name, m.entry)),
            message: format!("cannot read the entry script: {e}"),
        })?;
        let chunk = format!("{}/{}", m.name, m.entry);
        let spawned_before = self.shared.borrow().spawned.len();
        budget.reset(self.opts.cpu_at_load);
        budget.begin();
        let r = lua
            .load(src)
            .set_name(format!("={chunk}"))
            .set_mode(ChunkMode::Text)
            .exec();
        budget.end();
        if let Err(e) = r {
            let mut err = self.error_from(&m.name, &budget, &e);
            if err.location.is_none() {
                if err.message.contains("binary chunk") {
                    err.message = BYTECODE_REFUSED.to_string();
                }
                err.location = Some(chunk.clone());
            }
            // Undo what the half-loaded mod spawned; the rest of the world is untouched.
            let gone: Vec<CreatureId> = self
                .shared
                .borrow_mut()
                .spawned
                .drain(spawned_before..)
                .map(|(_, id)| id)
                .collect();
            let mut w = self.world.borrow_mut();
            for id in &gone {
                w.push(Command::Despawn(*id));
            }
            self.shared
                .borrow_mut()
                .brain_requests
                .retain(|r| !gone.contains(&r.id) && r.mod_name != m.name);
            return Err(err);
        }
        let m_rt = ModRuntime {
            manifest: m.clone(),
            lua,
            budget,
            suspended: None,
        };
        self.mods.push(m_rt);
        Ok(())
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
                let table: Table = match &req.kind {
                    BrainKind::Behaviour(n) => lua
                        .named_registry_value::<Table>("skitter.behaviours")?
                        .raw_get(n.as_str())?,
                    BrainKind::Type(t) => lua
                        .named_registry_value::<Table>("skitter.types")?
                        .raw_get(t.as_str())?,
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
                    handle: handle.clone(),
                    on_update: f("on_update")?,
                    on_step: f("on_step")?,
                    on_hit: f("on_hit")?,
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
            }
            None => {
                if self.manual.remove(&id).is_some() {
                    self.world
                        .borrow_mut()
                        .push(Command::SetIntent(id, Intent::Idle));
                }
            }
        }
    }

    /// Creatures walking to a destination given by hand.
    pub fn destinations(&self) -> Vec<(CreatureId, Vec3)> {
        self.manual.iter().map(|(id, d)| (*id, *d)).collect()
    }

    /// Steers hand-sent creatures; drops those that arrived or are gone.
    fn steer_manual(&mut self) {
        let mut arrived = Vec::new();
        {
            let mut w = self.world.borrow_mut();
            for (id, dest) in &self.manual {
                let Some(c) = w.creature(*id) else {
                    arrived.push(*id);
                    continue;
                };
                let to = Vec3::new(dest.x - c.loco.position.x, 0.0, dest.z - c.loco.position.z);
                let dist = to.length();
                let intent = if dist < c.def.nav.stopping_distance.max(0.25) {
                    arrived.push(*id);
                    Intent::Idle
                } else {
                    Intent::Move {
                        dir: to / dist,
                        speed: c.def.nav.speed.min(0.4 + dist),
                    }
                };
                w.push(Command::SetIntent(*id, intent));
            }
        }
        for id in arrived {
            self.manual.remove(&id);
        }
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
        self.steer_manual();
        self.apply_brain_requests();
        self.world.borrow_mut().step(TICK_DT);
        let events = self.world.borrow_mut().drain_events();
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
