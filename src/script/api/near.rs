//! Asking for creatures by place: `world.creatures_near` (handles, nearest first),
//! `world.nearest_creature` (the nearest one's handle, or nil) and `world.near_filter` (a
//! filter read once, to pass to either every tick) — answered from the World's grid.
//!
//! A battle's thousand brains each ask for their nearest foe every tick: reading a fresh
//! filter table and filling a result table were half of a question's cost (the grid's own
//! walk the other half), so a brain may keep its filter read (`near_filter`) and ask for the
//! one creature it wants (`nearest_creature`).

use mlua::{Lua, Table, UserData, UserDataMethods, Value};

use std::rc::Rc;

use super::context::{arg_point, ctx, def_err, located, ModCtx};
use super::handle::{handle_id, handle_named};
use crate::locomotion::DefError;
use crate::script::convert::{as_number, type_name, Reader};
use crate::sim::{CreatureId, NearFilter, TypeId};

/// A filter read once (`world.near_filter{...}`): the World's own filter and the name of
/// the type it keeps (for `tostring`). It may be kept in a brain's state: it crosses a
/// reload as it is (type ids never change in a World).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LuaNearFilter {
    pub(crate) filter: NearFilter,
    pub(crate) type_name: Option<String>,
}

impl UserData for LuaNearFilter {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_meta_method("__tostring", |_, this, ()| Ok(this.text()));
    }
}

impl LuaNearFilter {
    /// `near_filter{ type = "brawl/soldier", not_team = 1, animated = true, limit = 1 }`:
    /// the fields set, in the order the filter table documents them.
    fn text(&self) -> String {
        let f = &self.filter;
        let mut parts = Vec::new();
        if let Some(t) = &self.type_name {
            parts.push(format!("type = \"{t}\""));
        }
        if let Some(t) = f.team {
            parts.push(format!("team = {t}"));
        }
        if let Some(t) = f.not_team {
            parts.push(format!("not_team = {t}"));
        }
        if f.animated {
            parts.push("animated = true".into());
        }
        if let Some(id) = f.exclude {
            parts.push(format!("exclude = creature {}", id.0));
        }
        if let Some(n) = f.limit {
            parts.push(format!("limit = {n}"));
        }
        format!("near_filter{{ {} }}", parts.join(", "))
    }
}

/// `world.creatures_near(point, radius [, type | filter])`: handles of the creatures whose
/// bodies are within `radius` of `point`, nearest first (ties by id). `filter`: a table
/// `{ type, team, not_team, animated, exclude, limit }` (see `sim::NearFilter`) or one read
/// already by `world.near_filter`.
pub(super) fn creatures_near(lua: &Lua, args: QueryArgs) -> mlua::Result<Table> {
    let what = ("world.creatures_near", "world.creatures_near: point");
    let (c, near) = ask(lua, what, args, |f| f)?;
    let out = lua.create_table_with_capacity(near.len(), 0)?;
    for (i, (id, t)) in near.into_iter().enumerate() {
        out.raw_set(i + 1, handle_of(lua, &c, id, t)?)?;
    }
    Ok(out)
}

/// `world.nearest_creature(point, radius [, type | filter])`: the handle of the nearest
/// creature `creatures_near` would give first (a `limit` of 0 gives none), or nil — no
/// table made for the answer.
pub(super) fn nearest_creature(lua: &Lua, args: QueryArgs) -> mlua::Result<Option<Table>> {
    let what = ("world.nearest_creature", "world.nearest_creature: point");
    let (c, near) = ask(lua, what, args, |mut f| {
        f.limit = Some(f.limit.map_or(1, |n| n.min(1)));
        f
    })?;
    match near.first() {
        Some(&(id, t)) => handle_of(lua, &c, id, t).map(Some),
        None => Ok(None),
    }
}

/// A query's arguments: `(point, radius, filter?)`.
type QueryArgs = (Value, f64, Option<Value>);

/// What [`ask`] gives: the mod's context and the creatures found, with their types.
type Answer = (Rc<ModCtx>, Vec<(CreatureId, TypeId)>);

/// A query's arguments checked (errors named by the call, and by the call and `point` for
/// the point: both spelled out by the caller, so no message is made unless one is wrong),
/// its filter made (and changed by `adjust`), and the World's answer: the creatures found,
/// with their types.
fn ask(
    lua: &Lua,
    (what, point_what): (&str, &str),
    (p, radius, filter): QueryArgs,
    adjust: impl FnOnce(NearFilter) -> NearFilter,
) -> mlua::Result<Answer> {
    let c = ctx(lua)?;
    let p = arg_point(lua, point_what, &p)?;
    if !(radius.is_finite() && radius >= 0.0) {
        return Err(located(
            lua,
            format!("{what}: radius must be a finite number >= 0, got {radius}"),
        ));
    }
    let f = adjust(filter_arg(lua, &c, filter, what)?);
    let near = c.world.borrow_mut().creatures_near(p, radius as f32, &f);
    Ok((c, near))
}

