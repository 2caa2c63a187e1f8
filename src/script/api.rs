//! The Lua API of contract v1, installed into each mod's Luau state: `vec3`, `curve`,
//! `creature`, `behaviour`, `world`, creature handles, `log`/`print`, `require`, and
//! clear "not available yet" errors for the parts of the contract still to come.
//! Scripts never hold references into the World: handles carry ids, writes become commands.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

use glam::Vec3;
use mlua::chunk::ChunkMode;
use mlua::{Function, Lua, MultiValue, Table, UserData, UserDataMethods, Value, VmState};

use super::convert::{self, as_number, as_vec3, to_vector, type_name, LuaCurve, Reader, CALLBACKS};
use super::plain::Plain;
use crate::locomotion::{DefError, Intent};
use crate::math::bezier::{BezierPath, ControlPoint};
use crate::math::frame::{forward_from_yaw, horizontal, yaw_of};
use crate::math::Curve;
use crate::path::{LoopMode, PathFollower, RotationMode};
use crate::sim::{Command, CreatureId, World};
use std::sync::Arc;

/// A log line from a mod (`log.info/warn/error`, `print`).
#[derive(Clone, Debug, PartialEq)]
pub struct LogLine {
    /// Mod name.
    pub mod_name: String,
    /// "info", "warn" or "error".
    pub level: &'static str,
    /// The text.
    pub text: String,
}

/// Where a creature's callbacks come from.
#[derive(Clone, Debug, PartialEq)]
pub enum BrainKind {
    /// A behaviour defined with `behaviour.define` (by its unqualified name).
    Behaviour(String),
    /// The callbacks carried by the creature type itself (by its qualified name).
    Type(String),
}

/// A request to (re)attach a brain, applied by the host between callbacks.
#[derive(Clone, Debug, PartialEq)]
pub struct BrainRequest {
    /// The creature.
    pub id: CreatureId,
    /// The mod whose state runs the brain.
    pub mod_name: String,
    /// Which callbacks.
    pub kind: BrainKind,
    /// Params given at spawn / set_behaviour (merged over the behaviour's defaults).
    pub params: Plain,
}

/// What the host knows about a registered creature type.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeMeta {
    /// Mod that defined it.
    pub mod_name: String,
    /// Unqualified name.
    pub bare: String,
    /// Default brain (`behaviour = "..."`), unresolved.
    pub default_behaviour: Option<String>,
    /// Whether the type table carries callbacks.
    pub has_callbacks: bool,
}

/// What a camera on a path looks at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LookAt {
    /// A creature.
    Creature(CreatureId),
    /// A point.
    Point(Vec3),
}

/// What a script asked of the camera (`camera.follow`, `camera.look`, `camera.path`); the
/// window applies it.
#[derive(Clone, Debug, PartialEq)]
pub enum CameraRequest {
    /// Fly along a path over `duration` seconds of simulation time, eased by `ease`.
    Path {
        /// The path.
        path: Arc<BezierPath>,
        /// Seconds from start to end.
        duration: f32,
        /// Progress 0..1 over time 0..1.
        ease: Curve,
        /// Look at this (else along the path).
        look_at: Option<LookAt>,
    },
    /// Keep this creature in view.
    Follow(CreatureId),
    /// Look from a point at a point.
    Look {
        /// Eye position.
        from: Vec3,
        /// Point looked at.
        at: Vec3,
    },
}

/// State shared by all mods of one host (plain data only: never a Lua value).
#[derive(Clone, Debug, Default)]
pub struct Shared {
    /// Behaviours: (mod, name).
    pub behaviours: BTreeSet<(String, String)>,
    /// Creature types by qualified name.
    pub types: BTreeMap<String, TypeMeta>,
    /// Brain changes to apply.
    pub brain_requests: Vec<BrainRequest>,
    /// Log lines to show.
    pub logs: Vec<LogLine>,
    /// Creatures spawned, with the mod that spawned them.
    pub spawned: Vec<(String, CreatureId)>,
    /// Camera requests, oldest first.
    pub camera: Vec<CameraRequest>,
    /// The mod whose entry script is running (load or reload), if any.
    pub loading: Option<String>,
    /// Spawns made by entry scripts: (mod, qualified type, id), in call order. A reload
    /// matches the new version's spawns against these by (type, order).
    pub load_spawns: Vec<(String, String, CreatureId)>,
    /// During a reload: the previous version's load-time creatures still to be matched, by
    /// type, in call order. A matching `world.spawn` returns the kept creature.
    pub reuse: BTreeMap<String, std::collections::VecDeque<CreatureId>>,
    /// Creatures a reload kept (matched), for the host to carry their state over.
    pub kept: Vec<CreatureId>,
    /// Most creatures one mod may have alive (a user setting, never a mod's).
    pub max_creatures: usize,
    /// Spawns per mod since its alive count was last taken (for the cap).
    pub spawn_count: BTreeMap<String, usize>,
    /// `skitter check`: definition errors are collected and scripts go on.
    pub check_mode: bool,
    /// Errors collected in check mode: (mod, "mod/file.lua:LINE: message").
    pub check_errors: Vec<(String, String)>,
}

/// Why a mod's callback was stopped from outside.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Overrun {
    /// Ran past its CPU budget.
    Cpu,
    /// Allocated past its memory limit.
    Memory,
}

/// A mod's CPU and memory budget, checked from Luau's interrupt.
#[derive(Debug)]
pub struct Budget {
    /// CPU time allowed in the current window (a tick, or the load).
    pub limit: Cell<Duration>,
    /// CPU time used in the current window.
    pub used: Cell<Duration>,
    started: Cell<Option<Instant>>,
    /// Thread CPU clock at the window's start: confirms a wall-clock overrun was the mod's
    /// own work, not the OS running something else.
    cpu_start: Cell<Option<cpu_time::ThreadTime>>,
    counter: Cell<u32>,
    /// Set when a limit was hit; every later interrupt fails until cleared, so `pcall` cannot swallow it.
    pub overrun: Cell<Option<Overrun>>,
    /// Where the overrun happened.
    pub overrun_at: RefCell<Option<String>>,
    /// Memory limit of the state, bytes.
    pub memory_limit: usize,
}

impl Budget {
    /// A budget of `limit` per window and `memory_limit` bytes.
    pub fn new(limit: Duration, memory_limit: usize) -> Budget {
        Budget {
            limit: Cell::new(limit),
            used: Cell::new(Duration::ZERO),
            started: Cell::new(None),
            cpu_start: Cell::new(None),
            counter: Cell::new(0),
            overrun: Cell::new(None),
            overrun_at: RefCell::new(None),
            memory_limit,
        }
    }

    /// Starts a new window of `limit`.
    pub fn reset(&self, limit: Duration) {
        self.limit.set(limit);
        self.used.set(Duration::ZERO);
        self.cpu_start.set(None);
    }

    /// Starts timing a call.
    pub fn begin(&self) {
        self.started.set(Some(Instant::now()));
    }

    /// Whether this thread has really spent `limit` of CPU since the window began (the thread
    /// clock is read lazily: the first wall-clock overrun of a window starts it).
    fn cpu_confirms(&self) -> bool {
        match self.cpu_start.get() {
            Some(t0) => t0
                .try_elapsed()
                .map(|d| d > self.limit.get())
                .unwrap_or(true),
            None => {
                // Start the CPU clock now, backdated by nothing: the next checks compare the CPU
                // used from here plus what the wall clock already counted.
                match cpu_time::ThreadTime::try_now() {
                    Ok(t) => {
                        self.cpu_start.set(Some(t));
                        false
                    }
                    Err(_) => true,
                }
            }
        }
    }

    /// Stops timing a call.
    pub fn end(&self) {
        if let Some(s) = self.started.take() {
            self.used.set(self.used.get() + s.elapsed());
        }
    }

    /// The interrupt check: fails once the budget is spent, and on every call after.
    pub fn check_interrupt(&self, lua: &Lua) -> mlua::Result<VmState> {
        if let Some(o) = self.overrun.get() {
            return Err(self.overrun_error(o));
        }
        let n = self.counter.get().wrapping_add(1);
        self.counter.set(n);
        if n & 31 != 0 {
            return Ok(VmState::Continue);
        }
        let over_cpu = self
            .started
            .get()
            .is_some_and(|s| self.used.get() + s.elapsed() > self.limit.get())
            && self.cpu_confirms();
        let over_mem = lua.used_memory() > self.memory_limit / 10 * 9;
        let o = if over_cpu {
            Overrun::Cpu
        } else if over_mem {
            Overrun::Memory
        } else {
            return Ok(VmState::Continue);
        };
        self.overrun.set(Some(o));
        *self.overrun_at.borrow_mut() = caller_location(lua);
        Err(self.overrun_error(o))
    }

