//! Creature handles: one table per creature per state (`id`, `type`, `params`, `state`,
//! `gait`, `lean`), sharing a metatable whose methods read the World or queue commands.
//! Every method on a creature that is gone fails with "creature N no longer exists".

use glam::Vec3;
use mlua::{Function, Lua, Table, Value};

use super::context::{
    arg_point, arg_vec, ctx, def_err, gone, located, plain_params, INTERNAL_CHUNK,
};
use super::registry;
use super::resolve::resolve_behaviour;
use super::tuning::{GaitProxy, LeanProxy};
use crate::locomotion::Intent;
use crate::math::frame::{forward_from_yaw, horizontal, yaw_of};
use crate::script::convert::{as_number, to_vector, type_name, Reader};
use crate::script::shared::{BrainKind, BrainRequest};
use crate::sim::{Command, Creature, CreatureId};

/// The handle table of creature `id` in this state (created once, then cached).
pub(crate) fn handle(lua: &Lua, id: CreatureId, type_name: &str) -> mlua::Result<Table> {
    handle_named(lua, id, || type_name.to_owned())
}

/// [`handle`], the type's name asked for only when the handle is made (a query handing back
/// handles it has handed out before copies no name).
pub(crate) fn handle_named(
    lua: &Lua,
    id: CreatureId,
    type_name: impl FnOnce() -> String,
) -> mlua::Result<Table> {
    let keys = registry::handle_keys(lua)?;
    let handles = &keys.handles;
    if let Value::Table(t) = handles.raw_get::<Value>(id.0)? {
        return Ok(t);
    }
    let t = lua.create_table_with_capacity(0, 6)?;
    t.raw_set("id", id.0)?;
    t.raw_set("type", type_name())?;
    t.raw_set("params", lua.create_table()?)?;
    // Room for a brain's usual handful of state fields up front: the table is not rehashed
    // (reallocated somewhere else in memory) as a brain fills it, so the states of creatures
    // spawned together stay together, and a crowd's `on_update` walks them in order.
    t.raw_set("state", lua.create_table_with_capacity(0, 8)?)?;
    t.set_metatable(Some(registry::handle_mt(lua)?))?;
    handles.raw_set(id.0, t.clone())?;
    Ok(t)
}

/// Forgets a handle (the creature is gone).
pub(crate) fn drop_handle(lua: &Lua, id: CreatureId) -> mlua::Result<()> {
    registry::handles(lua)?.raw_set(id.0, Value::Nil)
}

/// Forgets the handles of creatures not in `world` (after a failed console line was undone:
/// an id handed out again must not find the undone creature's handle).
pub(crate) fn forget_missing_handles(lua: &Lua, world: &crate::sim::World) -> mlua::Result<()> {
    let handles = registry::handles(lua)?;
    let gone: Vec<u32> = handles
        .clone()
        .pairs::<u32, Value>()
        .flatten()
        .map(|(id, _)| id)
        .filter(|id| world.creature(CreatureId(*id)).is_none())
        .collect();
    for id in gone {
        handles.raw_set(id, Value::Nil)?;
    }
    Ok(())
}

/// The id a handle carries (whether or not the creature still lives). A table that is not
/// the handle registered for that id (a copy, or a handle whose `id` was overwritten) is
/// refused: a handle cannot be retargeted.
pub(super) fn handle_id(lua: &Lua, this: &Table) -> mlua::Result<CreatureId> {
    let keys = registry::handle_keys(lua)?;
    let id = match this.raw_get::<Value>(&keys.id)? {
        v @ (Value::Number(_) | Value::Integer(_)) => {
            CreatureId(as_number(&v).unwrap_or(0.0) as u32)
        }
        _ => {
            return Err(located(
                lua,
                "expected a creature handle (call methods with ':', e.g. c:position())",
            ))
        }
    };
    match keys.handles.raw_get::<Value>(id.0)? {
        Value::Table(t) if t == *this => Ok(id),
        // Gone creatures lose their registered handle: say so.
        Value::Nil if ctx(lua)?.world.borrow().creature(id).is_none() => Err(gone(lua, id)),
        _ => Err(located(
            lua,
            format!(
                "not the handle of creature {}: a handle's id cannot be changed (use world.creatures() or keep the handle)",
                id.0
            ),
        )),
    }
}

