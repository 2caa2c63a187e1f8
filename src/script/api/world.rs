//! `world.*`: level building, spawning (with the per-mod creature cap and a reload's
//! reuse of load-time creatures), queries.

use glam::Vec3;
use mlua::{Lua, Table, Value};

use super::context::{
    arg_point, arg_vec, ctx, def_err, located, out_of_bounds, plain_params, soft, ModCtx,
    WORLD_BOUND,
};
use super::handle::handle;
use super::resolve::{brain_for, resolve_type, ResolveError};
use crate::locomotion::DefError;
use crate::script::convert::{self, to_vector, type_name, Reader};
use crate::script::plain::Plain;
use crate::script::shared::BrainRequest;
use crate::sim::{CreatureId, World};

/// A level-building call: reads its table and changes the level, any error named
/// `what: field '...' ...` at the calling line.
fn level(
    lua: &Lua,
    t: Table,
    what: &str,
    build: impl FnOnce(Table, &str, &mut World) -> Result<(), DefError>,
) -> mlua::Result<()> {
    let c = ctx(lua)?;
    let r = build(t, &c.name, &mut c.world.borrow_mut());
    soft(lua, r.map_err(|e| def_err(lua, what, e)), ())
}

/// `world.ground{...}`.
pub(super) fn ground(lua: &Lua, t: Table) -> mlua::Result<()> {
    level(lua, t, "world.ground", |t, owner, w| {
        let desc = convert::ground_desc(t, w.seed() as u32)?;
        w.set_ground_for(owner, &desc)
    })
}

/// `world.box{...}`.
pub(super) fn add_box(lua: &Lua, t: Table) -> mlua::Result<()> {
    level(lua, t, "world.box", |t, owner, w| {
        w.add_box_for(owner, convert::box_desc(t)?)
    })
}

/// `world.stairs{...}`.
pub(super) fn stairs(lua: &Lua, t: Table) -> mlua::Result<()> {
    level(lua, t, "world.stairs", |t, owner, w| {
        w.add_stairs_for(owner, convert::stairs_desc(t)?)
    })
}

/// `world.despawn(c)`: as `c:despawn()`.
pub(super) fn despawn(lua: &Lua, c: Value) -> mlua::Result<()> {
    let Value::Table(t) = c else {
        return Err(located(
            lua,
            format!(
                "world.despawn: expects a creature handle, got {}",
                type_name(&c)
            ),
        ));
    };
    super::handle::despawn(lua, t)
}

/// `world.creatures([type])`: handles, in id order.
pub(super) fn creatures(lua: &Lua, filter: Option<Value>) -> mlua::Result<Table> {
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
}

/// `world.raycast(origin, direction [, max_distance])`.
pub(super) fn raycast(
    lua: &Lua,
    (o, d, max, opts): (Value, Value, Option<f64>, Option<Table>),
) -> mlua::Result<Value> {
    let c = ctx(lua)?;
    let bodies = match opts {
        None => false,
        Some(t) => {
            let r = Reader::new(t, "", &["creatures"]);
            let v = r
                .boolean("creatures")
                .map_err(|e| def_err(lua, "world.raycast", e))?;
            r.finish().map_err(|e| def_err(lua, "world.raycast", e))?;
            v.unwrap_or(false)
        }
    };
    let o = arg_point(lua, "world.raycast: origin", &o)?;
    let d = arg_vec(lua, "world.raycast: direction", &d)?;
    let max = max.unwrap_or(1000.0);
    if !(max >= 0.0 && max.is_finite()) {
        return Err(located(
            lua,
            "world.raycast: max_distance must be a finite number >= 0",
        ));
    }
    let (hit, body) = {
        let mut w = c.world.borrow_mut();
        let level = w.raycast(o, d, max as f32);
        let body = if bodies {
            w.raycast_bodies(o, d, max as f32)
                .filter(|(_, b)| level.is_none_or(|l| b.distance < l.distance))
                .map(|(id, b)| {
                    let ty = w
                        .creature(id)
                        .and_then(|cr| w.creature_type(cr.type_id))
                        .map(|t| t.name.clone())
                        .unwrap_or_default();
                    (id, ty, b)
                })
        } else {
            None
        };
        (level, body)
    };
    let (h, creature) = match (hit, body) {
        (_, Some((id, ty, b))) => (b, Some(handle(lua, id, &ty)?)),
        (Some(h), None) => (h, None),
        (None, None) => return Ok(Value::Nil),
    };
    let t = lua.create_table()?;
    t.raw_set("position", to_vector(h.position))?;
    t.raw_set("normal", to_vector(h.normal))?;
    t.raw_set("distance", h.distance as f64)?;
    if let Some(c) = creature {
        t.raw_set("creature", c)?;
    }
    Ok(Value::Table(t))
}

/// `world.time()`: simulation seconds.
pub(super) fn time(lua: &Lua, (): ()) -> mlua::Result<f64> {
    Ok(ctx(lua)?.world.borrow().time())
}