/// `world.near_filter(filter)`: the filter table read (and checked) once, to pass to
/// `creatures_near` or `nearest_creature` as often as wanted.
pub(super) fn near_filter(lua: &Lua, filter: Value) -> mlua::Result<LuaNearFilter> {
    const WHAT: &str = "world.near_filter";
    let c = ctx(lua)?;
    match filter {
        Value::Table(t) => read_filter(lua, &c, &t, WHAT),
        Value::UserData(ud) if ud.is::<LuaNearFilter>() => {
            Ok(ud.borrow::<LuaNearFilter>()?.clone())
        }
        other => Err(located(
            lua,
            format!(
                "{WHAT}: the filter must be a table, got {}",
                type_name(&other)
            ),
        )),
    }
}

/// A found creature's handle: its type's name copied only for a handle not made yet (no
/// World borrow is held meanwhile).
fn handle_of(lua: &Lua, c: &ModCtx, id: CreatureId, t: TypeId) -> mlua::Result<Table> {
    let name = || {
        c.world
            .borrow()
            .creature_type(t)
            .map(|t| t.name.clone())
            .unwrap_or_default()
    };
    handle_named(lua, id, name)
}

/// The third argument of a query: none, a type name, a filter table, or a filter read
/// already.
fn filter_arg(
    lua: &Lua,
    c: &ModCtx,
    filter: Option<Value>,
    what: &str,
) -> mlua::Result<NearFilter> {
    match filter {
        None | Some(Value::Nil) => Ok(NearFilter::default()),
        Some(Value::Table(t)) => Ok(read_filter(lua, c, &t, what)?.filter),
        Some(Value::UserData(ud)) => match ud.borrow::<LuaNearFilter>() {
            Ok(f) => Ok(f.filter.clone()),
            Err(_) => Err(located(
                lua,
                format!(
                    "{what}: the filter must be a type name, a table or a world.near_filter, got another userdata"
                ),
            )),
        },
        Some(v) => Ok(NearFilter {
            type_id: Some(near_type(lua, c, &v, what)?.0),
            ..NearFilter::default()
        }),
    }
}

/// A creature type named in a filter, with its qualified name.
fn near_type(lua: &Lua, c: &ModCtx, v: &Value, what: &str) -> mlua::Result<(TypeId, String)> {
    let name = super::world::type_arg(lua, c, v, what)?;
    let id = c
        .world
        .borrow()
        .type_by_name(&name)
        .ok_or_else(|| located(lua, format!("{what}: unknown creature type \"{name}\"")))?;
    Ok((id, name))
}

/// A filter table, read in one pass over its fields (a battle's thousand brains each pass
/// one every tick: reading it field by field, then again for unknown ones, was most of the
/// query's cost); the Reader says what is wrong when something is.
fn read_filter(lua: &Lua, c: &ModCtx, t: &Table, what: &str) -> mlua::Result<LuaNearFilter> {
    const KNOWN: [&str; 6] = ["type", "team", "not_team", "animated", "exclude", "limit"];
    let mut field: [Value; 6] = std::array::from_fn(|_| Value::Nil);
    let mut unknown = false;
    t.for_each::<Value, Value>(|k, v| {
        let at = match &k {
            Value::String(s) => KNOWN.iter().position(|n| *s.as_bytes() == *n.as_bytes()),
            _ => None,
        };
        match at {
            Some(i) => field[i] = v,
            None => unknown = true,
        }
        Ok(())
    })?;
    let reader = || Reader::new(t.clone(), "", &KNOWN);
    let bad = |e: DefError| def_err(lua, what, e);
    if unknown {
        reader().finish().map_err(bad)?;
    }
    let [ty, team, not_team, animated, exclude, limit] = &field;
    let mut f = NearFilter::default();
    let mut kept_name = None;
    if !ty.is_nil() {
        let (id, name) = near_type(lua, c, ty, what)?;
        f.type_id = Some(id);
        kept_name = Some(name);
    }
    let whole = |key: &str, v: &Value, max: f32| -> Result<Option<u32>, DefError> {
        if v.is_nil() {
            return Ok(None);
        }
        match as_number(v).map(|n| n as f32) {
            None => reader().num(key).map(|_| None),
            Some(n) if n >= 0.0 && n <= max && n.fract() == 0.0 => Ok(Some(n as u32)),
            Some(n) => Err(DefError::new(
                key,
                format!("must be a whole number from 0 to {max}, got {n}"),
            )),
        }
    };
    f.team = whole("team", team, 1.0e6).map_err(bad)?;
    f.not_team = whole("not_team", not_team, 1.0e6).map_err(bad)?;
    f.limit = whole("limit", limit, 1.0e6)
        .map_err(bad)?
        .map(|n| n as usize);
    f.animated = match animated {
        Value::Boolean(b) => *b,
        Value::Nil => false,
        _ => reader().boolean("animated").map_err(bad)?.unwrap_or(false),
    };
    match exclude {
        Value::Nil => {}
        Value::Table(h) => f.exclude = Some(handle_id(lua, h)?),
        other => {
            return Err(located(
                lua,
                format!(
                    "{what}: field 'exclude' must be a creature handle, got {}",
                    type_name(other)
                ),
            ))
        }
    }
    Ok(LuaNearFilter {
        filter: f,
        type_name: kept_name,
    })
}