/// The id of a handle whose creature is alive.
fn live_id(lua: &Lua, this: &Table) -> mlua::Result<CreatureId> {
    let id = handle_id(lua, this)?;
    if ctx(lua)?.world.borrow().creature(id).is_none() {
        return Err(gone(lua, id));
    }
    Ok(id)
}

/// Reads creature `id` through `f`, or fails with "no longer exists".
fn with_creature<R>(lua: &Lua, this: &Table, f: impl FnOnce(&Creature) -> R) -> mlua::Result<R> {
    let id = handle_id(lua, this)?;
    let c = ctx(lua)?;
    let w = c.world.borrow();
    match w.creature(id) {
        Some(cr) => Ok(f(cr)),
        None => Err(gone(lua, id)),
    }
}

/// Queues `cmd` for a live creature.
fn command(lua: &Lua, this: &Table, cmd: impl FnOnce(CreatureId) -> Command) -> mlua::Result<()> {
    let id = live_id(lua, this)?;
    ctx(lua)?.world.borrow_mut().push(cmd(id));
    Ok(())
}

pub(super) fn position(lua: &Lua, this: Table) -> mlua::Result<mlua::Vector> {
    with_creature(lua, &this, |c| to_vector(c.loco.position))
}

pub(super) fn velocity(lua: &Lua, this: Table) -> mlua::Result<mlua::Vector> {
    with_creature(lua, &this, |c| to_vector(c.loco.velocity))
}

pub(super) fn forward(lua: &Lua, this: Table) -> mlua::Result<mlua::Vector> {
    with_creature(lua, &this, |c| to_vector(forward_from_yaw(c.loco.yaw)))
}

pub(super) fn yaw(lua: &Lua, this: Table) -> mlua::Result<f64> {
    with_creature(lua, &this, |c| c.loco.yaw.to_degrees() as f64)
}

/// `c:move(direction [, speed [, { drop = true }]])`: walk that way (speed 0 or no horizontal
/// part: face or stop). An edge deeper than `nav.step_height` stops the creature unless
/// `drop` is set; then it walks off and falls.
pub(super) fn move_to(
    lua: &Lua,
    (this, dir, speed, opts): (Table, Value, Option<f64>, Option<Table>),
) -> mlua::Result<()> {
    let d = arg_vec(lua, "c:move: direction", &dir)?;
    let drop = match opts {
        None => false,
        Some(t) => {
            let r = Reader::new(t, "", &["drop"]);
            let drop = r
                .boolean("drop")
                .map_err(|e| def_err(lua, "c:move", e))?
                .unwrap_or(false);
            r.finish().map_err(|e| def_err(lua, "c:move", e))?;
            drop
        }
    };
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
            drop,
        }
    };
    command(lua, &this, |id| Command::SetIntent(id, intent))
}

/// `c:face(direction)`: stop and face that way (any `c:set_facing` forgotten).
pub(super) fn face(lua: &Lua, (this, dir): (Table, Value)) -> mlua::Result<()> {
    let d = horizontal(arg_vec(lua, "c:face: direction", &dir)?);
    if d.length_squared() < 1e-12 {
        return Err(located(
            lua,
            "c:face: direction must have a horizontal part",
        ));
    }
    // Told to face a way, it stops facing anything else.
    command(lua, &this, |id| Command::SetFacing(id, None))?;
    command(lua, &this, |id| {
        Command::SetIntent(id, Intent::Face { dir: d.normalize() })
    })
}

/// `c:look_at(target)`: the head turns to look at a point (vector) or a creature (its
/// head, while it lives), within `body.head.look`'s limits; `nil` looks where it goes again.
pub(super) fn look_at(lua: &Lua, (this, target): (Table, Value)) -> mlua::Result<()> {
    use crate::sim::ReachTo;
    let to = match &target {
        Value::Nil => None,
        Value::Vector(_) => Some(ReachTo::Point(arg_vec(lua, "c:look_at: point", &target)?)),
        Value::Table(t) if !matches!(t.raw_get::<Value>("id")?, Value::Nil) => {
            Some(ReachTo::Creature(live_id(lua, t)?))
        }
        other => {
            return Err(located(
                lua,
                format!(
                    "c:look_at: expects a point (vector), a creature or nil, got {}",
                    type_name(other)
                ),
            ))
        }
    };
    command(lua, &this, |id| Command::LookAt(id, to))
}