/// `world.set_time_scale(scale)`: the window runs the world at `scale` × real time (0.25 to
/// 4: the overlay's choices and any between). The ticks are the same at any scale — only
/// how many run a real second changes — so a trace is too.
pub(super) fn set_time_scale(lua: &Lua, scale: Value) -> mlua::Result<()> {
    let s = match scale {
        Value::Number(n) => Some(n),
        Value::Integer(i) => Some(i as f64),
        _ => None,
    };
    let Some(s) = s.filter(|s| (0.25..=4.0).contains(s)) else {
        let got = match s {
            Some(n) => n.to_string(),
            None => crate::script::convert::type_name(&scale).to_string(),
        };
        return Err(super::context::located(
            lua,
            format!("world.set_time_scale: scale must be a number from 0.25 to 4, got {got}"),
        ));
    };
    ctx(lua)?.shared.borrow_mut().time_scale = Some(s);
    Ok(())
}

/// `world.random_nav_point([near [, radius [, { surfaces = true }]]])`: with `surfaces`, a
/// point on any surface of the level (walls and tops too) a climber can stand on.
pub(super) fn random_nav_point(
    lua: &Lua,
    (near, radius, opts): (Option<Value>, Option<f64>, Option<Value>),
) -> mlua::Result<Option<mlua::Vector>> {
    let surfaces = match opts {
        None | Some(Value::Nil) => false,
        Some(Value::Table(t)) => {
            let r = crate::script::convert::Reader::new(t, "", &["surfaces"]);
            let on = r
                .boolean("surfaces")
                .and_then(|b| r.finish().map(|_| b))
                .map_err(|e| located(lua, format!("world.random_nav_point: {e}")))?;
            on.unwrap_or(false)
        }
        Some(other) => {
            return Err(located(
                lua,
                format!(
                    "world.random_nav_point: argument #3 must be a table ({{ surfaces = true }}), got {}",
                    other.type_name()
                ),
            ))
        }
    };
    let near = match near {
        None | Some(Value::Nil) => None,
        Some(v) => {
            let c = arg_point(lua, "world.random_nav_point: near", &v)?;
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
    let c = ctx(lua)?;
    let caller = c.caller();
    let p = if surfaces {
        let (at, r) = match near {
            Some(n) => n,
            None => {
                return Err(located(
                    lua,
                    "world.random_nav_point: { surfaces = true } needs a point to look near",
                ))
            }
        };
        c.world.borrow_mut().random_surface_point(at, r, caller)
    } else {
        c.world.borrow_mut().random_nav_point(near, caller)
    };
    Ok(p.map(to_vector))
}

/// `world.nearest_nav_point(point)`.
pub(super) fn nearest_nav_point(lua: &Lua, v: Value) -> mlua::Result<Option<mlua::Vector>> {
    let p = arg_point(lua, "world.nearest_nav_point: point", &v)?;
    let c = ctx(lua)?;
    let caller = c.caller();
    let q = c.world.borrow_mut().nearest_nav_point(p, caller);
    Ok(q.map(to_vector))
}

/// A creature type argument (a name or a type table), resolved as the calling mod sees it.
pub(super) fn type_arg(lua: &Lua, c: &ModCtx, v: &Value, what: &str) -> mlua::Result<String> {
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
    resolve_type(&c.shared.borrow(), &c.name, &name).map_err(|e| {
        let why = match e {
            ResolveError::UnknownType(_) => unknown_type(c, &name),
            other => other.to_string(),
        };
        located(lua, format!("{what}: {why}"))
    })
}

/// Why creature type `name` is unknown to mod `c`, and what to do: its define failed, its
/// mod is not among the mod's `depends`, or its mod defines no such type.
fn unknown_type(c: &ModCtx, name: &str) -> String {
    let (owner, bare) = name.split_once('/').unwrap_or((c.name.as_str(), name));
    if owner == c.name {
        if let Some(at) = c.defined.borrow().get(&super::define::failed_key(bare)) {
            return format!(
                "creature type \"{name}\" was not defined: its creature.define failed (at {at})"
            );
        }
        return format!("unknown creature type \"{name}\"");
    }
    let depends = c
        .roots
        .get(&c.name)
        .is_some_and(|(_, deps)| deps.contains(owner));
    if !depends {
        return format!(
            "creature type \"{name}\" is from mod \"{owner}\", which mod \"{}\" does not depend on (add \"{owner}\" to depends in {}/mod.toml)",
            c.name, c.name
        );
    }
    let shared = c.shared.borrow();
    let theirs: Vec<&str> = shared
        .types
        .values()
        .filter(|m| m.mod_name == owner)
        .map(|m| m.bare.as_str())
        .collect();
    format!(
        "unknown creature type \"{name}\": mod \"{owner}\" defines {}",
        if theirs.is_empty() {
            "no creature types".to_string()
        } else {
            theirs.join(", ")
        }
    )
}

/// What `world.spawn`'s options table says.
struct SpawnOpts {
    position: Vec3,
    yaw: f32,
    behaviour: Option<String>,
    params: Plain,
    team: Option<u32>,
    tint: Option<Vec3>,
}

/// The largest a tint's component may be.
pub(super) const MAX_TINT: f32 = 4.0;

/// Whether `v` is a tint: every component finite, 0..[`MAX_TINT`].
pub(super) fn is_tint(v: Vec3) -> bool {
    v.is_finite() && v.min_element() >= 0.0 && v.max_element() <= MAX_TINT
}

fn spawn_opts(lua: &Lua, opts: Option<Table>) -> mlua::Result<SpawnOpts> {
    let Some(t) = opts else {
        return Ok(SpawnOpts {
            position: Vec3::ZERO,
            yaw: 0.0,
            behaviour: None,
            params: Plain::Nil,
            team: None,
            tint: None,
        });
    };
    let r = Reader::new(
        t,
        "",
        &["position", "yaw", "behaviour", "params", "team", "tint"],
    );
    type Read = (
        Vec3,
        f32,
        Option<String>,
        Option<Table>,
        Option<u32>,
        Option<Vec3>,
    );
    let read = || -> Result<Read, DefError> {
        let position = r.vec("position")?.unwrap_or(Vec3::ZERO);
        if !position.is_finite() {
            return Err(DefError::new("position", "must have finite components"));
        }
        if position.abs().max_element() > WORLD_BOUND {
            let text = out_of_bounds("", position);
            return Err(DefError::new("position", text.trim_start()));
        }
        let yaw = r.num_or("yaw", 0.0)?;
        if !yaw.is_finite() {
            return Err(DefError::new("yaw", "must be a finite number"));
        }
        let behaviour = r.string("behaviour")?;
        let team = match r.num("team")? {
            None => None,
            Some(n) if (0.0..=1.0e6).contains(&n) && n.fract() == 0.0 => Some(n as u32),
            Some(n) => {
                return Err(DefError::new(
                    "team",
                    format!("must be a whole number from 0 to 1000000, got {n}"),
                ))
            }
        };
        let tint = r.vec("tint")?;
        if tint.is_some_and(|v| !is_tint(v)) {
            return Err(DefError::new(
                "tint",
                format!("must be a colour vector with components from 0 to {MAX_TINT}"),
            ));
        }
        Ok((position, yaw, behaviour, r.table("params")?, team, tint))
    };
    let (position, yaw, behaviour, params, team, tint) =
        read().map_err(|e| def_err(lua, "world.spawn", e))?;
    r.finish().map_err(|e| def_err(lua, "world.spawn", e))?;
    Ok(SpawnOpts {
        position,
        yaw,
        behaviour,
        params: plain_params(lua, "world.spawn", params)?,
        team,
        tint,
    })
}

/// During a reload: the previous version's next load-time creature of this type, if alive.
fn reused(c: &ModCtx, qualified: &str) -> Option<CreatureId> {
    let mut shared = c.shared.borrow_mut();
    let w = c.world.borrow();
    let q = shared.reuse.get_mut(qualified)?;
    while let Some(id) = q.pop_front() {
        if w.creature(id).is_some() {
            return Some(id);
        }
    }
    None
}

/// `world.spawn(type [, { position, yaw, behaviour, params }])`.
pub(super) fn spawn(lua: &Lua, (ty, opts): (Value, Option<Table>)) -> mlua::Result<Table> {
    let c = ctx(lua)?;
    let qualified = type_arg(lua, &c, &ty, "world.spawn")?;
    let o = spawn_opts(lua, opts)?;
    let brain = brain_for(
        &c.shared.borrow(),
        &c.name,
        &qualified,
        o.behaviour.as_deref(),
    )
    .map_err(|e| located(lua, format!("world.spawn: {e}")))?;
    // A reload: the previous version's n-th load-time spawn of this type is the creature.
    let kept = reused(&c, &qualified);
    let id = match kept {
        Some(id) => {
            c.shared.borrow_mut().kept.push(id);
            id
        }
        None => {
            check_creature_cap(lua, &c)?;
            let mut w = c.world.borrow_mut();
            let t = w.type_by_name(&qualified).ok_or_else(|| {
                located(
                    lua,
                    format!("world.spawn: unknown creature type \"{qualified}\""),
                )
            })?;
            w.spawn(t, o.position, o.yaw.to_radians())
                .ok_or_else(|| located(lua, "world.spawn: spawn failed"))?
        }
    };
    if o.team.is_some() {
        c.world.borrow_mut().set_team(id, o.team);
    }
    if o.tint.is_some() {
        c.world.borrow_mut().set_tint(id, o.tint);
    }
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
                params: o.params.clone(),
            });
        }
    }
    let h = handle(lua, id, &qualified)?;
    // The params are on the handle at once (readable at load), brain or no brain; a brain
    // in this state gets them again over its behaviour's defaults.
    if o.params != Plain::Nil {
        h.raw_set("params", o.params.to_lua(lua)?)?;
    }
    Ok(h)
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