    /// The error text for an overrun.
    pub fn overrun_message(&self, o: Overrun) -> String {
        match o {
            Overrun::Cpu => format!(
                "CPU budget exceeded: more than {:.1} ms",
                self.limit.get().as_secs_f64() * 1e3
            ),
            Overrun::Memory => format!(
                "memory limit exceeded: more than {} MiB",
                self.memory_limit >> 20
            ),
        }
    }

    /// The error raised inside the script for an overrun.
    pub fn overrun_error(&self, o: Overrun) -> mlua::Error {
        mlua::Error::runtime(self.overrun_message(o))
    }
}

/// A mod's context, reachable from every API function through the state's app data.
pub struct ModCtx {
    /// Mod name.
    pub name: String,
    /// Folders code may be required from: mod name → (folder, the mod names it may require from).
    pub roots: BTreeMap<String, (PathBuf, BTreeSet<String>)>,
    /// The world.
    pub world: Rc<RefCell<World>>,
    /// Host-wide plain state.
    pub shared: Rc<RefCell<Shared>>,
    /// Where each type / behaviour name was defined in this mod (duplicates are errors).
    defined: RefCell<BTreeMap<String, String>>,
}

impl ModCtx {
    /// A context for mod `name`.
    pub fn new(
        name: &str,
        roots: BTreeMap<String, (PathBuf, BTreeSet<String>)>,
        world: Rc<RefCell<World>>,
        shared: Rc<RefCell<Shared>>,
    ) -> ModCtx {
        ModCtx {
            name: name.to_string(),
            roots,
            world,
            shared,
            defined: RefCell::new(BTreeMap::new()),
        }
    }
}

fn ctx(lua: &Lua) -> mlua::Result<Rc<ModCtx>> {
    lua.app_data_ref::<Rc<ModCtx>>()
        .map(|c| c.clone())
        .ok_or_else(|| mlua::Error::runtime("skitter: no mod context"))
}

/// `mod/file.lua:LINE` of the innermost Lua frame on the stack, if any.
pub fn caller_location(lua: &Lua) -> Option<String> {
    for level in 0..12 {
        let found = lua.inspect_stack(level, |d| {
            let src = d.source();
            if src.what == "C" {
                return None;
            }
            let line = d.current_line()?;
            let short = src.short_src.as_deref()?.to_string();
            Some(format!("{short}:{line}"))
        });
        match found {
            None => return None,
            Some(Some(loc)) => return Some(loc),
            Some(None) => {}
        }
    }
    None
}

/// A runtime error prefixed with the calling script's location.
pub fn located(lua: &Lua, msg: impl std::fmt::Display) -> mlua::Error {
    match caller_location(lua) {
        Some(loc) => mlua::Error::runtime(format!("{loc}: {msg}")),
        None => mlua::Error::runtime(msg.to_string()),
    }
}

fn def_err(lua: &Lua, what: &str, e: DefError) -> mlua::Error {
    located(lua, format!("{what}: {e}"))
}

fn not_yet(lua: &Lua, what: &str) -> mlua::Error {
    located(lua, format!("{what} is not available yet in skitter {} (it is part of contract v1 and will land in a later release)", env!("CARGO_PKG_VERSION")))
}

fn log_line(lua: &Lua, level: &'static str, args: MultiValue) -> mlua::Result<()> {
    let c = ctx(lua)?;
    let mut parts = Vec::new();
    for v in args.iter() {
        parts.push(match v {
            Value::String(s) => s.to_string_lossy(),
            Value::Nil => "nil".into(),
            Value::Boolean(b) => b.to_string(),
            Value::Vector(v) => format!("vec3({}, {}, {})", v.x(), v.y(), v.z()),
            other => match as_number(other) {
                Some(n) => n.to_string(),
                None => other
                    .to_string()
                    .unwrap_or_else(|_| type_name(other).to_string()),
            },
        });
    }
    c.shared.borrow_mut().logs.push(LogLine {
        mod_name: c.name.clone(),
        level,
        text: parts.join("\t"),
    });
    Ok(())
}

/// Installs the API into a fresh state (before `sandbox(true)` freezes the globals).
pub fn install(lua: &Lua, mod_ctx: Rc<ModCtx>, seed: u64) -> mlua::Result<()> {
    lua.set_app_data(mod_ctx.clone());
    let g = lua.globals();
    // Code is loaded only by `require`, as text, from inside the allowed folders.
    g.raw_set("loadstring", Value::Nil)?;
    g.raw_set("require", lua.create_function(require)?)?;
    g.raw_set(
        "print",
        lua.create_function(|lua, args: MultiValue| log_line(lua, "info", args))?,
    )?;
    let log = lua.create_table()?;
    log.raw_set(
        "info",
        lua.create_function(|lua, args: MultiValue| log_line(lua, "info", args))?,
    )?;
    log.raw_set(
        "warn",
        lua.create_function(|lua, args: MultiValue| log_line(lua, "warn", args))?,
    )?;
    log.raw_set(
        "error",
        lua.create_function(|lua, args: MultiValue| log_line(lua, "error", args))?,
    )?;
    g.raw_set("log", log)?;

    // Deterministic random numbers: seeded from the run seed and the mod name.
    let mut h: u64 = seed ^ 0x9e37_79b9_7f4a_7c15;
    for b in mod_ctx.name.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    let rng = Rc::new(Cell::new(h | 1));
    let math: Table = g.raw_get("math")?;
    let r = rng.clone();
    math.raw_set(
        "random",
        lua.create_function(move |lua, (m, n): (Option<f64>, Option<f64>)| {
            let mut x = r.get();
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            r.set(x);
            let u = (x >> 11) as f64 / (1u64 << 53) as f64;
            match (m, n) {
                (None, _) => Ok(u),
                (Some(m), None) if m >= 1.0 => Ok((u * m.floor()).floor() + 1.0),
                (Some(m), Some(n)) if n >= m => {
                    Ok(m.floor() + (u * (n.floor() - m.floor() + 1.0)).floor())
                }
                _ => Err(located(lua, "math.random: interval is empty")),
            }
        })?,
    )?;
    math.raw_set(
        "randomseed",
        lua.create_function(move |_, s: f64| {
            rng.set((s.to_bits() ^ 0x2545_f491_4f6c_dd1d) | 1);
            Ok(())
        })?,
    )?;

    let vector: Table = g.raw_get("vector")?;
    g.raw_set("vec3", vector.raw_get::<Function>("create")?)?;

    install_curve(lua, &g)?;
    install_defines(lua, &g)?;
    install_world(lua, &g)?;
    install_handles(lua)?;

    let path = lua.create_table()?;
    path.raw_set(
        "bezier",
        lua.create_function(|lua, t: Value| bezier(lua, t))?,
    )?;
    g.raw_set("path", path)?;
    let camera = lua.create_table()?;
    camera.raw_set(
        "follow",
        lua.create_function(|lua, c: Value| {
            let Value::Table(t) = &c else {
                return Err(located(
                    lua,
                    format!(
                        "camera.follow: expects a creature handle, got {}",
                        type_name(&c)
                    ),
                ));
            };
            let id = handle_id(lua, t)?;
            ctx(lua)?
                .shared
                .borrow_mut()
                .camera
                .push(CameraRequest::Follow(id));
            Ok(())
        })?,
    )?;
    camera.raw_set(
        "look",
        lua.create_function(|lua, (from, at): (Value, Value)| {
            let from = arg_vec(lua, "camera.look: from", &from)?;
            let at = arg_vec(lua, "camera.look: at", &at)?;
            if from.distance(at) < 1e-3 {
                return Err(located(lua, "camera.look: from and at must differ"));
            }
            ctx(lua)?
                .shared
                .borrow_mut()
                .camera
                .push(CameraRequest::Look { from, at });
            Ok(())
        })?,
    )?;
    camera.raw_set(
        "path",
        lua.create_function(|lua, (p, opts): (Value, Option<Table>)| camera_path(lua, p, opts))?,
    )?;
    g.raw_set("camera", camera)?;

    let modules = lua.create_table()?;
    lua.set_named_registry_value("skitter.modules", modules)?;
    lua.set_named_registry_value("skitter.behaviours", lua.create_table()?)?;
    lua.set_named_registry_value("skitter.types", lua.create_table()?)?;
    lua.set_named_registry_value("skitter.handles", lua.create_table()?)?;
    Ok(())
}