/// `c:set_facing(target)`: the body faces `target` while the creature goes where its
/// intent, destination or path takes it — a direction (vector), a creature (handle),
/// `{ point = vec3 }`, or `{ offset = degrees }` (turned that far from where it goes:
/// 90 goes to its right, -90 to its left) — and `nil` faces where it goes again.
pub(super) fn set_facing(lua: &Lua, (this, target): (Table, Value)) -> mlua::Result<()> {
    use crate::sim::Facing;
    const WHAT: &str = "c:set_facing";
    const EXPECTS: &str =
        "expects a direction, a creature, { point = vec3 } or { offset = degrees }";
    let facing = match &target {
        Value::Nil => None,
        Value::Vector(_) => {
            let d = horizontal(arg_vec(lua, "c:set_facing: direction", &target)?);
            if d.length_squared() < 1e-12 {
                return Err(located(
                    lua,
                    "c:set_facing: a direction must have a horizontal part",
                ));
            }
            Some(Facing::Dir(d.normalize()))
        }
        Value::Table(t) if !matches!(t.raw_get::<Value>("id")?, Value::Nil) => {
            Some(Facing::Creature(live_id(lua, t)?))
        }
        Value::Table(t) => {
            let r = Reader::new(t.clone(), "", &["point", "offset"]);
            let point = r.vec("point").map_err(|e| def_err(lua, WHAT, e))?;
            let offset = r.num("offset").map_err(|e| def_err(lua, WHAT, e))?;
            r.finish().map_err(|e| def_err(lua, WHAT, e))?;
            match (point, offset) {
                (Some(p), None) => Some(Facing::Point(p)),
                (None, Some(o)) if o.is_finite() => Some(Facing::Offset(o.to_radians())),
                _ => return Err(located(lua, format!("{WHAT}: {EXPECTS}"))),
            }
        }
        other => {
            return Err(located(
                lua,
                format!("{WHAT}: {EXPECTS} or nil, got {}", type_name(other)),
            ))
        }
    };
    command(lua, &this, |id| Command::SetFacing(id, facing))
}

/// `c:pose{ height = 1.3, pitch = -20, roll = 0, time = 0.3 }`: ease the body to that
/// posture — its ride height times `height`, tilted `pitch` degrees (negative rears up,
/// pivoting on the rear hips) and `roll` degrees (positive leans right) on its planted
/// feet — over `time` seconds (0.3 when not given); `c:pose()` eases back to the defined
/// posture. Fields left out are the defined posture's.
pub(super) fn pose(lua: &Lua, (this, opts): (Table, Option<Table>)) -> mlua::Result<()> {
    use crate::locomotion::BodyPose;
    const WHAT: &str = "c:pose";
    let d = BodyPose::default();
    let (pose, time) = match opts {
        None => (d, 0.3),
        Some(t) => {
            let r = Reader::new(t, "", &["height", "pitch", "roll", "time"]);
            let get = |k: &str, lo: f32, hi: f32, or: f32| -> mlua::Result<f32> {
                let v = r.num(k).map_err(|e| def_err(lua, WHAT, e))?.unwrap_or(or);
                if !(lo..=hi).contains(&v) {
                    return Err(located(
                        lua,
                        format!("c:pose: field '{k}' must be {lo} to {hi}, got {v}"),
                    ));
                }
                Ok(v)
            };
            let pose = BodyPose {
                height: get("height", 0.3, 2.0, d.height)?,
                pitch: get("pitch", -45.0, 45.0, d.pitch)?,
                roll: get("roll", -45.0, 45.0, d.roll)?,
            };
            let time = get("time", 0.0, 10.0, 0.3)?;
            r.finish().map_err(|e| def_err(lua, WHAT, e))?;
            (pose, time)
        }
    };
    command(lua, &this, |id| Command::SetPose(id, pose, time))
}

