//! Paths in Lua: `path.bezier{...}` builds a [`LuaPath`] (`p:length()`, `p:point(s)`, ...),
//! `path.load("NAME")` reads one from the mod's `paths/NAME.toml`; `c:follow_path(p, opts)`
//! puts a creature on one.

use std::sync::Arc;

use glam::Vec3;
use mlua::{Lua, Table, UserData, UserDataMethods, Value};

use super::context::{arg_vec, caller_location, ctx, def_err, finite_arg, gone, located};
use crate::locomotion::DefError;
use crate::math::bezier::{BezierPath, ControlPoint};
use crate::math::Curve;
use crate::path::{LoopMode, PathFollower, RotationMode};
use crate::script::convert::{to_vector, type_name, Reader};
use crate::script::path_file;
use crate::script::shared::PathSource;
use crate::sim::{Command, CreatureId};

/// A Bézier path as a Lua value: `p:length()`, `p:point(s)`, `p:tangent(s)`, `p:closest(v)`,
/// `p:sample(n)`, `p:simplify(tolerance)`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LuaPath {
    /// Its shape when made.
    pub path: Arc<BezierPath>,
    /// Where it comes from: `"mod/name"` (a path file: the World holds its current shape,
    /// which the editor or a saved file may change) or `"mod/file.lua:LINE"` (an inline
    /// `path.bezier`, which the editor can move into a file).
    pub source: Option<String>,
}

impl LuaPath {
    /// A path with no source (derived: `p:simplify`).
    fn plain(path: BezierPath) -> LuaPath {
        LuaPath {
            path: Arc::new(path),
            source: None,
        }
    }

    /// The shape now: a named path's current one in the World, else the one it was made with.
    pub(crate) fn live(&self, lua: &Lua) -> Arc<BezierPath> {
        if let (Some(key), Ok(c)) = (self.source.as_deref(), ctx(lua)) {
            if let Some(p) = c.world.borrow().path(key) {
                return p.clone();
            }
        }
        self.path.clone()
    }
}

/// A finite number argument of a path method (any other value: a located error).
fn num_arg(lua: &Lua, what: &str, v: &Value) -> mlua::Result<f32> {
    match crate::script::convert::as_number(v) {
        Some(x) => finite_arg(lua, what, x),
        None => Err(located(
            lua,
            format!("{what} must be a number, got {}", type_name(v)),
        )),
    }
}

/// A small path userdata (for the API surface listing to see its methods).
pub(crate) fn sample_path_userdata(lua: &Lua) -> mlua::Result<mlua::AnyUserData> {
    let cp = |x: f32| ControlPoint {
        position: Vec3::new(x, 0.0, 0.0),
        handle_in: None,
        handle_out: None,
    };
    let p = BezierPath::new(&[cp(0.0), cp(1.0)], false).map_err(mlua::Error::external)?;
    lua.create_userdata(LuaPath::plain(p))
}

impl UserData for LuaPath {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("length", |lua, this, ()| Ok(this.live(lua).length() as f64));
        methods.add_method("point", |lua, this, s: Value| {
            let s = num_arg(lua, "p:point: s", &s)?;
            Ok(to_vector(this.live(lua).point(s)))
        });
        methods.add_method("tangent", |lua, this, s: Value| {
            let s = num_arg(lua, "p:tangent: s", &s)?;
            Ok(to_vector(this.live(lua).tangent(s)))
        });
        methods.add_method("closest", |lua, this, v: Value| {
            let v = arg_vec(lua, "p:closest: point", &v)?;
            let p = this.live(lua);
            let s = p.closest(v);
            Ok((s as f64, to_vector(p.point(s))))
        });
        methods.add_method("sample", |lua, this, n: Value| {
            let n = num_arg(lua, "p:sample: n", &n)? as f64;
            if !(1.0..=100_000.0).contains(&n) {
                return Err(located(
                    lua,
                    format!("p:sample: n must be between 1 and 100000, got {n}"),
                ));
            }
            let t = lua.create_table()?;
            for (i, p) in this.live(lua).sample(n as usize).into_iter().enumerate() {
                t.raw_set(i + 1, to_vector(p))?;
            }
            Ok(t)
        });
        methods.add_method("simplify", |lua, this, tol: Value| {
            let tol = num_arg(lua, "p:simplify: tolerance", &tol)?;
            if tol <= 0.0 {
                return Err(located(lua, "p:simplify: tolerance must be > 0"));
            }
            Ok(LuaPath::plain(this.live(lua).simplify(tol)))
        });
        methods.add_meta_method("__tostring", |lua, this, ()| {
            let p = this.live(lua);
            Ok(format!(
                "path({} points, {:.2} m{})",
                p.points().len(),
                p.length(),
                if p.closed() { ", closed" } else { "" }
            ))
        });
    }
}