fn install_curve(lua: &Lua, g: &Table) -> mlua::Result<()> {
    let curve = lua.create_table()?;
    curve.raw_set(
        "linear",
        lua.create_function(|lua, t: Table| {
            convert::curve_from_points(&t, true)
                .map(LuaCurve)
                .map_err(|m| located(lua, format!("curve.linear: {m}")))
        })?,
    )?;
    curve.raw_set(
        "sine_arc",
        lua.create_function(|_, ()| Ok(LuaCurve(Curve::SineArc)))?,
    )?;
    curve.raw_set(
        "smoothstep",
        lua.create_function(|lua, (a, b): (f64, f64)| {
            Curve::smoothstep(a as f32, b as f32)
                .map(LuaCurve)
                .map_err(|e| located(lua, format!("curve.smoothstep: {e}")))
        })?,
    )?;
    let mt = lua.create_table()?;
    mt.raw_set(
        "__call",
        lua.create_function(|lua, (_, t): (Table, Value)| match t {
            Value::Table(t) => convert::curve_from_points(&t, false)
                .map(LuaCurve)
                .map_err(|m| located(lua, format!("curve: {m}"))),
            other => Err(located(
                lua,
                format!(
                    "curve: expects a list of {{x, y}} points, got {}",
                    type_name(&other)
                ),
            )),
        })?,
    )?;
    curve.set_metatable(Some(mt))?;
    g.raw_set("curve", curve)
}

fn install_defines(lua: &Lua, g: &Table) -> mlua::Result<()> {
    let creature = lua.create_table()?;
    creature.raw_set(
        "define",
        lua.create_function(|lua, v: Value| {
            let fallback = v.clone();
            soft(lua, define_creature(lua, v), fallback)
        })?,
    )?;
    g.raw_set("creature", creature)?;

    let behaviour = lua.create_table()?;
    behaviour.raw_set(
        "define",
        lua.create_function(|lua, v: Value| {
            let fallback = v.clone();
            soft(lua, define_behaviour(lua, v), fallback)
        })?,
    )?;
    g.raw_set("behaviour", behaviour)
}

/// `creature.define`.
fn define_creature(lua: &Lua, t: Value) -> mlua::Result<Value> {
    let Value::Table(t) = t else {
        return Err(located(
            lua,
            format!("creature.define: expects a table, got {}", type_name(&t)),
        ));
    };
    let c = ctx(lua)?;
    let (def, behaviour) =
        convert::creature_def(lua, t.clone()).map_err(|e| def_err(lua, "creature.define", e))?;
    let valid = def
        .validate()
        .map_err(|e| def_err(lua, "creature.define", e))?;
    let here = caller_location(lua).unwrap_or_else(|| c.name.clone());
    let key = format!("type:{}", def.name);
    if let Some(prev) = c.defined.borrow().get(&key) {
        return Err(located(
            lua,
            format!(
                "creature.define: creature type \"{}\" is already defined in this mod (at {prev})",
                def.name
            ),
        ));
    }
    let qualified = format!("{}/{}", c.name, def.name);
    {
        let shared = c.shared.borrow();
        if let Some(other) = shared
            .types
            .values()
            .find(|m| m.bare == def.name && m.mod_name != c.name)
        {
            return Err(located(
                        lua,
                        format!(
                            "creature.define: creature type \"{}\" is also defined by mod \"{}\"; a bare name must be unique among loaded mods",
                            def.name, other.mod_name
                        ),
                    ));
        }
    }
    c.defined.borrow_mut().insert(key, here);
    let has_callbacks = CALLBACKS
        .iter()
        .any(|k| matches!(t.raw_get::<Value>(*k), Ok(Value::Function(_))));
    c.world.borrow_mut().register_type(&qualified, valid);
    c.shared.borrow_mut().types.insert(
        qualified.clone(),
        TypeMeta {
            mod_name: c.name.clone(),
            bare: def.name.clone(),
            default_behaviour: behaviour,
            has_callbacks,
        },
    );
    lua.named_registry_value::<Table>("skitter.types")?
        .raw_set(qualified, t.clone())?;
    Ok(Value::Table(t))
}

/// `behaviour.define`.
fn define_behaviour(lua: &Lua, t: Value) -> mlua::Result<Value> {
    let Value::Table(t) = t else {
        return Err(located(
            lua,
            format!("behaviour.define: expects a table, got {}", type_name(&t)),
        ));
    };
    let c = ctx(lua)?;
    const KEYS: &[&str] = &[
        "name",
        "params",
        "on_spawn",
        "on_update",
        "on_arrive",
        "on_step",
        "on_hit",
        "on_reload",
    ];
    let r = Reader::new(t.clone(), "", KEYS);
    let check = || -> Result<String, DefError> {
        let name = r
            .string("name")?
            .ok_or_else(|| DefError::new("name", "is required (a string)"))?;
        if name.is_empty() || name.contains('/') {
            return Err(DefError::new(
                "name",
                format!("must be a non-empty name without '/', got \"{name}\""),
            ));
        }
        r.table("params")?;
        for cb in CALLBACKS {
            r.function(cb)?;
        }
        Ok(name)
    };
    let name = check().map_err(|e| def_err(lua, "behaviour.define", e))?;
    r.finish()
        .map_err(|e| def_err(lua, "behaviour.define", e))?;
    let key = format!("behaviour:{name}");
    if let Some(prev) = c.defined.borrow().get(&key) {
        return Err(located(
            lua,
            format!(
                "behaviour.define: behaviour \"{name}\" is already defined in this mod (at {prev})"
            ),
        ));
    }
    if let Some((other, _)) = c
        .shared
        .borrow()
        .behaviours
        .iter()
        .find(|(m, n)| *n == name && *m != c.name)
    {
        return Err(located(
                    lua,
                    format!("behaviour.define: behaviour \"{name}\" is also defined by mod \"{other}\"; a bare name must be unique among loaded mods"),
                ));
    }
    let here = caller_location(lua).unwrap_or_else(|| c.name.clone());
    c.defined.borrow_mut().insert(key, here);
    c.shared
        .borrow_mut()
        .behaviours
        .insert((c.name.clone(), name.clone()));
    lua.named_registry_value::<Table>("skitter.behaviours")?
        .raw_set(name, t.clone())?;
    Ok(Value::Table(t))
}

/// In `skitter check` a definition error is noted and the script goes on (so one run
/// reports every bad definition); otherwise it is raised as usual.
fn soft<T>(lua: &Lua, r: mlua::Result<T>, fallback: T) -> mlua::Result<T> {
    match r {
        Ok(v) => Ok(v),
        Err(e) => {
            let c = ctx(lua)?;
            let mut sh = c.shared.borrow_mut();
            if !sh.check_mode {
                return Err(e);
            }
            let text = match &e {
                mlua::Error::RuntimeError(s) => s.clone(),
                other => other.to_string(),
            };
            sh.check_errors.push((c.name.clone(), text));
            Ok(fallback)
        }
    }
}

