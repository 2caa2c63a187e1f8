//! Links and jumps: `world.link{...}`, `c:jump(to)`, `c:cross_link()`, `c:link()`,
//! `c:is_jumping()`; and teams (`c:team()`, `c:set_team(n)`), which `world.creatures_near`
//! filters on.

use mlua::{Lua, Table, Value};

use super::context::{arg_point, ctx, def_err, located, soft};
use super::handle::handle_id;
use crate::locomotion::DefError;
use crate::script::convert::Reader;
use crate::sim::{Command, LinkDesc};

/// `world.link{ from, to, kind = "jump", width = 1, bidirectional = true, cost? }`.
pub(super) fn add_link(lua: &Lua, t: Table) -> mlua::Result<()> {
    let c = ctx(lua)?;
    let r = (|| -> Result<(), DefError> {
        let r = Reader::new(
            t,
            "",
            &["from", "to", "kind", "width", "bidirectional", "cost"],
        );
        let desc = LinkDesc {
            from: r.vec_req("from")?,
            to: r.vec_req("to")?,
            kind: r.string("kind")?.unwrap_or_else(|| "jump".into()),
            width: r.num_or("width", 1.0)?,
            bidirectional: r.boolean("bidirectional")?.unwrap_or(true),
            cost: r.num("cost")?,
        };
        r.finish()?;
        c.world.borrow_mut().add_link_for(&c.name, desc)
    })();
    soft(lua, r.map_err(|e| def_err(lua, "world.link", e)), ())
}

/// `c:jump(to)`: jumps to the ground at `to` (crouch, flight, landing). Refused with an
/// error at the calling line when it cannot: in the air or in physics, no ground there,
/// beyond its type's `nav.jump` limits, or the way blocked by the level.
pub(super) fn jump(lua: &Lua, (this, to): (Table, Value)) -> mlua::Result<()> {
    let p = arg_point(lua, "c:jump: to", &to)?;
    let id = handle_id(lua, &this)?;
    let c = ctx(lua)?;
    let checked = c.world.borrow_mut().jump_check(id, p);
    match checked {
        Ok(landing) => {
            c.world.borrow_mut().push(Command::Jump(id, landing));
            Ok(())
        }
        Err(why) => Err(located(
            lua,
            format!(
                "c:jump: cannot jump to ({:.2}, {:.2}, {:.2}): {why}",
                p.x, p.y, p.z
            ),
        )),
    }
}

/// `c:cross_link()`: the built-in crossing of the link it waits at (after its `on_link`
/// returned a value); nothing when it waits at none.
pub(super) fn cross_link(lua: &Lua, this: Table) -> mlua::Result<()> {
    let id = handle_id(lua, &this)?;
    ctx(lua)?.world.borrow_mut().push(Command::CrossLink(id));
    Ok(())
}

/// `c:link()`: the kind of the link it is crossing or waiting at, or nil.
pub(super) fn link(lua: &Lua, this: Table) -> mlua::Result<Option<String>> {
    let id = handle_id(lua, &this)?;
    let c = ctx(lua)?;
    let w = c.world.borrow();
    Ok(w.creature(id)
        .and_then(|cr| cr.nav.as_ref())
        .and_then(|g| g.link.as_ref())
        .map(|l| l.kind.clone()))
}

/// `c:is_jumping()`: crouching for a jump or in its flight.
pub(super) fn is_jumping(lua: &Lua, this: Table) -> mlua::Result<bool> {
    let id = handle_id(lua, &this)?;
    let c = ctx(lua)?;
    let w = c.world.borrow();
    Ok(w.creature(id).is_some_and(|cr| cr.loco.jump.is_some()))
}

/// `c:team()`: its team number, or nil.
pub(super) fn team(lua: &Lua, this: Table) -> mlua::Result<Option<u32>> {
    let id = handle_id(lua, &this)?;
    let c = ctx(lua)?;
    let w = c.world.borrow();
    Ok(w.creature(id).and_then(|cr| cr.team))
}

/// `c:tint()`: the colour it is recoloured in, or nil when drawn as made.
pub(super) fn tint(lua: &Lua, this: Table) -> mlua::Result<Option<mlua::Vector>> {
    let id = handle_id(lua, &this)?;
    let c = ctx(lua)?;
    let w = c.world.borrow();
    Ok(w.creature(id)
        .and_then(|cr| cr.tint)
        .map(crate::script::convert::to_vector))
}

/// `c:set_tint(v)`: recolours it in `v` (each 0..4; nil: as made) from the next tick.
pub(super) fn set_tint(lua: &Lua, (this, tint): (Table, Value)) -> mlua::Result<()> {
    let id = handle_id(lua, &this)?;
    let tint = match tint {
        Value::Nil => None,
        v => match crate::script::convert::as_vec3(&v) {
            Some(t) if super::world::is_tint(t) => Some(t),
            _ => {
                return Err(located(
                    lua,
                    format!(
                        "c:set_tint: tint must be a colour vector with components from 0 to {} or nil, got {}",
                        super::world::MAX_TINT,
                        crate::script::convert::type_name(&v)
                    ),
                ))
            }
        },
    };
    ctx(lua)?
        .world
        .borrow_mut()
        .push(Command::SetTint(id, tint));
    Ok(())
}

/// `c:set_team(n)`: puts it in team `n` (a whole number 0..1e6; nil: none) from the next tick.
pub(super) fn set_team(lua: &Lua, (this, team): (Table, Value)) -> mlua::Result<()> {
    let id = handle_id(lua, &this)?;
    let team = match team {
        Value::Nil => None,
        v => match crate::script::convert::as_number(&v) {
            Some(n) if (0.0..=1.0e6).contains(&n) && n.fract() == 0.0 => Some(n as u32),
            _ => {
                return Err(located(
                    lua,
                    format!(
                        "c:set_team: team must be a whole number from 0 to 1000000 or nil, got {}",
                        crate::script::convert::type_name(&v)
                    ),
                ))
            }
        },
    };
    ctx(lua)?
        .world
        .borrow_mut()
        .push(Command::SetTeam(id, team));
    Ok(())
}