/// `path.bezier{ points = {...}, closed = false }`.
pub(super) fn bezier(lua: &Lua, t: Value) -> mlua::Result<LuaPath> {
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
    let path =
        BezierPath::new(&points, closed).map_err(|e| located(lua, format!("path.bezier: {e}")))?;
    Ok(LuaPath {
        path: Arc::new(path),
        source: caller_location(lua),
    })
}

/// `path.load("NAME")`: the calling mod's `paths/NAME.toml` (see `script/path_file.rs`), its
/// shape put in the World under `"mod/NAME"` (followers of it follow every later change).
pub(super) fn load(lua: &Lua, name: Value) -> mlua::Result<LuaPath> {
    let Value::String(name) = name else {
        return Err(located(
            lua,
            format!(
                "path.load: expects a path name (a string), got {}",
                type_name(&name)
            ),
        ));
    };
    let name = name.to_string_lossy();
    if !path_file::valid_name(&name) {
        return Err(located(
            lua,
            format!(
                "path.load: \"{name}\" is not a path name (1-64 letters, digits, _ and -; the file is paths/NAME.toml)"
            ),
        ));
    }
    let c = ctx(lua)?;
    let Some((dir, _)) = c.roots.get(&c.name) else {
        return Err(located(lua, "path.load: this mod has no folder"));
    };
    let rel = path_file::relative_file(&name);
    let at = format!("{}/{}", c.name, rel.display());
    let (bytes, points, closed) = path_file::read(&dir.join(&rel)).map_err(|e| {
        let place = match e.line {
            Some(l) => format!("{at}:{l}"),
            None => at.clone(),
        };
        let by = caller_location(lua)
            .map(|l| format!(" (path.load at {l})"))
            .unwrap_or_default();
        mlua::Error::runtime(format!("{place}: {}{by}", e.message))
    })?;
    let path = Arc::new(
        BezierPath::new(&points, closed).map_err(|e| located(lua, format!("path.load: {e}")))?,
    );
    let key = format!("{}/{name}", c.name);
    c.world.borrow_mut().set_path(&key, path.clone(), None);
    c.shared.borrow_mut().path_files.insert(
        key.clone(),
        PathSource {
            mod_name: c.name.clone(),
            name,
            bytes,
        },
    );
    Ok(LuaPath {
        path,
        source: Some(key),
    })
}

/// A path argument (its shape now, and its source), or an error naming `what`.
pub(super) fn path_arg(
    lua: &Lua,
    what: &str,
    v: &Value,
) -> mlua::Result<(Arc<BezierPath>, Option<String>)> {
    match v {
        Value::UserData(ud) => ud
            .borrow::<LuaPath>()
            .map(|p| (p.live(lua), p.source.clone()))
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

/// What `c:follow_path`'s options say: speed, loop mode, rotation, speed curve.
type FollowOpts = (f32, LoopMode, RotationMode, Option<Curve>);

fn follow_opts(lua: &Lua, opts: Option<Table>, cruise: f32) -> mlua::Result<FollowOpts> {
    let Some(t) = opts else {
        return Ok((cruise, LoopMode::Once, RotationMode::LookForward, None));
    };
    let r = Reader::new(t, "", &["speed", "loop", "rotation", "speed_curve"]);
    let read = || -> Result<FollowOpts, DefError> {
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
                    format!("must be \"look_forward\", \"smooth\" or \"none\", got \"{other}\""),
                ))
            }
        };
        Ok((speed, mode, rotation, r.curve("speed_curve")?))
    };
    let v = read().map_err(|e| def_err(lua, "c:follow_path", e))?;
    r.finish().map_err(|e| def_err(lua, "c:follow_path", e))?;
    Ok(v)
}

/// `c:follow_path(path [, { speed, loop, rotation, speed_curve }])` for creature `id`.
pub(super) fn follow_path(
    lua: &Lua,
    id: CreatureId,
    p: Value,
    opts: Option<Table>,
) -> mlua::Result<()> {
    let (path, source) = path_arg(lua, "c:follow_path", &p)?;
    let c = ctx(lua)?;
    let (legged, cruise, at) = {
        let w = c.world.borrow();
        let cr = w.creature(id).ok_or_else(|| gone(lua, id))?;
        (!cr.def.legs.is_empty(), cr.def.nav.speed, cr.loco.position)
    };
    let (speed, mode, rotation, speed_curve) = follow_opts(lua, opts, cruise)?;
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
    let mut f = PathFollower::new(followed, s, speed, mode, rotation, speed_curve);
    f.source = source;
    c.world
        .borrow_mut()
        .push(Command::FollowPath(id, Box::new(f)));
    Ok(())
}