/// `c:reach(arm, target [, { weight = 1, speed = 4 }])`: arm `arm` (its name, or its
/// number in `arms`) reaches its hand toward `target` — a point (vector) or a creature
/// (handle, followed) — by `weight` (0..1), easing at `speed` (weight a second); `nil`
/// eases it back to rest.
pub(super) fn reach(
    lua: &Lua,
    (this, arm, target, opts): (Table, Value, Value, Option<Table>),
) -> mlua::Result<()> {
    use crate::sim::ReachTo;
    const WHAT: &str = "c:reach";
    let names: Vec<String> = with_creature(lua, &this, |c| {
        c.def.arms.iter().map(|a| a.name.clone()).collect()
    })?;
    let index = match &arm {
        Value::String(s) => {
            let s = s.to_string_lossy().to_string();
            names.iter().position(|n| *n == s)
        }
        Value::Integer(i) => usize::try_from(*i - 1).ok().filter(|i| *i < names.len()),
        Value::Number(n) if n.fract() == 0.0 && *n >= 1.0 => {
            Some(*n as usize - 1).filter(|i| *i < names.len())
        }
        _ => None,
    };
    let Some(index) = index else {
        return Err(located(
            lua,
            format!(
                "c:reach: no arm {} (its arms: {})",
                match &arm {
                    Value::String(s) => format!("\"{}\"", s.to_string_lossy()),
                    other => crate::script::convert::type_name(other).to_string(),
                },
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ),
        ));
    };
    let to = match &target {
        Value::Nil => None,
        Value::Table(t) => Some(ReachTo::Creature(live_id(lua, t)?)),
        _ => Some(ReachTo::Point(arg_vec(lua, "c:reach: target", &target)?)),
    };
    let (mut weight, mut speed) = (1.0f32, 4.0f32);
    if let Some(t) = opts {
        let r = Reader::new(t, "", &["weight", "speed"]);
        weight = r
            .num("weight")
            .map_err(|e| def_err(lua, WHAT, e))?
            .unwrap_or(weight);
        speed = r
            .num("speed")
            .map_err(|e| def_err(lua, WHAT, e))?
            .unwrap_or(speed);
        r.finish().map_err(|e| def_err(lua, WHAT, e))?;
    }
    if !((0.0..=1.0).contains(&weight) && speed > 0.0 && speed.is_finite()) {
        return Err(located(
            lua,
            format!("c:reach: weight must be 0 to 1 and speed > 0, got {weight} and {speed}"),
        ));
    }
    command(lua, &this, |id| {
        Command::Reach(id, index, to, weight, speed)
    })
}

/// `c:feet()`: `{ name, position, grounded }` per leg.
pub(super) fn feet(lua: &Lua, this: Table) -> mlua::Result<Table> {
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
}

/// `c:set_behaviour(name [, params])`.
pub(super) fn set_behaviour(
    lua: &Lua,
    (this, name, params): (Table, String, Option<Table>),
) -> mlua::Result<()> {
    let id = live_id(lua, &this)?;
    let params = plain_params(lua, "c:set_behaviour", params)?;
    let c = ctx(lua)?;
    let mut shared = c.shared.borrow_mut();
    let (mod_name, n) = resolve_behaviour(&shared, &c.name, &name)
        .map_err(|e| located(lua, format!("c:set_behaviour: {e}")))?;
    shared.brain_requests.push(BrainRequest {
        id,
        mod_name,
        kind: BrainKind::Behaviour(n),
        params,
    });
    Ok(())
}

/// `c:set_destination(point [, { speed = s }])`: walk there along the navmesh, at `speed`
/// (m/s, at most the type's `nav.speed`, which is the default).
pub(super) fn set_destination(
    lua: &Lua,
    (this, v, opts): (Table, Value, Option<Table>),
) -> mlua::Result<()> {
    let p = arg_point(lua, "c:set_destination: point", &v)?;
    let speed = match opts {
        None => None,
        Some(t) => {
            let r = Reader::new(t, "", &["speed"]);
            let speed = r
                .num("speed")
                .map_err(|e| def_err(lua, "c:set_destination", e))?;
            r.finish()
                .map_err(|e| def_err(lua, "c:set_destination", e))?;
            if let Some(s) = speed.filter(|s| !(s.is_finite() && *s > 0.0)) {
                return Err(located(
                    lua,
                    format!("c:set_destination: speed must be a number > 0, got {s}"),
                ));
            }
            speed
        }
    };
    command(lua, &this, |id| Command::SetDestination(id, p, speed))
}

/// `c:clear_destination()`.
pub(super) fn clear_destination(lua: &Lua, this: Table) -> mlua::Result<()> {
    command(lua, &this, Command::ClearDestination)
}

