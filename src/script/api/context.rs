//! What every API function starts from: the calling mod's context, and the helpers that turn
//! bad arguments into `mod/file.lua:LINE: fn: what` errors.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::rc::Rc;

use glam::Vec3;
use mlua::{FromLuaMulti, Function, IntoLuaMulti, Lua, MultiValue, Table, Value};

use crate::script::convert::{as_vec3, type_name};
pub(crate) use crate::script::error::{caller_location, located};
use crate::script::shared::Shared;
use crate::sim::{CreatureId, World};

/// Folders code may be required from: mod name → (folder, the mod names it may require from).
pub(crate) type Roots = BTreeMap<String, (PathBuf, BTreeSet<String>)>;

/// A mod's context, reachable from every API function through the state's app data.
pub(crate) struct ModCtx {
    /// Mod name.
    pub name: String,
    /// Where `require` may look.
    pub roots: Roots,
    /// The world. Never borrowed across a call back into Lua.
    pub world: Rc<RefCell<World>>,
    /// Host-wide plain state.
    pub shared: Rc<RefCell<Shared>>,
    /// Where each type / behaviour name was defined in this mod (duplicates are errors).
    pub defined: RefCell<BTreeMap<String, String>>,
    /// While one call runs `on_update` for many of this mod's creatures: which one is running.
    pub batch: RefCell<Option<BatchCaller>>,
}

/// Who is calling during a batched `on_update` (`ScriptHost::run_updates`): the batch's
/// creatures, and the table in which the batch's Lua loop writes the 1-based index of the
/// one it is calling.
pub(crate) struct BatchCaller {
    /// The batch's creatures, in call order.
    pub ids: Rc<[CreatureId]>,
    /// `ctl[1]`: the index of the creature being called (0 between calls).
    pub ctl: Table,
}

impl ModCtx {
    /// The creature whose callback is running, if any (queries that depend on the caller,
    /// like `world.random_nav_point`, use its type).
    pub(crate) fn caller(&self) -> Option<CreatureId> {
        if let Some(id) = self.shared.borrow().calling {
            return Some(id);
        }
        let b = self.batch.borrow();
        let b = b.as_ref()?;
        let i: usize = b.ctl.raw_get(1).ok()?;
        b.ids.get(i.checked_sub(1)?).copied()
    }
}

impl ModCtx {
    /// A context for mod `name`.
    pub(crate) fn new(
        name: &str,
        roots: Roots,
        world: Rc<RefCell<World>>,
        shared: Rc<RefCell<Shared>>,
    ) -> ModCtx {
        ModCtx {
            name: name.to_string(),
            roots,
            world,
            shared,
            defined: RefCell::new(BTreeMap::new()),
            batch: RefCell::new(None),
        }
    }
}

/// Chunk names of skitter's own Lua code start with this (a mod's never can: mod names are
/// letters, digits, `_` and `-`): error locations look past those frames, to the script.
pub(crate) const INTERNAL_CHUNK: &str = "[skitter]/";

/// The calling mod's context.
pub(crate) fn ctx(lua: &Lua) -> mlua::Result<Rc<ModCtx>> {
    lua.app_data_ref::<Rc<ModCtx>>()
        .map(|c| c.clone())
        .ok_or_else(|| mlua::Error::runtime("skitter: no mod context"))
}

pub(crate) use super::def_errors::def_err;

/// The error for a handle whose creature is gone.
pub(crate) fn gone(lua: &Lua, id: crate::sim::CreatureId) -> mlua::Error {
    located(lua, format!("creature {} no longer exists", id.0))
}