/// Resolves a creature type name as the calling mod sees it: `mod/name`, or a bare name
/// (this mod's first, else the one loaded mod that defines it).
fn resolve_type(c: &ModCtx, name: &str) -> Result<String, String> {
    let shared = c.shared.borrow();
    if name.contains('/') {
        return if shared.types.contains_key(name) {
            Ok(name.to_string())
        } else {
            Err(format!("unknown creature type \"{name}\""))
        };
    }
    let own = format!("{}/{name}", c.name);
    if shared.types.contains_key(&own) {
        return Ok(own);
    }
    let found: Vec<&String> = shared
        .types
        .iter()
        .filter(|(_, m)| m.bare == name)
        .map(|(k, _)| k)
        .collect();
    match found.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(format!("unknown creature type \"{name}\"")),
        many => Err(format!(
            "creature type \"{name}\" is ambiguous: {}",
            many.iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Resolves a behaviour name relative to `home` (a mod name): (mod, name).
fn resolve_behaviour(shared: &Shared, home: &str, name: &str) -> Result<(String, String), String> {
    if let Some((m, n)) = name.split_once('/') {
        return if shared.behaviours.contains(&(m.to_string(), n.to_string())) {
            Ok((m.to_string(), n.to_string()))
        } else {
            Err(format!("unknown behaviour \"{name}\""))
        };
    }
    if shared
        .behaviours
        .contains(&(home.to_string(), name.to_string()))
    {
        return Ok((home.to_string(), name.to_string()));
    }
    let found: Vec<&(String, String)> = shared
        .behaviours
        .iter()
        .filter(|(_, n)| n == name)
        .collect();
    match found.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(format!("unknown behaviour \"{name}\"")),
        _ => Err(format!(
            "behaviour \"{name}\" is ambiguous; write it as \"mod/{name}\""
        )),
    }
}

/// The brain a new creature of `qualified` type gets, given an optional explicit behaviour.
fn brain_for(
    c: &ModCtx,
    qualified: &str,
    behaviour: Option<&str>,
) -> Result<Option<(String, BrainKind)>, String> {
    let shared = c.shared.borrow();
    let meta = shared
        .types
        .get(qualified)
        .ok_or_else(|| format!("unknown creature type \"{qualified}\""))?;
    if let Some(b) = behaviour {
        let (m, n) = resolve_behaviour(&shared, &c.name, b)?;
        return Ok(Some((m, BrainKind::Behaviour(n))));
    }
    if let Some(b) = &meta.default_behaviour {
        let (m, n) = resolve_behaviour(&shared, &meta.mod_name, b)
            .map_err(|e| format!("{e} (the default behaviour of \"{qualified}\")"))?;
        return Ok(Some((m, BrainKind::Behaviour(n))));
    }
    if meta.has_callbacks {
        return Ok(Some((
            meta.mod_name.clone(),
            BrainKind::Type(qualified.to_string()),
        )));
    }
    Ok(None)
}

fn arg_vec(lua: &Lua, what: &str, v: &Value) -> mlua::Result<Vec3> {
    match as_vec3(v) {
        Some(p) if p.is_finite() => Ok(p),
        Some(_) => Err(located(lua, format!("{what} must have finite components"))),
        None => Err(located(
            lua,
            format!(
                "{what} must be a vector (vec3(x, y, z)), got {}",
                type_name(v)
            ),
        )),
    }
}

fn install_world(lua: &Lua, g: &Table) -> mlua::Result<()> {
    let world = lua.create_table()?;
    world.raw_set(
        "ground",
        level_call(lua, "world.ground", |t, owner, w| {
            let desc = convert::ground_desc(t, w.seed() as u32)?;
            w.set_ground_for(owner, &desc)
        })?,
    )?;
    world.raw_set(
        "box",
        level_call(lua, "world.box", |t, owner, w| {
            w.add_box_for(owner, convert::box_desc(t)?)
        })?,
    )?;
    world.raw_set(
        "stairs",
        level_call(lua, "world.stairs", |t, owner, w| {
            w.add_stairs_for(owner, convert::stairs_desc(t)?)
        })?,
    )?;
    world.raw_set("spawn", lua.create_function(spawn)?)?;
    world.raw_set(
        "creatures",
        lua.create_function(|lua, filter: Option<Value>| {
            let c = ctx(lua)?;
            let want = match filter {
                None | Some(Value::Nil) => None,
                Some(v) => Some(type_arg(lua, &c, &v, "world.creatures")?),
            };
            let ids: Vec<(CreatureId, String)> = {
                let w = c.world.borrow();
                w.creatures()
                    .iter()
                    .filter_map(|cr| {
                        let name = w
                            .creature_type(cr.type_id)
                            .map(|t| t.name.clone())
                            .unwrap_or_default();
                        want.as_ref()
                            .is_none_or(|t| *t == name)
                            .then_some((cr.id, name))
                    })
                    .collect()
            };
            let out = lua.create_table_with_capacity(ids.len(), 0)?;
            for (i, (id, name)) in ids.into_iter().enumerate() {
                out.raw_set(i + 1, handle(lua, id, &name)?)?;
            }
            Ok(out)
        })?,
    )?;
    world.raw_set(
        "raycast",
        lua.create_function(|lua, (o, d, max): (Value, Value, Option<f64>)| {
            let c = ctx(lua)?;
            let o = arg_vec(lua, "world.raycast: origin", &o)?;
            let d = arg_vec(lua, "world.raycast: direction", &d)?;
            let max = max.unwrap_or(1000.0);
            if !(max >= 0.0 && max.is_finite()) {
                return Err(located(
                    lua,
                    "world.raycast: max_distance must be a finite number >= 0",
                ));
            }
            let hit = c.world.borrow_mut().raycast(o, d, max as f32);
            match hit {
                None => Ok(Value::Nil),
                Some(h) => {
                    let t = lua.create_table()?;
                    t.raw_set("position", to_vector(h.position))?;
                    t.raw_set("normal", to_vector(h.normal))?;
                    t.raw_set("distance", h.distance as f64)?;
                    Ok(Value::Table(t))
                }
            }
        })?,
    )?;
    world.raw_set(
        "time",
        lua.create_function(|lua, ()| Ok(ctx(lua)?.world.borrow().time()))?,
    )?;
    world.raw_set(
        "random_nav_point",
        lua.create_function(|lua, (near, radius): (Option<Value>, Option<f64>)| {
            let near = match near {
                None | Some(Value::Nil) => None,
                Some(v) => {
                    let c = arg_vec(lua, "world.random_nav_point: near", &v)?;
                    let r = radius.unwrap_or(5.0) as f32;
                    if !(r > 0.0) || !r.is_finite() {
                        return Err(located(
                            lua,
                            format!("world.random_nav_point: radius must be > 0, got {r}"),
                        ));
                    }
                    Some((c, r))
                }
            };
            let p = ctx(lua)?.world.borrow_mut().random_nav_point(near);
            Ok(p.map(to_vector))
        })?,
    )?;
    world.raw_set(
        "nearest_nav_point",
        lua.create_function(|lua, v: Value| {
            let p = arg_vec(lua, "world.nearest_nav_point: point", &v)?;
            Ok(ctx(lua)?
                .world
                .borrow_mut()
                .nearest_nav_point(p)
                .map(to_vector))
        })?,
    )?;
    g.raw_set("world", world)
}

/// A level-building function (`world.ground`, `world.box`, `world.stairs`): reads its table
/// and changes the level, any error named `what: field '...' ...` at the calling line.
fn level_call(
    lua: &Lua,
    what: &'static str,
    build: fn(Table, &str, &mut World) -> Result<(), DefError>,
) -> mlua::Result<Function> {
    lua.create_function(move |lua, t: Table| {
        let c = ctx(lua)?;
        let r = build(t, &c.name, &mut c.world.borrow_mut());
        soft(lua, r.map_err(|e| def_err(lua, what, e)), ())
    })
}

fn type_arg(lua: &Lua, c: &ModCtx, v: &Value, what: &str) -> mlua::Result<String> {
    let name = match v {
        Value::String(s) => s.to_string_lossy(),
        Value::Table(t) => match t.raw_get::<Value>("name")? {
            Value::String(s) => s.to_string_lossy(),
            _ => return Err(located(lua, format!("{what}: the type table has no name"))),
        },
        other => {
            return Err(located(
                lua,
                format!(
                    "{what}: the type must be a name or a creature type, got {}",
                    type_name(other)
                ),
            ))
        }
    };
    resolve_type(c, &name).map_err(|e| located(lua, format!("{what}: {e}")))
}

fn spawn(lua: &Lua, (ty, opts): (Value, Option<Table>)) -> mlua::Result<Table> {
    let c = ctx(lua)?;
    let qualified = type_arg(lua, &c, &ty, "world.spawn")?;
    let (position, yaw, behaviour, params) = match opts {
        None => (Vec3::ZERO, 0.0, None, Plain::Nil),
        Some(t) => {
            let r = Reader::new(t, "", &["position", "yaw", "behaviour", "params"]);
            let read = || -> Result<_, DefError> {
                let p = r.vec("position")?.unwrap_or(Vec3::ZERO);
                if !p.is_finite() {
                    return Err(DefError::new("position", "must have finite components"));
                }
                let yaw = r.num_or("yaw", 0.0)?;
                if !yaw.is_finite() {
                    return Err(DefError::new("yaw", "must be a finite number"));
                }
                let b = r.string("behaviour")?;
                let params = r
                    .table("params")?
                    .map(|t| Plain::from_lua(&Value::Table(t)))
                    .unwrap_or(Plain::Nil);
                Ok((p, yaw, b, params))
            };
            let v = read().map_err(|e| def_err(lua, "world.spawn", e))?;
            r.finish().map_err(|e| def_err(lua, "world.spawn", e))?;
            v
        }
    };
    let brain = brain_for(&c, &qualified, behaviour.as_deref())
        .map_err(|e| located(lua, format!("world.spawn: {e}")))?;
    // A reload: the previous version's n-th load-time spawn of this type is the creature.
    let kept = {
        let mut shared = c.shared.borrow_mut();
        let w = c.world.borrow();
        let mut found = None;
        if let Some(q) = shared.reuse.get_mut(&qualified) {
            while let Some(id) = q.pop_front() {
                if w.creature(id).is_some() {
                    found = Some(id);
                    break;
                }
            }
        }
        found
    };
    if kept.is_none() {
        check_creature_cap(lua, &c)?;
    }
    let id = if let Some(id) = kept {
        c.shared.borrow_mut().kept.push(id);
        id
    } else {
        let mut w = c.world.borrow_mut();
        let t = w.type_by_name(&qualified).ok_or_else(|| {
            located(
                lua,
                format!("world.spawn: unknown creature type \"{qualified}\""),
            )
        })?;
        w.spawn(t, position, yaw.to_radians())
            .ok_or_else(|| located(lua, "world.spawn: spawn failed"))?
    };
    {
        let mut shared = c.shared.borrow_mut();
        if kept.is_none() {
            shared.spawned.push((c.name.clone(), id));
            *shared.spawn_count.entry(c.name.clone()).or_default() += 1;
        }
        if shared.loading.as_deref() == Some(c.name.as_str()) {
            shared
                .load_spawns
                .push((c.name.clone(), qualified.clone(), id));
        }
        if let Some((mod_name, kind)) = brain {
            shared.brain_requests.push(BrainRequest {
                id,
                mod_name,
                kind,
                params,
            });
        }
    }
    handle(lua, id, &qualified)
}

/// Fails when the calling mod already has as many creatures alive as the user allows.
fn check_creature_cap(lua: &Lua, c: &ModCtx) -> mlua::Result<()> {
    let mut shared = c.shared.borrow_mut();
    let max = shared.max_creatures;
    if max == 0 || shared.spawn_count.get(&c.name).copied().unwrap_or(0) < max {
        return Ok(());
    }
    // Recount: only creatures still alive count against the cap.
    let w = c.world.borrow();
    let shared = &mut *shared;
    shared
        .spawned
        .retain(|(m, id)| m != &c.name || w.creature(*id).is_some());
    let alive = shared.spawned.iter().filter(|(m, _)| m == &c.name).count();
    shared.spawn_count.insert(c.name.clone(), alive);
    if alive >= max {
        return Err(located(
            lua,
            format!(
                "world.spawn: mod \"{}\" already has {alive} creatures, its limit (--max-creatures {max})",
                c.name
            ),
        ));
    }
    Ok(())
}

/// The handle table of creature `id` in this state (created once, then cached).
pub fn handle(lua: &Lua, id: CreatureId, type_name: &str) -> mlua::Result<Table> {
    let handles: Table = lua.named_registry_value("skitter.handles")?;
    if let Value::Table(t) = handles.raw_get::<Value>(id.0)? {
        return Ok(t);
    }
    let t = lua.create_table_with_capacity(0, 6)?;
    t.raw_set("id", id.0)?;
    t.raw_set("type", type_name)?;
    t.raw_set("params", lua.create_table()?)?;
    t.raw_set("state", lua.create_table()?)?;
    t.raw_set("gait", GaitProxy(id))?;
    t.raw_set("lean", LeanProxy(id, None))?;
    let mt: Table = lua.named_registry_value("skitter.handle_mt")?;
    t.set_metatable(Some(mt))?;
    handles.raw_set(id.0, t.clone())?;
    Ok(t)
}

/// Forgets a handle (the creature is gone).
pub fn drop_handle(lua: &Lua, id: CreatureId) -> mlua::Result<()> {
    let handles: Table = lua.named_registry_value("skitter.handles")?;
    handles.raw_set(id.0, Value::Nil)
}

fn handle_id(lua: &Lua, this: &Table) -> mlua::Result<CreatureId> {
    match this.raw_get::<Value>("id")? {
        v @ (Value::Number(_) | Value::Integer(_)) => {
            Ok(CreatureId(as_number(&v).unwrap_or(0.0) as u32))
        }
        _ => Err(located(
            lua,
            "expected a creature handle (call methods with ':', e.g. c:position())",
        )),
    }
}

/// Reads creature `id` through `f`, or fails with "no such creature".
fn with_creature<R>(
    lua: &Lua,
    this: &Table,
    f: impl FnOnce(&crate::sim::Creature) -> R,
) -> mlua::Result<R> {
    let id = handle_id(lua, this)?;
    let c = ctx(lua)?;
    let w = c.world.borrow();
    match w.creature(id) {
        Some(cr) => Ok(f(cr)),
        None => Err(located(lua, format!("creature {} no longer exists", id.0))),
    }
}

fn install_handles(lua: &Lua) -> mlua::Result<()> {
    let m = lua.create_table()?;
    m.raw_set(
        "position",
        lua.create_function(|lua, this: Table| {
            with_creature(lua, &this, |c| to_vector(c.loco.position))
        })?,
    )?;
    m.raw_set(
        "velocity",
        lua.create_function(|lua, this: Table| {
            with_creature(lua, &this, |c| to_vector(c.loco.velocity))
        })?,
    )?;
    m.raw_set(
        "forward",
        lua.create_function(|lua, this: Table| {
            with_creature(lua, &this, |c| to_vector(forward_from_yaw(c.loco.yaw)))
        })?,
    )?;
    m.raw_set(
        "yaw",
        lua.create_function(|lua, this: Table| {
            with_creature(lua, &this, |c| c.loco.yaw.to_degrees() as f64)
        })?,
    )?;
    m.raw_set(
        "move",
        lua.create_function(|lua, (this, dir, speed): (Table, Value, Option<f64>)| {
            let id = handle_id(lua, &this)?;
            let d = arg_vec(lua, "c:move: direction", &dir)?;
            let speed = speed.unwrap_or(1.0);
            if !(speed.is_finite() && speed >= 0.0) {
                return Err(located(
                    lua,
                    format!("c:move: speed must be a finite number >= 0, got {speed}"),
                ));
            }
            let h = horizontal(d);
            let intent = if speed == 0.0 || h.length_squared() < 1e-12 {
                if yaw_of(h).is_some() {
                    Intent::Face { dir: h.normalize() }
                } else {
                    Intent::Idle
                }
            } else {
                Intent::Move {
                    dir: h.normalize(),
                    speed: speed as f32,
                }
            };
            ctx(lua)?
                .world
                .borrow_mut()
                .push(Command::SetIntent(id, intent));
            Ok(())
        })?,
    )?;
    m.raw_set(
        "face",
        lua.create_function(|lua, (this, dir): (Table, Value)| {
            let id = handle_id(lua, &this)?;
            let d = horizontal(arg_vec(lua, "c:face: direction", &dir)?);
            if d.length_squared() < 1e-12 {
                return Err(located(
                    lua,
                    "c:face: direction must have a horizontal part",
                ));
            }
            ctx(lua)?
                .world
                .borrow_mut()
                .push(Command::SetIntent(id, Intent::Face { dir: d.normalize() }));
            Ok(())
        })?,
    )?;
    m.raw_set(
        "feet",
        lua.create_function(|lua, this: Table| {
            let feet: Vec<(String, Vec3, bool)> = with_creature(lua, &this, |c| {
                c.def
                    .legs
                    .iter()
                    .zip(c.loco.legs.iter())
                    .map(|(d, s)| (d.name.clone(), s.foot, s.grounded))
                    .collect()
            })?;
            let out = lua.create_table_with_capacity(feet.len(), 0)?;
            for (i, (name, p, g)) in feet.into_iter().enumerate() {
                let f = lua.create_table_with_capacity(0, 3)?;
                f.raw_set("name", name)?;
                f.raw_set("position", to_vector(p))?;
                f.raw_set("grounded", g)?;
                out.raw_set(i + 1, f)?;
            }
            Ok(out)
        })?,
    )?;
    m.raw_set(
        "set_behaviour",
        lua.create_function(
            |lua, (this, name, params): (Table, String, Option<Table>)| {
                let id = handle_id(lua, &this)?;
                let c = ctx(lua)?;
                if c.world.borrow().creature(id).is_none() {
                    return Err(located(lua, format!("creature {} no longer exists", id.0)));
                }
                let mut shared = c.shared.borrow_mut();
                let (mod_name, n) = resolve_behaviour(&shared, &c.name, &name)
                    .map_err(|e| located(lua, format!("c:set_behaviour: {e}")))?;
                let params = params
                    .map(|t| Plain::from_lua(&Value::Table(t)))
                    .unwrap_or(Plain::Nil);
                shared.brain_requests.push(BrainRequest {
                    id,
                    mod_name,
                    kind: BrainKind::Behaviour(n),
                    params,
                });
                Ok(())
            },
        )?,
    )?;
    m.raw_set(
        "set_destination",
        lua.create_function(|lua, (this, v): (Table, Value)| {
            let id = handle_id(lua, &this)?;
            let p = arg_vec(lua, "c:set_destination: point", &v)?;
            let c = ctx(lua)?;
            let mut w = c.world.borrow_mut();
            if w.creature(id).is_none() {
                return Err(located(lua, format!("creature {} no longer exists", id.0)));
            }
            w.push(Command::SetDestination(id, p));
            Ok(())
        })?,
    )?;
    m.raw_set(
        "clear_destination",
        lua.create_function(|lua, this: Table| {
            let id = handle_id(lua, &this)?;
            ctx(lua)?
                .world
                .borrow_mut()
                .push(Command::ClearDestination(id));
            Ok(())
        })?,
    )?;
    m.raw_set(
        "arrived",
        lua.create_function(|lua, this: Table| {
            let id = handle_id(lua, &this)?;
            let c = ctx(lua)?;
            let w = c.world.borrow();
            // A destination given this tick is not reached yet.
            if w.pending_destination(id) {
                return Ok(false);
            }
            Ok(w.creature(id)
                .and_then(|c| c.nav.as_ref())
                .is_some_and(|g| g.arrived))
        })?,
    )?;
    m.raw_set(
        "path",
        lua.create_function(|lua, this: Table| {
            let id = handle_id(lua, &this)?;
            let pts = ctx(lua)?
                .world
                .borrow_mut()
                .nav_path(id)
                .unwrap_or_default();
            let t = lua.create_table_with_capacity(pts.len(), 0)?;
            for (i, p) in pts.into_iter().enumerate() {
                t.raw_set(i + 1, to_vector(p))?;
            }
            Ok(t)
        })?,
    )?;
    for name in ["ragdoll", "recover", "is_ragdoll"] {
        let what = format!("c:{name}");
        m.raw_set(
            name,
            lua.create_function(move |lua, _: MultiValue| -> mlua::Result<()> {
                Err(not_yet(lua, &what))
            })?,
        )?;
    }
    m.raw_set(
        "hit",
        lua.create_function(|lua, (this, dir, strength): (Table, Value, Value)| {
            let id = handle_id(lua, &this)?;
            let d = arg_vec(lua, "c:hit: direction", &dir)?;
            if horizontal(d).length_squared() < 1e-12 {
                return Err(located(lua, "c:hit: direction must have a horizontal part"));
            }
            let k = match as_number(&strength) {
                Some(k) if k.is_finite() && k >= 0.0 => k as f32,
                _ => {
                    return Err(located(
                        lua,
                        format!(
                            "c:hit: strength must be a number >= 0, got {}",
                            type_name(&strength)
                        ),
                    ))
                }
            };
            let c = ctx(lua)?;
            let mut w = c.world.borrow_mut();
            if w.creature(id).is_none() {
                return Err(located(lua, format!("creature {} no longer exists", id.0)));
            }
            w.push(Command::Hit(id, d, k));
            Ok(())
        })?,
    )?;
    m.raw_set(
        "follow_path",
        lua.create_function(|lua, (this, p, opts): (Table, Value, Option<Table>)| {
            follow_path(lua, &this, p, opts)
        })?,
    )?;
    let mt = lua.create_table()?;
    mt.raw_set("__index", m)?;
    mt.raw_set(
        "__tostring",
        lua.create_function(|_, this: Table| {
            Ok(format!(
                "creature {} ({})",
                this.raw_get::<Value>("id")?.to_string()?,
                this.raw_get::<Value>("type")?.to_string()?
            ))
        })?,
    )?;
    mt.raw_set("__metatable", "creature")?;
    lua.set_named_registry_value("skitter.handle_mt", mt)
}

/// A Bézier path as a Lua value: `p:length()`, `p:point(s)`, `p:tangent(s)`, `p:closest(v)`,
/// `p:sample(n)`, `p:simplify(tolerance)`.
#[derive(Clone, Debug)]
pub struct LuaPath(pub Arc<BezierPath>);

fn finite_arg(lua: &Lua, what: &str, x: f64) -> mlua::Result<f32> {
    if x.is_finite() {
        Ok(x as f32)
    } else {
        Err(located(
            lua,
            format!("{what} must be a finite number, got {x}"),
        ))
    }
}

/// A small path userdata (for [`super::host::api_surface`] to list its methods).
pub fn sample_path_userdata(lua: &Lua) -> mlua::Result<mlua::AnyUserData> {
    let cp = |x: f32| ControlPoint {
        position: Vec3::new(x, 0.0, 0.0),
        handle_in: None,
        handle_out: None,
    };
    let p = BezierPath::new(&[cp(0.0), cp(1.0)], false).map_err(mlua::Error::external)?;
    lua.create_userdata(LuaPath(Arc::new(p)))
}

impl UserData for LuaPath {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("length", |_, this, ()| Ok(this.0.length() as f64));
        methods.add_method("point", |lua, this, s: f64| {
            Ok(to_vector(this.0.point(finite_arg(lua, "p:point: s", s)?)))
        });
        methods.add_method("tangent", |lua, this, s: f64| {
            Ok(to_vector(this.0.tangent(finite_arg(
                lua,
                "p:tangent: s",
                s,
            )?)))
        });
        methods.add_method("closest", |lua, this, v: Value| {
            let v = arg_vec(lua, "p:closest: point", &v)?;
            let s = this.0.closest(v);
            Ok((s as f64, to_vector(this.0.point(s))))
        });
        methods.add_method("sample", |lua, this, n: f64| {
            if !(1.0..=100_000.0).contains(&n) {
                return Err(located(
                    lua,
                    format!("p:sample: n must be between 1 and 100000, got {n}"),
                ));
            }
            let t = lua.create_table()?;
            for (i, p) in this.0.sample(n as usize).into_iter().enumerate() {
                t.raw_set(i + 1, to_vector(p))?;
            }
            Ok(t)
        });
        methods.add_method("simplify", |lua, this, tol: f64| {
            let tol = finite_arg(lua, "p:simplify: tolerance", tol)?;
            if tol <= 0.0 {
                return Err(located(lua, "p:simplify: tolerance must be > 0"));
            }
            Ok(LuaPath(Arc::new(this.0.simplify(tol))))
        });
        methods.add_meta_method("__tostring", |_, this, ()| {
            Ok(format!(
                "path({} points, {:.2} m{})",
                this.0.points().len(),
                this.0.length(),
                if this.0.closed() { ", closed" } else { "" }
            ))
        });
    }
}

fn bezier(lua: &Lua, t: Value) -> mlua::Result<LuaPath> {
    let Value::Table(t) = t else {
        return Err(located(
            lua,
            format!("path.bezier: expects a table, got {}", type_name(&t)),
        ));
    };
    let r = Reader::new(t, "", &["points", "closed"]);
    let read = || -> Result<(Vec<ControlPoint>, bool), DefError> {
        let closed = r.boolean("closed")?.unwrap_or(false);
        let pts = r.table("points")?.ok_or_else(|| {
            DefError::new("points", "is required (a list of { position = vec3(...) })")
        })?;
        let mut out = Vec::new();
        for (i, p) in pts.sequence_values::<Value>().enumerate() {
            let p = p.map_err(|e| DefError::new("points", e.to_string()))?;
            let Value::Table(p) = p else {
                return Err(DefError::new(
                    format!("points[{}]", i + 1),
                    format!("must be a table, got {}", type_name(&p)),
                ));
            };
            let pr = Reader::new(
                p,
                &format!("points[{}].", i + 1),
                &["position", "handle_in", "handle_out"],
            );
            let cp = ControlPoint {
                position: pr.vec_req("position")?,
                handle_in: pr.vec("handle_in")?,
                handle_out: pr.vec("handle_out")?,
            };
            pr.finish()?;
            out.push(cp);
        }
        Ok((out, closed))
    };
    let (points, closed) = read().map_err(|e| def_err(lua, "path.bezier", e))?;
    r.finish().map_err(|e| def_err(lua, "path.bezier", e))?;
    BezierPath::new(&points, closed)
        .map(|p| LuaPath(Arc::new(p)))
        .map_err(|e| located(lua, format!("path.bezier: {e}")))
}

fn path_arg(lua: &Lua, what: &str, v: &Value) -> mlua::Result<Arc<BezierPath>> {
    match v {
        Value::UserData(ud) => ud
            .borrow::<LuaPath>()
            .map(|p| p.0.clone())
            .map_err(|_| located(lua, format!("{what}: expects a path (path.bezier{{...}})"))),
        other => Err(located(
            lua,
            format!(
                "{what}: expects a path (path.bezier{{...}}), got {}",
                type_name(other)
            ),
        )),
    }
}

fn follow_path(lua: &Lua, this: &Table, p: Value, opts: Option<Table>) -> mlua::Result<()> {
    let id = handle_id(lua, this)?;
    let path = path_arg(lua, "c:follow_path", &p)?;
    let c = ctx(lua)?;
    let (legged, cruise, at) = {
        let w = c.world.borrow();
        let cr = w
            .creature(id)
            .ok_or_else(|| located(lua, format!("creature {} no longer exists", id.0)))?;
        (!cr.def.legs.is_empty(), cr.def.nav.speed, cr.loco.position)
    };
    let (speed, mode, rotation, speed_curve) = match opts {
        None => (cruise, LoopMode::Once, RotationMode::LookForward, None),
        Some(t) => {
            let r = Reader::new(t, "", &["speed", "loop", "rotation", "speed_curve"]);
            let read = || -> Result<_, DefError> {
                let speed = r.num_or("speed", cruise)?;
                if !(speed.is_finite() && speed >= 0.0) {
                    return Err(DefError::new(
                        "speed",
                        format!("must be a finite number >= 0, got {speed}"),
                    ));
                }
                let mode = match r.get_value("loop")? {
                    Value::Nil | Value::Boolean(false) => LoopMode::Once,
                    Value::Boolean(true) => LoopMode::Loop,
                    Value::String(s) if s.to_string_lossy() == "ping_pong" => LoopMode::PingPong,
                    other => {
                        return Err(DefError::new(
                            "loop",
                            format!(
                                "must be true, false or \"ping_pong\", got {}",
                                type_name(&other)
                            ),
                        ))
                    }
                };
                let rotation = match r.string("rotation")?.as_deref() {
                    None | Some("look_forward") => RotationMode::LookForward,
                    Some("smooth") => RotationMode::Smooth,
                    Some("none") => RotationMode::None,
                    Some(other) => {
                        return Err(DefError::new(
                            "rotation",
                            format!(
                                "must be \"look_forward\", \"smooth\" or \"none\", got \"{other}\""
                            ),
                        ))
                    }
                };
                Ok((speed, mode, rotation, r.curve("speed_curve")?))
            };
            let v = read().map_err(|e| def_err(lua, "c:follow_path", e))?;
            r.finish().map_err(|e| def_err(lua, "c:follow_path", e))?;
            v
        }
    };
    // Legged creatures walk the ground projection; legless ones fly the path itself.
    let followed = if legged {
        Arc::new(path.flattened(0.0))
    } else {
        path
    };
    let from = if legged {
        Vec3::new(at.x, 0.0, at.z)
    } else {
        at
    };
    let s = followed.closest(from);
    let f = PathFollower::new(followed, s, speed, mode, rotation, speed_curve);
    c.world
        .borrow_mut()
        .push(Command::FollowPath(id, Box::new(f)));
    Ok(())
}

fn camera_path(lua: &Lua, p: Value, opts: Option<Table>) -> mlua::Result<()> {
    let path = path_arg(lua, "camera.path", &p)?;
    let (duration, ease, look_at) = match opts {
        None => (
            path.length() / 4.0,
            Curve::Linear {
                xs: vec![0.0, 1.0],
                ys: vec![0.0, 1.0],
            },
            None,
        ),
        Some(t) => {
            let r = Reader::new(t, "", &["duration", "ease", "look_at"]);
            let read = || -> Result<_, DefError> {
                let d = r.num_or("duration", path.length() / 4.0)?;
                if !(d.is_finite() && d > 0.0) {
                    return Err(DefError::new("duration", format!("must be > 0, got {d}")));
                }
                let ease = r.curve("ease")?.unwrap_or(Curve::Linear {
                    xs: vec![0.0, 1.0],
                    ys: vec![0.0, 1.0],
                });
                let look = match r.get_value("look_at")? {
                    Value::Nil => None,
                    Value::Vector(v) => Some(LookAt::Point(Vec3::new(v.x(), v.y(), v.z()))),
                    Value::Table(t) => match t.raw_get::<Value>("id") {
                        Ok(v) => match as_number(&v) {
                            Some(id) => Some(LookAt::Creature(CreatureId(id as u32))),
                            None => {
                                return Err(DefError::new(
                                    "look_at",
                                    "must be a creature handle or a vector",
                                ))
                            }
                        },
                        Err(e) => return Err(DefError::new("look_at", e.to_string())),
                    },
                    other => {
                        return Err(DefError::new(
                            "look_at",
                            format!(
                                "must be a creature handle or a vector, got {}",
                                type_name(&other)
                            ),
                        ))
                    }
                };
                Ok((d, ease, look))
            };
            let v = read().map_err(|e| def_err(lua, "camera.path", e))?;
            r.finish().map_err(|e| def_err(lua, "camera.path", e))?;
            v
        }
    };
    ctx(lua)?
        .shared
        .borrow_mut()
        .camera
        .push(CameraRequest::Path {
            path,
            duration,
            ease,
            look_at,
        });
    Ok(())
}

/// `c.gait`: reads and writes this instance's gait parameters.
struct GaitProxy(CreatureId);

/// An f32 as the f64 a script would have written (0.12, not 0.11999999731779099).
fn script_number(x: f32) -> f64 {
    x.to_string().parse().unwrap_or(x as f64)
}

fn gait_value(lua: &Lua, g: &crate::locomotion::GaitParams, key: &str) -> mlua::Result<Value> {
    Ok(match key {
        "step_trigger" => Value::Number(script_number(g.step_trigger)),
        "step_duration" => Value::Number(script_number(g.step_duration)),
        "step_height" => Value::Number(script_number(g.step_height)),
        "lead" => Value::Number(script_number(g.lead)),
        "min_grounded" => Value::Number(g.min_grounded as f64),
        "step_arc" => Value::UserData(lua.create_userdata(LuaCurve(g.step_arc.clone()))?),
        "speed_scale" => Value::UserData(lua.create_userdata(LuaCurve(g.speed_scale.clone()))?),
        _ => return Err(located(lua, format!("c.gait has no field '{key}'"))),
    })
}

impl UserData for GaitProxy {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_meta_method("__index", |lua, this, key: String| {
            let c = ctx(lua)?;
            let w = c.world.borrow();
            let g = w
                .pending_gait(this.0)
                .ok_or_else(|| located(lua, format!("creature {} no longer exists", this.0 .0)))?;
            gait_value(lua, g, &key)
        });
        methods.add_meta_method("__newindex", |lua, this, (key, value): (String, Value)| {
            let c = ctx(lua)?;
            let (mut g, legs) = {
                let w = c.world.borrow();
                let cr = w.creature(this.0).ok_or_else(|| located(lua, format!("creature {} no longer exists", this.0 .0)))?;
                (w.pending_gait(this.0).cloned().unwrap_or_else(|| cr.gait.clone()), cr.def.legs.len())
            };
            let field = format!("gait.{key}");
            let num = || -> mlua::Result<f32> {
                as_number(&value).map(|n| n as f32).ok_or_else(|| located(lua, format!("field '{field}' must be a number, got {}", type_name(&value))))
            };
            match key.as_str() {
                "step_trigger" => g.step_trigger = num()?,
                "step_duration" => g.step_duration = num()?,
                "step_height" => g.step_height = num()?,
                "lead" => g.lead = num()?,
                "min_grounded" => {
                    let n = num()?;
                    if !(n >= 0.0 && n.fract() == 0.0) {
                        return Err(located(lua, format!("field '{field}' must be a whole number >= 0, got {n}")));
                    }
                    g.min_grounded = n as usize;
                }
                "step_arc" | "speed_scale" => {
                    let curve = convert::curve_from_value(&value)
                        .map_err(|m| located(lua, format!("field '{field}' {m}")))?
                        .ok_or_else(|| located(lua, format!("field '{field}' cannot be nil")))?;
                    if key == "step_arc" {
                        g.step_arc = curve;
                    } else {
                        g.speed_scale = curve;
                    }
                }
                _ => {
                    return Err(located(
                        lua,
                        format!("c.gait has no field '{key}' (fields: step_trigger, step_duration, step_height, step_arc, speed_scale, min_grounded, lead; groups are fixed by the type)"),
                    ))
                }
            }
            g.validate(legs).map_err(|e| located(lua, e))?;
            c.world.borrow_mut().push(Command::SetGait(this.0, Box::new(g)));
            Ok(())
        });
    }
}