/// `c:arrived()`: a destination was given and reached (still true while it steps aside for
/// another: see `sim::navigation::make_way`).
pub(super) fn arrived(lua: &Lua, this: Table) -> mlua::Result<bool> {
    let id = handle_id(lua, &this)?;
    let c = ctx(lua)?;
    let w = c.world.borrow();
    // A destination given this tick is not reached yet.
    if w.pending_destination(id) {
        return Ok(false);
    }
    Ok(w.creature(id)
        .and_then(|c| c.nav.as_ref())
        .is_some_and(|g| g.arrived || g.making_way))
}

/// `c:path()`: the corners of the navmesh path being walked.
pub(super) fn path(lua: &Lua, this: Table) -> mlua::Result<Table> {
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
}

/// `c:despawn()`: removes a creature this mod spawned (at the start of the next tick; its
/// brain's `on_despawn` runs then, and the trace says so).
pub(super) fn despawn(lua: &Lua, this: Table) -> mlua::Result<()> {
    let id = live_id(lua, &this)?;
    let c = ctx(lua)?;
    let owner = c
        .shared
        .borrow()
        .spawned
        .iter()
        .find(|(_, s)| *s == id)
        .map(|(m, _)| m.clone());
    if owner.as_deref() != Some(c.name.as_str()) {
        return Err(located(
            lua,
            format!(
                "c:despawn: creature {} belongs to mod \"{}\"; a mod removes only its own",
                id.0,
                owner.unwrap_or_else(|| "?".into())
            ),
        ));
    }
    c.world.borrow_mut().push(Command::Despawn(id));
    Ok(())
}

/// The strongest blow `c:hit` takes (a push of `hit.push` × 100 m/s at the defaults is
/// already far past anything a body does).
pub(crate) const MAX_HIT: f64 = 100.0;

