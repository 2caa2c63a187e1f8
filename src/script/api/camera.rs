//! `camera.*`: requests the window applies (follow a creature, look from a point, fly a
//! path). The script layer never names the render layer.

use glam::Vec3;
use mlua::{Lua, Table, Value};

use super::context::{arg_vec, ctx, def_err, located};
use super::handle::handle_id;
use super::path::path_arg;
use crate::locomotion::DefError;
use crate::math::Curve;
use crate::script::convert::{as_number, type_name, Reader};
use crate::script::shared::{CameraRequest, LookAt};
use crate::sim::CreatureId;

/// `camera.follow(c)`.
pub(super) fn follow(lua: &Lua, c: Value) -> mlua::Result<()> {
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
    push(lua, CameraRequest::Follow(id))
}

/// `camera.look(from, at)`.
pub(super) fn look(lua: &Lua, (from, at): (Value, Value)) -> mlua::Result<()> {
    let from = arg_vec(lua, "camera.look: from", &from)?;
    let at = arg_vec(lua, "camera.look: at", &at)?;
    if from.distance(at) < 1e-3 {
        return Err(located(lua, "camera.look: from and at must differ"));
    }
    push(lua, CameraRequest::Look { from, at })
}

/// Camera requests kept for the view (the oldest go first): a mod asking every tick with no
/// view to take them (a headless run) cannot grow the process.
pub(crate) const MAX_CAMERA_REQUESTS: usize = 64;

fn push(lua: &Lua, r: CameraRequest) -> mlua::Result<()> {
    let c = ctx(lua)?;
    let mut sh = c.shared.borrow_mut();
    if sh.camera.len() >= MAX_CAMERA_REQUESTS {
        sh.camera.remove(0);
    }
    sh.camera.push(r);
    Ok(())
}

/// The ease a camera path uses unless told: linear.
fn linear() -> Curve {
    Curve::Linear {
        xs: vec![0.0, 1.0],
        ys: vec![0.0, 1.0],
    }
}

/// `camera.path(p [, { duration, ease, look_at }])`.
pub(super) fn path(lua: &Lua, (p, opts): (Value, Option<Table>)) -> mlua::Result<()> {
    let (path, _) = path_arg(lua, "camera.path", &p)?;
    let (duration, ease, look_at) = match opts {
        None => (path.length() / 4.0, linear(), None),
        Some(t) => {
            let r = Reader::new(t, "", &["duration", "ease", "look_at"]);
            let read = || -> Result<_, DefError> {
                let d = r.num_or("duration", path.length() / 4.0)?;
                if !(d.is_finite() && d > 0.0) {
                    return Err(DefError::new("duration", format!("must be > 0, got {d}")));
                }
                let ease = r.curve("ease")?.unwrap_or_else(linear);
                Ok((d, ease, look_at(r.get_value("look_at")?)?))
            };
            let v = read().map_err(|e| def_err(lua, "camera.path", e))?;
            r.finish().map_err(|e| def_err(lua, "camera.path", e))?;
            v
        }
    };
    push(
        lua,
        CameraRequest::Path {
            path,
            duration,
            ease,
            look_at,
        },
    )
}

/// A `look_at` option: a creature handle or a point.
fn look_at(v: Value) -> Result<Option<LookAt>, DefError> {
    Ok(match v {
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
    })
}