/// `c.lean` (`part` None) and its sub-tables `c.lean.turn` etc.: this instance's lean
/// settings; assigning a field validates it and changes it from the next tick.
struct LeanProxy(CreatureId, Option<&'static str>);

const LEAN_PARTS: &[(&str, &[&str])] = &[
    ("turn", &["gain", "max", "speed"]),
    ("accel", &["gain", "max", "speed"]),
    ("vertical", &["rise", "fall", "land"]),
    ("hit", &["gain", "max", "push"]),
];
const LEAN_TOP: &[&str] = &["response", "damping", "filter_hz"];

/// A numeric or curve field of a lean table, by part and key.
enum LeanSlot<'a> {
    Num(&'a mut f32),
    Curve(&'a mut Curve),
}

fn lean_slot<'a>(
    l: &'a mut crate::locomotion::LeanDef,
    part: Option<&str>,
    key: &str,
) -> Option<LeanSlot<'a>> {
    use LeanSlot::{Curve as C, Num as N};
    Some(match (part, key) {
        (None, "response") => N(&mut l.response),
        (None, "damping") => N(&mut l.damping),
        (None, "filter_hz") => N(&mut l.filter_hz),
        (Some("turn"), "gain") => N(&mut l.turn_gain),
        (Some("turn"), "max") => N(&mut l.turn_max),
        (Some("turn"), "speed") => C(&mut l.turn_speed),
        (Some("accel"), "gain") => N(&mut l.accel_gain),
        (Some("accel"), "max") => N(&mut l.accel_max),
        (Some("accel"), "speed") => C(&mut l.accel_speed),
        (Some("vertical"), "rise") => N(&mut l.rise),
        (Some("vertical"), "fall") => N(&mut l.fall),
        (Some("vertical"), "land") => N(&mut l.land),
        (Some("hit"), "gain") => N(&mut l.hit_gain),
        (Some("hit"), "max") => N(&mut l.hit_max),
        (Some("hit"), "push") => N(&mut l.hit_push),
        _ => return None,
    })
}