/// `c:hit(direction, strength)`: a blow (lean, push, `on_hit`). Strength 0 does nothing.
pub(super) fn hit(lua: &Lua, (this, dir, strength): (Table, Value, Value)) -> mlua::Result<()> {
    let d = arg_vec(lua, "c:hit: direction", &dir)?;
    if d.length_squared() < 1e-12 {
        return Err(located(lua, "c:hit: direction must not be the zero vector"));
    }
    let k = match as_number(&strength) {
        Some(k) if (0.0..=MAX_HIT).contains(&k) => k as f32,
        Some(k) => {
            return Err(located(
                lua,
                format!("c:hit: strength must be between 0 and {MAX_HIT}, got {k}"),
            ))
        }
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
    command(lua, &this, |id| Command::Hit(id, d, k))
}

/// `c:path_progress()`: how far along its path the creature is, 0..1 (nil when it follows
/// none).
pub(super) fn path_progress(lua: &Lua, this: Table) -> mlua::Result<Option<f64>> {
    with_creature(lua, &this, |c| {
        c.loco
            .follow
            .as_ref()
            .map(|f| (f.s / f.path.length().max(1e-6)).clamp(0.0, 1.0) as f64)
    })
}

/// `c:follow_path(path [, opts])`.
pub(super) fn follow_path(
    lua: &Lua,
    (this, p, opts): (Table, Value, Option<Table>),
) -> mlua::Result<()> {
    let id = handle_id(lua, &this)?;
    super::path::follow_path(lua, id, p, opts)
}

/// A strength 0..1 from a script, or a located error naming `what`.
fn strength_arg(lua: &Lua, what: &str, v: &Value) -> mlua::Result<f32> {
    match as_number(v) {
        Some(k) if (0.0..=1.0).contains(&k) => Ok(k as f32),
        Some(k) => Err(located(
            lua,
            format!("{what} must be between 0 and 1, got {k}"),
        )),
        None => Err(located(
            lua,
            format!(
                "{what} must be a number between 0 and 1, got {}",
                type_name(v)
            ),
        )),
    }
}

/// `c:ragdoll{ muscle = 0..1, duration = seconds, turn = vec3(pitch, yaw, roll) }`: into
/// physics at the next tick (turned about the body's centre by `turn` degrees first).
pub(super) fn ragdoll(lua: &Lua, (this, opts): (Table, Option<Table>)) -> mlua::Result<()> {
    let id = live_id(lua, &this)?;
    if with_creature(lua, &this, |c| c.def.legs.is_empty())? {
        return Err(located(
            lua,
            format!(
                "c:ragdoll: creature {} has no legs (a flyer has no rig to fall with)",
                id.0
            ),
        ));
    }
    let mut req = crate::sim::RagdollRequest::default();
    if let Some(t) = opts {
        let r = Reader::new(t, "", &["muscle", "duration", "turn"]);
        let muscle = r
            .get_value("muscle")
            .map_err(|e| def_err(lua, "c:ragdoll", e))?;
        if !muscle.is_nil() {
            req.muscle = Some(strength_arg(lua, "c:ragdoll: muscle", &muscle)?);
        }
        match r.num("duration").map_err(|e| def_err(lua, "c:ragdoll", e))? {
            Some(d) if d > 0.0 && !d.is_nan() => req.duration = Some(d.min(crate::sim::FOREVER)),
            Some(d) => {
                return Err(located(
                    lua,
                    format!("c:ragdoll: duration must be > 0 seconds (math.huge: until c:recover()), got {d}"),
                ))
            }
            None => {}
        }
        req.turn = r.vec("turn").map_err(|e| def_err(lua, "c:ragdoll", e))?;
        if let Some(t) = req.turn.filter(|t| !t.is_finite()) {
            return Err(located(
                lua,
                format!("c:ragdoll: turn must be finite degrees (pitch, yaw, roll), got {t}"),
            ));
        }
        r.finish().map_err(|e| def_err(lua, "c:ragdoll", e))?;
    }
    command(lua, &this, |id| Command::Ragdoll(id, req))
}

/// `c:recover()`: a ragdoll starts getting up at the next tick (no effect when animated).
pub(super) fn recover(lua: &Lua, this: Table) -> mlua::Result<()> {
    command(lua, &this, Command::Recover)
}

/// `c:is_climbing()`: a climbing type holding on to a surface (not falling, not a ragdoll).
pub(super) fn is_climbing(lua: &Lua, this: Table) -> mlua::Result<bool> {
    with_creature(lua, &this, |c| c.rag.is_none() && c.loco.is_climbing())
}

/// `c:surface_normal()`: the up of the surface the body stands on (a climber's body up;
/// a walker's tilt from its feet).
pub(super) fn surface_normal(lua: &Lua, this: Table) -> mlua::Result<mlua::Vector> {
    with_creature(lua, &this, |c| to_vector(c.loco.up))
}

/// `c:surface()`: `"floor"`, `"wall"` or `"ceiling"` for a climber holding on, nil otherwise.
pub(super) fn surface(lua: &Lua, this: Table) -> mlua::Result<Option<&'static str>> {
    with_creature(lua, &this, |c| {
        c.loco
            .climb
            .filter(|_| c.rag.is_none() && c.loco.is_climbing())
            .map(|cl| cl.surface.name())
    })
}

/// `c:let_go()`: a climber lets go of its surface at the next tick and falls (nothing for a
/// walker).
pub(super) fn let_go(lua: &Lua, this: Table) -> mlua::Result<()> {
    command(lua, &this, Command::LetGo)
}

/// `c:is_ragdoll()`: in physics (limp or recovering).
pub(super) fn is_ragdoll(lua: &Lua, this: Table) -> mlua::Result<bool> {
    with_creature(lua, &this, |c| c.rag.is_some())
}

/// `c:ragdoll_state()`: `"animated"`, `"limp"` or `"recovering"`.
pub(super) fn ragdoll_state(lua: &Lua, this: Table) -> mlua::Result<&'static str> {
    with_creature(lua, &this, |c| c.ragdoll_state())
}

/// `c:style()`: the name of the gait style it steps in (`gait.styles`), nil for a type
/// without styles.
pub(super) fn style(lua: &Lua, this: Table) -> mlua::Result<Option<String>> {
    with_creature(lua, &this, |c| {
        c.loco.style_name(&c.def).map(str::to_string)
    })
}

/// `c.muscle`: the live muscle strength (1 while animated: the pose is held exactly).
fn get_muscle(lua: &Lua, this: Table) -> mlua::Result<f64> {
    with_creature(lua, &this, |c| {
        c.rag.as_ref().map_or(1.0, |r| r.muscle as f64)
    })
}