/// In `skitter check` a definition error is noted and the script goes on (so one run
/// reports every bad definition); otherwise it is raised as usual.
pub(crate) fn soft<T>(lua: &Lua, r: mlua::Result<T>, fallback: T) -> mlua::Result<T> {
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

/// A finite vector argument, or an error naming `what`.
pub(crate) fn arg_vec(lua: &Lua, what: &str, v: &Value) -> mlua::Result<Vec3> {
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

/// How far from the origin a place given to the API may be (m): spawns, destinations and
/// queries beyond it are refused, not launched.
pub(crate) const WORLD_BOUND: f32 = 100_000.0;

/// A point argument: finite, and within [`WORLD_BOUND`] of the origin on every axis.
pub(crate) fn arg_point(lua: &Lua, what: &str, v: &Value) -> mlua::Result<Vec3> {
    let p = arg_vec(lua, what, v)?;
    if p.abs().max_element() > WORLD_BOUND {
        return Err(located(lua, out_of_bounds(what, p)));
    }
    Ok(p)
}

/// The error text for a point past [`WORLD_BOUND`].
pub(crate) fn out_of_bounds(what: &str, p: Vec3) -> String {
    format!(
        "{what} must be within {WORLD_BOUND} m of the origin on every axis (the world's bound), got ({}, {}, {})",
        p.x, p.y, p.z
    )
}

/// `params` as plain data for another state; what cannot cross (functions, threads, foreign
/// userdata, cycles) is named in a warning from `what`, never silently nil.
pub(crate) fn plain_params(
    lua: &Lua,
    what: &str,
    params: Option<mlua::Table>,
) -> mlua::Result<crate::script::plain::Plain> {
    use crate::script::plain::{Dropped, Plain};
    let Some(t) = params else {
        return Ok(Plain::Nil);
    };
    let mut dropped = Dropped::default();
    let p = Plain::from_lua_report(&Value::Table(t), "params", &mut dropped);
    if dropped.count > 0 {
        let c = ctx(lua)?;
        let here = caller_location(lua)
            .map(|l| format!("{l}: "))
            .unwrap_or_default();
        c.shared
            .borrow_mut()
            .logs
            .push(crate::script::shared::LogLine {
                mod_name: c.name.clone(),
                level: crate::script::shared::LogLevel::Warn,
                text: format!(
                    "{here}{what}: {} value(s) cannot reach the brain and were left out: {}",
                    dropped.count,
                    dropped.items.join(", ")
                ),
            });
    }
    Ok(p)
}

/// A finite number argument, or an error naming `what`.
pub(crate) fn finite_arg(lua: &Lua, what: &str, x: f64) -> mlua::Result<f32> {
    if x.is_finite() {
        Ok(x as f32)
    } else {
        Err(located(
            lua,
            format!("{what} must be a finite number, got {x}"),
        ))
    }
}

/// The Lua function `name` (`world.spawn`, `c:move`): `f` behind an argument conversion
/// whose errors are located and plain, like every other API error:
/// `mod/file.lua:LINE: c:hit: argument #2 must be a number, got string`. Methods count
/// their arguments after the handle; a method called with `.` is told to use `:`.
pub(crate) fn api_fn<A, R, F>(lua: &Lua, name: &'static str, f: F) -> mlua::Result<Function>
where
    A: FromLuaMulti,
    R: IntoLuaMulti,
    F: Fn(&Lua, A) -> mlua::Result<R> + mlua::MaybeSend + 'static,
{
    lua.create_function(move |lua, args: MultiValue| {
        if let Some(b) = lua.app_data_ref::<std::rc::Rc<crate::script::budget::Budget>>() {
            b.charge(crate::script::budget::API_CALL_UNITS);
        }
        let a = A::from_lua_args(args, 1, None, lua)
            .map_err(|e| located(lua, format!("{name}: {}", arg_error(name, &e))))?;
        f(lua, a)
    })
}

/// What a failed argument conversion says.
fn arg_error(name: &str, e: &mlua::Error) -> String {
    let mlua::Error::BadArgument { pos, cause, .. } = e else {
        return e.to_string();
    };
    let method = name.starts_with("c:");
    if method && *pos == 1 {
        return format!("expected a creature handle (call methods with ':', e.g. {name}(...))");
    }
    let pos = if method { pos - 1 } else { *pos };
    let what = match &**cause {
        mlua::Error::FromLuaConversionError { from, to, .. } => {
            format!("must be {}, got {from}", lua_type_name(to))
        }
        other => other.to_string(),
    };
    format!("argument #{pos} {what}")
}

/// A Rust type as the Lua value it is converted from.
fn lua_type_name(rust: &str) -> &'static str {
    match rust {
        "f32" | "f64" | "i32" | "i64" | "u32" | "u64" | "usize" | "isize" | "number" => "a number",
        "String" | "string" => "a string",
        "Table" | "table" => "a table",
        "bool" | "boolean" => "a boolean",
        "Function" | "function" => "a function",
        _ => "another kind of value",
    }
}