fn lean_fields(part: Option<&str>) -> String {
    match part {
        None => LEAN_TOP
            .iter()
            .copied()
            .chain(LEAN_PARTS.iter().map(|(p, _)| *p))
            .collect::<Vec<_>>()
            .join(", "),
        Some(p) => LEAN_PARTS
            .iter()
            .find(|(n, _)| *n == p)
            .map(|(_, f)| f.join(", "))
            .unwrap_or_default(),
    }
}

fn lean_name(part: Option<&str>, key: &str) -> String {
    match part {
        Some(p) => format!("lean.{p}.{key}"),
        None => format!("lean.{key}"),
    }
}

/// Writes one value into `l` (not yet validated as a whole).
fn lean_assign(
    lua: &Lua,
    l: &mut crate::locomotion::LeanDef,
    part: Option<&'static str>,
    key: &str,
    value: &Value,
) -> mlua::Result<()> {
    let field = lean_name(part, key);
    if part.is_none() {
        if let Some((p, _)) = LEAN_PARTS.iter().find(|(n, _)| *n == key) {
            // `c.lean.turn = { gain = 0.2 }`: assign each field of the table.
            let Value::Table(t) = value else {
                return Err(located(
                    lua,
                    format!("field '{field}' must be a table, got {}", type_name(value)),
                ));
            };
            for pair in t.pairs::<Value, Value>() {
                let (k, v) = pair?;
                let Value::String(k) = k else {
                    return Err(located(
                        lua,
                        format!("field '{field}' has a non-string key"),
                    ));
                };
                lean_assign(lua, l, Some(p), &k.to_string_lossy(), &v)?;
            }
            return Ok(());
        }
    }
    match lean_slot(l, part, key) {
        Some(LeanSlot::Num(x)) => {
            *x = as_number(value).map(|n| n as f32).ok_or_else(|| {
                located(
                    lua,
                    format!("field '{field}' must be a number, got {}", type_name(value)),
                )
            })?;
        }
        Some(LeanSlot::Curve(c)) => {
            *c = convert::curve_from_value(value)
                .map_err(|m| located(lua, format!("field '{field}' {m}")))?
                .ok_or_else(|| located(lua, format!("field '{field}' cannot be nil")))?;
        }
        None => {
            return Err(located(
                lua,
                format!(
                    "c.{} has no field '{key}' (fields: {})",
                    lean_name(part, "").trim_end_matches('.'),
                    lean_fields(part)
                ),
            ))
        }
    }
    Ok(())
}