/// `c.muscle = s`: a ragdoll's strength, 0..1 (ignored while animated).
fn set_muscle(lua: &Lua, (this, v): (Table, Value)) -> mlua::Result<()> {
    let s = strength_arg(lua, "c.muscle", &v)?;
    command(lua, &this, |id| Command::SetMuscle(id, s))
}

fn to_string(_: &Lua, this: Table) -> mlua::Result<String> {
    Ok(format!(
        "creature {} ({})",
        this.raw_get::<Value>("id")?.to_string()?,
        this.raw_get::<Value>("type")?.to_string()?
    ))
}

/// Builds the handle metatable from `methods`.
pub(super) fn install(lua: &Lua, methods: &[super::Entry]) -> mlua::Result<()> {
    let names: Vec<&'static str> = methods.iter().map(|(n, _, _)| *n).collect();
    let m = lua.create_table()?;
    for (name, _, make) in methods {
        m.raw_set(*name, make(lua)?)?;
    }
    // Methods come from a table lookup in Luau (fast); `gait` and `lean` are proxies made
    // once per handle; assigning a table to them applies its fields (a partial override)
    // and keeps the proxy. The chunk is internal: errors point past it, at the script.
    let (index, newindex): (Function, Function) = lua
        .load(
            r#"
local methods, make_proxy, assign, get_muscle, set_muscle, suggest = ...
local cache = setmetatable({}, { __mode = "k" })
local near = {}
local function index(t, k)
  local m = methods[k]
  if m ~= nil then return m end
  if k == "muscle" then return get_muscle(t) end
  if k == "gait" or k == "lean" then
    local per = cache[t]
    if per == nil then per = {} cache[t] = per end
    local p = per[k]
    if p == nil then p = make_proxy(t, k) per[k] = p end
    return p
  end
  -- A near miss of a method's name (a typo): a function that says so when called.
  local s = near[k]
  if s == nil then
    local hint = type(k) == "string" and suggest(k) or nil
    s = hint and function()
      error("a creature has no method '" .. k .. "' (did you mean '" .. hint .. "'?)", 2)
    end or false
    near[k] = s
  end
  return s or nil
end
local function newindex(t, k, v)
  if k == "gait" or k == "lean" then return assign(t, k, v) end
  if k == "muscle" then return set_muscle(t, v) end
  rawset(t, k, v)
end
return index, newindex
"#,
        )
        .set_name(format!("={INTERNAL_CHUNK}handle"))
        .call((
            m.clone(),
            lua.create_function(make_proxy)?,
            lua.create_function(assign_tuning)?,
            lua.create_function(get_muscle)?,
            lua.create_function(set_muscle)?,
            lua.create_function(move |_, k: String| Ok(near_method(&names, &k)))?,
        ))?;
    let mt = lua.create_table()?;
    mt.raw_set("__index", index)?;
    mt.raw_set("__newindex", newindex)?;
    mt.raw_set("__tostring", lua.create_function(to_string)?)?;
    mt.raw_set("__metatable", "creature")?;
    registry::set_handle_methods(lua, m)?;
    registry::set_handle_mt(lua, mt)
}

/// The method `key` is a typo of, if any: only for names long enough that a near miss is a
/// typo rather than a field of the script's own it has not set yet (`c.pos`, `c.mood`).
fn near_method(names: &[&'static str], key: &str) -> Option<&'static str> {
    if key.len() < 6 {
        return None;
    }
    crate::script::convert::nearest_name(key, names.iter().copied(), (key.len() / 5).max(1))
}

/// `c.gait` / `c.lean` the first time a handle is asked for it.
fn make_proxy(lua: &Lua, (this, key): (Table, String)) -> mlua::Result<Value> {
    let id = handle_id(lua, &this)?;
    Ok(Value::UserData(match key.as_str() {
        "gait" => lua.create_userdata(GaitProxy::new(id, None))?,
        _ => lua.create_userdata(LeanProxy::new(id, None))?,
    }))
}

/// `c.gait = { ... }` / `c.lean = { ... }`: the fields given, applied together.
fn assign_tuning(lua: &Lua, (this, key, value): (Table, String, Value)) -> mlua::Result<()> {
    let id = handle_id(lua, &this)?;
    match key.as_str() {
        "gait" => GaitProxy::new(id, None).set_table(lua, "c.gait", value),
        _ => LeanProxy::new(id, None).set_table(lua, "c.lean", value),
    }
}