impl UserData for LeanProxy {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_meta_method("__index", |lua, this, key: String| {
            let c = ctx(lua)?;
            let w = c.world.borrow();
            let mut l = w
                .pending_lean(this.0)
                .cloned()
                .ok_or_else(|| located(lua, format!("creature {} no longer exists", this.0 .0)))?;
            if this.1.is_none() {
                if let Some((p, _)) = LEAN_PARTS.iter().find(|(n, _)| *n == key) {
                    return Ok(Value::UserData(
                        lua.create_userdata(LeanProxy(this.0, Some(p)))?,
                    ));
                }
            }
            match lean_slot(&mut l, this.1, &key) {
                Some(LeanSlot::Num(x)) => Ok(Value::Number(script_number(*x))),
                Some(LeanSlot::Curve(c)) => {
                    Ok(Value::UserData(lua.create_userdata(LuaCurve(c.clone()))?))
                }
                None => Err(located(
                    lua,
                    format!(
                        "c.{} has no field '{key}' (fields: {})",
                        lean_name(this.1, "").trim_end_matches('.'),
                        lean_fields(this.1)
                    ),
                )),
            }
        });
        methods.add_meta_method("__newindex", |lua, this, (key, value): (String, Value)| {
            let c = ctx(lua)?;
            let mut l = c
                .world
                .borrow()
                .pending_lean(this.0)
                .cloned()
                .ok_or_else(|| located(lua, format!("creature {} no longer exists", this.0 .0)))?;
            lean_assign(lua, &mut l, this.1, &key, &value)?;
            l.validate().map_err(|e| located(lua, e))?;
            c.world
                .borrow_mut()
                .push(Command::SetLean(this.0, Box::new(l)));
            Ok(())
        });
    }
}

/// The folder and chunk-name prefix of the script that is calling (from its chunk name `mod/path`).
fn calling_file(lua: &Lua) -> Option<(String, PathBuf)> {
    let loc = caller_location(lua)?;
    let file = loc.rsplit_once(':').map(|(f, _)| f.to_string())?;
    let (m, rel) = file.split_once('/')?;
    Some((m.to_string(), PathBuf::from(rel)))
}

/// Largest script file a mod may have.
pub const MAX_SCRIPT_BYTES: u64 = 4 << 20;

/// Reads a script, refusing files over [`MAX_SCRIPT_BYTES`] before reading them.
pub fn read_script(path: &Path) -> Result<String, String> {
    let len = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
    if len > MAX_SCRIPT_BYTES {
        return Err(format!(
            "the file is {} MiB; scripts may be at most {} MiB",
            len >> 20,
            MAX_SCRIPT_BYTES >> 20
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    // Luau bytecode starts with a version byte (small), Lua's with ESC.
    if bytes.first().is_some_and(|b| *b == 0x1b || *b < 9) {
        return Err(super::host::BYTECODE_REFUSED.to_string());
    }
    String::from_utf8(bytes).map_err(|_| {
        format!(
            "the file is not UTF-8 source text ({})",
            super::host::BYTECODE_REFUSED
        )
    })
}

/// `require("./x")`, `require("x/y")` (inside the calling file's mod), `require("@dep/x")`.
fn require(lua: &Lua, spec: String) -> mlua::Result<Value> {
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
        let p = spec.strip_prefix("./").unwrap_or(&spec);
        (from_mod.clone(), base.join(p))
    };
    if Path::new(&spec).is_absolute() || spec.contains('\\') {
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
    let chunk = format!("{target_mod}/{rel_name}");
    let modules: Table = lua.named_registry_value("skitter.modules")?;
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
    let result = lua
        .load(src)
        .set_name(format!("={chunk}"))
        .set_mode(ChunkMode::Text)
        .call::<Value>(());
    let value = match result {
        Ok(Value::Nil) => Value::Boolean(true),
        Ok(v) => v,
        Err(e) => {
            modules.raw_set(chunk.as_str(), Value::Nil)?;
            if e.to_string().contains("binary chunk") {
                return Err(located(
                    lua,
                    format!(
                        "require(\"{spec}\"): {chunk}: {}",
                        super::host::BYTECODE_REFUSED
                    ),
                ));
            }
            return Err(e);
        }
    };
    modules.raw_set(chunk.as_str(), value.clone())?;
    Ok(value)
}
