//! Lua values → plain Rust definitions, with errors that name the field: a [`Reader`] reads
//! the keys it knows from a table and then rejects every key it did not read.

use glam::Vec3;
use mlua::{Table, UserData, UserDataMethods, Value};

use crate::locomotion::def::{
    BodyDef, ClimbDef, CreatureDef, HeadDef, JumpLimits, LeanDef, LegDef, NavDef,
};
use crate::locomotion::tuning;
use crate::locomotion::{ChainDef, DefError};
use crate::math::Curve;

mod appendage;
mod arms;
mod curve;
mod gait;
mod level;
pub(crate) use curve::{curve_from_points, curve_from_value};
pub(crate) use level::{box_desc, ground_desc, stairs_desc};
pub(crate) mod model;
mod physics;

/// A curve as a Lua value (`curve{...}`, `curve.sine_arc()`, ...): `c:eval(x)`.
#[derive(Clone, Debug)]
pub(crate) struct LuaCurve(pub Curve);

impl UserData for LuaCurve {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("eval", |_, this, x: f64| Ok(this.0.eval(x as f32) as f64));
        methods.add_meta_method("__tostring", |_, this, ()| {
            Ok(format!("curve({:?})", this.0))
        });
    }
}

/// Lua type name of a value, for messages.
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Nil => "nil",
        Value::Boolean(_) => "boolean",
        Value::Integer(_) | Value::Number(_) => "number",
        Value::Vector(_) => "vector",
        Value::String(_) => "string",
        Value::Table(_) => "table",
        Value::Function(_) => "function",
        Value::UserData(_) => "userdata",
        _ => "value",
    }
}

/// Of `among`, the name nearest `key` (edit distance, ties by name) within `most` edits:
/// what a "did you mean" names.
pub(crate) fn nearest_name<'a>(
    key: &str,
    among: impl IntoIterator<Item = &'a str>,
    most: usize,
) -> Option<&'a str> {
    among
        .into_iter()
        .map(|c| (strsim::levenshtein(key, c), c))
        .filter(|(d, _)| *d <= most)
        .min()
        .map(|(_, c)| c)
}

/// A number value as f64.
pub(crate) fn as_number(v: &Value) -> Option<f64> {
    match v {
        Value::Integer(i) => Some(*i as f64),
        Value::Number(n) => Some(*n),
        _ => None,
    }
}

/// A vector value as Vec3.
pub(crate) fn as_vec3(v: &Value) -> Option<Vec3> {
    match v {
        Value::Vector(v) => Some(Vec3::new(v.x(), v.y(), v.z())),
        _ => None,
    }
}

/// Vec3 to a Lua vector.
pub(crate) fn to_vector(v: Vec3) -> mlua::Vector {
    mlua::Vector::new(v.x, v.y, v.z)
}

/// Reads known fields from a table; `finish` rejects unknown ones.
pub(crate) struct Reader {
    table: Table,
    prefix: String,
    known: Vec<&'static str>,
}

impl Reader {
    /// A reader for `table`, whose fields are named `prefix` + key; `known` lists every key allowed.
    pub(crate) fn new(table: Table, prefix: &str, known: &[&'static str]) -> Reader {
        Reader {
            table,
            prefix: prefix.to_string(),
            known: known.to_vec(),
        }
    }

    fn field(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    fn get(&self, key: &str) -> Result<Value, DefError> {
        debug_assert!(self.known.contains(&key), "{key} not in the known list");
        self.table
            .raw_get::<Value>(key)
            .map_err(|e| DefError::new(self.field(key), e.to_string()))
    }

    fn wrong(&self, key: &str, want: &str, got: &Value) -> DefError {
        DefError::new(
            self.field(key),
            format!("must be {want}, got {}", type_name(got)),
        )
    }

    /// The raw value of a known key.
    pub(crate) fn get_value(&self, key: &str) -> Result<Value, DefError> {
        self.get(key)
    }

    /// An optional number.
    pub(crate) fn num(&self, key: &str) -> Result<Option<f32>, DefError> {
        let v = self.get(key)?;
        match v {
            Value::Nil => Ok(None),
            _ => as_number(&v)
                .map(|n| Some(n as f32))
                .ok_or_else(|| self.wrong(key, "a number", &v)),
        }
    }

    /// A number with a default.
    pub(crate) fn num_or(&self, key: &str, default: f32) -> Result<f32, DefError> {
        Ok(self.num(key)?.unwrap_or(default))
    }

    /// An optional vector.
    pub(crate) fn vec(&self, key: &str) -> Result<Option<Vec3>, DefError> {
        let v = self.get(key)?;
        match v {
            Value::Nil => Ok(None),
            _ => as_vec3(&v)
                .map(Some)
                .ok_or_else(|| self.wrong(key, "a vector (vec3(x, y, z))", &v)),
        }
    }

    /// A required vector.
    pub(crate) fn vec_req(&self, key: &str) -> Result<Vec3, DefError> {
        self.vec(key)?
            .ok_or_else(|| DefError::new(self.field(key), "is required (a vector, vec3(x, y, z))"))
    }

    /// An optional string.
    pub(crate) fn string(&self, key: &str) -> Result<Option<String>, DefError> {
        let v = self.get(key)?;
        match v {
            Value::Nil => Ok(None),
            Value::String(s) => Ok(Some(s.to_string_lossy())),
            _ => Err(self.wrong(key, "a string", &v)),
        }
    }

    /// An optional boolean.
    pub(crate) fn boolean(&self, key: &str) -> Result<Option<bool>, DefError> {
        let v = self.get(key)?;
        match v {
            Value::Nil => Ok(None),
            Value::Boolean(b) => Ok(Some(b)),
            _ => Err(self.wrong(key, "a boolean", &v)),
        }
    }

    /// An optional table.
    pub(crate) fn table(&self, key: &str) -> Result<Option<Table>, DefError> {
        let v = self.get(key)?;
        match v {
            Value::Nil => Ok(None),
            Value::Table(t) => Ok(Some(t)),
            _ => Err(self.wrong(key, "a table", &v)),
        }
    }

    /// An optional function (kept in the table; only its type is checked).
    pub(crate) fn function(&self, key: &str) -> Result<(), DefError> {
        let v = self.get(key)?;
        match v {
            Value::Nil | Value::Function(_) => Ok(()),
            _ => Err(self.wrong(key, "a function", &v)),
        }
    }

    /// An optional curve: a `curve` value, a number (constant) or a list of `{x, y}` points.
    pub(crate) fn curve(&self, key: &str) -> Result<Option<Curve>, DefError> {
        let v = self.get(key)?;
        curve_from_value(&v).map_err(|m| DefError::new(self.field(key), m.to_string()))
    }

    /// A sub-reader for a nested table (absent = empty).
    pub(crate) fn sub(
        &self,
        key: &str,
        known: &[&'static str],
        lua: &mlua::Lua,
    ) -> Result<Reader, DefError> {
        let t = match self.table(key)? {
            Some(t) => t,
            None => lua
                .create_table()
                .map_err(|e| DefError::new(self.field(key), e.to_string()))?,
        };
        Ok(Reader::new(t, &format!("{}{key}.", self.prefix), known))
    }

    /// Fails on the first key that is not in the known list (in a stable order).
    pub(crate) fn finish(self) -> Result<(), DefError> {
        let mut unknown: Vec<String> = Vec::new();
        for pair in self.table.pairs::<Value, Value>() {
            let (k, _) =
                pair.map_err(|e| DefError::new(self.prefix.trim_end_matches('.'), e.to_string()))?;
            match &k {
                Value::String(s) => {
                    let s = s.to_string_lossy();
                    if !self.known.contains(&s.as_str()) {
                        unknown.push(s);
                    }
                }
                other => {
                    let shown = as_number(other)
                        .map(|n| format!("[{n}]"))
                        .unwrap_or_else(|| format!("<{}>", type_name(other)));
                    unknown.push(shown);
                }
            }
        }
        unknown.sort();
        if let Some(k) = unknown.first() {
            let hint = nearest_name(k, self.known.iter().copied(), 2)
                .map(|c| format!(" (did you mean '{}{c}'?)", self.prefix))
                .unwrap_or_default();
            return Err(DefError::new(
                format!("{}{k}", self.prefix),
                format!("is not a known field{hint}"),
            ));
        }
        Ok(())
    }
}

/// The keys of a creature type table besides its callbacks.
const CREATURE_KEYS: &[&str] = &[
    "name",
    "model",
    "body",
    "legs",
    "arms",
    "gait",
    "lean",
    "nav",
    "physics",
    "climb",
    "behaviour",
    "tail",
    "antennae",
    // Its brain's `on_update` follows the level of detail (see `BRAIN_LOD`).
    "lod",
    // Its own sound files (read by `api::define`'s `load_sounds`).
    "sounds",
];
/// The key of a creature type or behaviour that lets its `on_update` follow the level of
/// detail: `lod = true` runs it on a far creature's turns only, with their time.
pub(crate) const BRAIN_LOD: &str = "lod";
/// Callback keys a creature type or behaviour may carry.
pub(crate) const CALLBACKS: &[&str] = &[
    "on_spawn",
    "on_update",
    "on_arrive",
    "on_step",
    "on_lift",
    "on_hit",
    "on_reload",
    "on_despawn",
    "on_ragdoll",
    "on_recover",
    "on_recover_failed",
    "on_surface",
    "on_link",
];

/// Reads the numbers and curves of `fields` into `into` (left at their values when absent):
/// a plain name from `top`, a dotted `part.key` from that part's reader in `parts`. Whole
/// numbers are read by the caller (a definition's default depends on its legs).
pub(crate) fn read_fields<T>(
    top: &Reader,
    parts: &[(&str, Reader)],
    fields: &[tuning::Field<T>],
    into: &mut T,
) -> Result<(), DefError> {
    for f in fields {
        let (r, key) = match f.name.split_once('.') {
            None => (top, f.name),
            Some((p, k)) => match parts.iter().find(|(q, _)| *q == p) {
                Some((_, r)) => (r, k),
                None => continue,
            },
        };
        match (f.slot)(into) {
            tuning::FieldMut::Num(x) => *x = r.num_or(key, *x)?,
            tuning::FieldMut::Curve(c) => {
                if let Some(v) = r.curve(key)? {
                    *c = v;
                }
            }
            tuning::FieldMut::Count(_) => {}
        }
    }
    Ok(())
}

/// Reads a `creature.define` table. Returns the definition, the default behaviour name and
/// the model.
pub(crate) fn creature_def(
    lua: &mlua::Lua,
    t: Table,
) -> Result<(CreatureDef, Option<String>, Option<model::ModelSpec>), DefError> {
    let keys: Vec<&'static str> = CREATURE_KEYS.iter().chain(CALLBACKS).copied().collect();
    let r = Reader::new(t, "", &keys);
    let name = r
        .string("name")?
        .ok_or_else(|| DefError::new("name", "is required (a string)"))?;
    for cb in CALLBACKS {
        r.function(cb)?;
    }
    r.boolean(BRAIN_LOD)?;
    let behaviour = r.string("behaviour")?;
    let body = body_def(&r, lua)?;
    let legs = match r.table("legs")? {
        Some(lt) => leg_defs(lt)?,
        None => Vec::new(),
    };
    let gait = gait::gait_def(&r, lua)?;
    let lean = lean_def(&r, lua)?;
    let nav = nav_def(&r, lua)?;
    let physics = physics::physics_def(&r, lua)?;
    let climb = climb_def(&r, lua)?;
    let arms = arms::arm_defs(&r)?;
    let model = model::model_spec(&r, lua)?;
    r.finish()?;
    Ok((
        CreatureDef {
            name,
            body,
            legs,
            gait,
            lean,
            nav,
            physics,
            arms,
            climb,
        },
        behaviour,
        model,
    ))
}

/// `body = { size, height, mass, hover, head }`.
fn body_def(r: &Reader, lua: &mlua::Lua) -> Result<BodyDef, DefError> {
    let b = r.sub(
        "body",
        &["size", "height", "mass", "hover", "head", "breathe"],
        lua,
    )?;
    let d = BodyDef::default();
    let size = b.vec("size")?.unwrap_or(d.size);
    let head = match b.table("head")? {
        None => None,
        Some(_) => {
            let h = b.sub("head", &["offset", "size", "counter_yaw", "look"], lua)?;
            // Default: the small sphere drawn at the front when there is no head table.
            let r = size.x.min(size.y) * 0.32;
            let head_size = match h.get_value("size")? {
                Value::Nil => Vec3::splat(2.0 * r),
                v => match (as_number(&v), as_vec3(&v)) {
                    (Some(n), _) => Vec3::splat(n as f32),
                    (_, Some(v)) => v,
                    _ => {
                        return Err(DefError::new(
                            "body.head.size",
                            format!(
                                "must be a number (diameter) or a vector, got {}",
                                type_name(&v)
                            ),
                        ))
                    }
                },
            };
            let head = HeadDef {
                offset: h
                    .vec("offset")?
                    .unwrap_or(Vec3::new(0.0, 0.0, size.z * 0.5 + r * 0.4)),
                size: head_size,
                counter_yaw: h.num_or("counter_yaw", 0.0)?,
                look: look_def(&h, lua)?,
            };
            h.finish()?;
            Some(head)
        }
    };
    let mut body = BodyDef {
        size,
        height: b.num_or("height", d.height)?,
        mass: b.num_or("mass", d.mass)?,
        hover: b.num("hover")?,
        head,
        tail: None,
        antennae: None,
        breathe: match b.table("breathe")? {
            None => None,
            Some(_) => {
                let br = b.sub("breathe", &["rate", "depth"], lua)?;
                let def = crate::locomotion::BreatheDef {
                    rate: br.num_or("rate", 0.25)?,
                    depth: br.num_or("depth", 0.04 * size.y)?,
                };
                br.finish()?;
                Some(def)
            }
        },
    };
    b.finish()?;
    body.tail = appendage::chain_def(r, "tail", ChainDef::tail(&body), lua)?;
    body.antennae = appendage::chain_def(r, "antennae", ChainDef::antennae(&body), lua)?;

    Ok(body)
}

/// `legs = { {name, hip, rest, segments, knee}, ... }`: a plain list only.
fn leg_defs(lt: Table) -> Result<Vec<LegDef>, DefError> {
    let mut legs = Vec::new();
    let n = lt.raw_len();
    // Only a plain list is allowed.
    let mut extra = Vec::new();
    for pair in lt.pairs::<Value, Value>() {
        let (k, _) = pair.map_err(|e| DefError::new("legs", e.to_string()))?;
        let ok = as_number(&k).is_some_and(|i| i >= 1.0 && i <= n as f64 && i.fract() == 0.0);
        if !ok {
            extra.push(k);
        }
    }
    if !extra.is_empty() {
        return Err(DefError::new(
            "legs",
            "must be a list of leg tables ({ {name=..., hip=..., rest=..., segments={...}}, ... })",
        ));
    }
    for i in 1..=n {
        let v: Value = lt
            .raw_get(i)
            .map_err(|e| DefError::new(format!("legs[{i}]"), e.to_string()))?;
        let Value::Table(leg) = v else {
            return Err(DefError::new(
                format!("legs[{i}]"),
                format!("must be a table, got {}", type_name(&v)),
            ));
        };
        let lr = Reader::new(
            leg,
            &format!("legs[{i}]."),
            &["name", "hip", "rest", "segments", "knee", "phase"],
        );
        let name = lr.string("name")?.unwrap_or_else(|| format!("leg{i}"));
        let hip = lr.vec_req("hip")?;
        let rest = lr.vec_req("rest")?;
        let segments = lengths(&lr, "segments")?;
        let knee = lr.vec("knee")?;
        let phase = lr.num("phase")?;
        lr.finish()?;
        legs.push(LegDef {
            name,
            hip,
            rest,
            segments,
            knee,
            phase,
        });
    }
    Ok(legs)
}

/// `lean = { turn = {...}, accel = {...}, vertical = {...}, hit = {...}, ... }` (the fields
/// of [`tuning::LEAN`]).
fn lean_def(r: &Reader, lua: &mlua::Lua) -> Result<LeanDef, DefError> {
    let l = r.sub("lean", &tuning::keys(tuning::LEAN, None), lua)?;
    let subs = tuning::parts(tuning::LEAN)
        .into_iter()
        .map(|p| Ok((p, l.sub(p, &tuning::keys(tuning::LEAN, Some(p)), lua)?)))
        .collect::<Result<Vec<_>, DefError>>()?;
    let mut lean = LeanDef::default();
    read_fields(&l, &subs, tuning::LEAN, &mut lean)?;
    for (_, sub) in subs {
        sub.finish()?;
    }
    l.finish()?;

    Ok(lean)
}

/// `nav = { radius, height, max_slope, step_height, speed, acceleration, turn_rate,
/// stopping_distance, auto_brake, jump, links, heading }`.
fn nav_def(r: &Reader, lua: &mlua::Lua) -> Result<NavDef, DefError> {
    let nv = r.sub(
        "nav",
        &[
            "radius",
            "height",
            "max_slope",
            "step_height",
            "speed",
            "acceleration",
            "turn_rate",
            "stopping_distance",
            "auto_brake",
            "jump",
            "links",
            "heading",
        ],
        lua,
    )?;
    let d = NavDef::default();
    let heading = match nv.string("heading")? {
        None => d.heading,
        Some(h) => crate::locomotion::Heading::from_name(&h).ok_or_else(|| {
            DefError::new(
                "nav.heading",
                format!("must be \"forward\" or \"side\", got \"{h}\""),
            )
        })?,
    };
    let jump = match nv.get_value("jump")? {
        Value::Nil | Value::Boolean(false) => None,
        Value::Boolean(true) => Some(JumpLimits::default()),
        Value::Table(_) => {
            let j = nv.sub("jump", &["gap", "up", "down"], lua)?;
            let dj = JumpLimits::default();
            let limits = JumpLimits {
                gap: j.num_or("gap", dj.gap)?,
                up: j.num_or("up", dj.up)?,
                down: j.num_or("down", dj.down)?,
            };
            j.finish()?;
            Some(limits)
        }
        other => return Err(nv.wrong("jump", "a table or a boolean", &other)),
    };
    let links = match nv.table("links")? {
        None => None,
        Some(t) => {
            let mut kinds = Vec::new();
            for (k, v) in t.sequence_values::<Value>().enumerate() {
                let field = format!("nav.links[{}]", k + 1);
                match v.map_err(|e| DefError::new(&field, e.to_string()))? {
                    Value::String(s) => kinds.push(s.to_string_lossy().to_string()),
                    other => {
                        return Err(DefError::new(
                            field,
                            format!("must be a link kind name, got {}", type_name(&other)),
                        ))
                    }
                }
            }
            Some(kinds)
        }
    };
    let nav = NavDef {
        radius: nv.num_or("radius", d.radius)?,
        height: nv.num_or("height", d.height)?,
        max_slope: nv.num_or("max_slope", d.max_slope)?,
        step_height: nv.num_or("step_height", d.step_height)?,
        speed: nv.num_or("speed", d.speed)?,
        acceleration: nv.num_or("acceleration", d.acceleration)?,
        turn_rate: nv.num_or("turn_rate", d.turn_rate)?,
        stopping_distance: nv.num_or("stopping_distance", d.stopping_distance)?,
        auto_brake: nv.boolean("auto_brake")?.unwrap_or(d.auto_brake),
        jump,
        links,
        heading,
    };
    nv.finish()?;
    Ok(nav)
}

/// `climb = { max_angle, turn_rate, smoothing }` (`climb = true`: every default); absent:
/// a walker.
fn climb_def(r: &Reader, lua: &mlua::Lua) -> Result<Option<ClimbDef>, DefError> {
    match r.get_value("climb")? {
        Value::Nil | Value::Boolean(false) => return Ok(None),
        Value::Boolean(true) => return Ok(Some(ClimbDef::default())),
        Value::Table(_) => {}
        other => return Err(r.wrong("climb", "a table or a boolean", &other)),
    }
    let c = r.sub("climb", &["max_angle", "turn_rate", "smoothing"], lua)?;
    let d = ClimbDef::default();
    let climb = ClimbDef {
        max_angle: c.num_or("max_angle", d.max_angle)?,
        turn_rate: c.num_or("turn_rate", d.turn_rate)?,
        smoothing: c.num_or("smoothing", d.smoothing)?,
    };
    c.finish()?;
    Ok(Some(climb))
}

/// A required list of lengths (`segments = { 0.45, 0.55 }`) under `key`.
pub(crate) fn lengths(r: &Reader, key: &str) -> Result<Vec<f32>, DefError> {
    let field = r.field(key);
    let t = r
        .table(key)?
        .ok_or_else(|| DefError::new(&field, "is required (a list of lengths)"))?;
    let mut out = Vec::new();
    for (k, s) in t.sequence_values::<Value>().enumerate() {
        let s = s.map_err(|e| DefError::new(&field, e.to_string()))?;
        let n = as_number(&s).ok_or_else(|| {
            DefError::new(
                format!("{field}[{}]", k + 1),
                format!("must be a number, got {}", type_name(&s)),
            )
        })?;
        out.push(n as f32);
    }
    Ok(out)
}

/// `body.head.look = { max_yaw =, max_pitch = (degrees), speed = (degrees a second) }`.
fn look_def(h: &Reader, lua: &mlua::Lua) -> Result<crate::locomotion::LookDef, DefError> {
    let d = crate::locomotion::LookDef::default();
    let l = h.sub("look", &["max_yaw", "max_pitch", "speed"], lua)?;
    let deg = |key: &str, default: f32| -> Result<f32, DefError> {
        Ok(l.num(key)?.map_or(default, f32::to_radians))
    };
    let look = crate::locomotion::LookDef {
        max_yaw: deg("max_yaw", d.max_yaw)?,
        max_pitch: deg("max_pitch", d.max_pitch)?,
        speed: deg("speed", d.speed)?,
    };
    l.finish()?;
    Ok(look)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::HeightSource;
    use mlua::Lua;

    /// A Lua table from source (`return { ... }`).
    fn table(lua: &Lua, src: &str) -> Table {
        lua.load(format!("vec3 = vector.create return {src}"))
            .eval()
            .expect("a table")
    }

    fn err(r: Result<impl std::fmt::Debug, DefError>) -> String {
        r.expect_err("an error").to_string()
    }

    #[test]
    fn readers_name_wrong_types_and_unknown_fields_with_a_hint() {
        let lua = Lua::new();
        let r = Reader::new(table(&lua, "{ speed = 'fast' }"), "nav.", &["speed"]);
        assert_eq!(
            err(r.num("speed")),
            "field 'nav.speed' must be a number, got string"
        );
        let r = Reader::new(table(&lua, "{ sped = 1 }"), "nav.", &["speed"]);
        assert_eq!(
            err(r.finish()),
            "field 'nav.sped' is not a known field (did you mean 'nav.speed'?)"
        );
        let r = Reader::new(table(&lua, "{ [1] = 2 }"), "", &["x"]);
        assert_eq!(err(r.finish()), "field '[1]' is not a known field");
    }

    #[test]
    fn curves_come_from_numbers_points_or_curve_values() {
        let lua = Lua::new();
        assert_eq!(
            curve_from_value(&Value::Number(2.0)),
            Ok(Some(Curve::Constant(2.0)))
        );
        assert_eq!(curve_from_value(&Value::Nil), Ok(None));
        let pts = curve_from_value(&Value::Table(table(&lua, "{ {0, 1}, {2, 3} }")))
            .expect("points")
            .expect("a curve");
        assert!((pts.eval(1.0) - 2.0).abs() < 1e-5);
        assert!(curve_from_value(&Value::Number(f64::NAN))
            .expect_err("NaN")
            .to_string()
            .contains("finite"));
        let bad = curve_from_points(&table(&lua, "{ {0, 1}, {'x', 3} }"), false);
        assert_eq!(
            bad.expect_err("not numbers").to_string(),
            "point 2 must be a {x, y} pair of numbers"
        );
    }

    #[test]
    fn a_creature_table_reads_every_section_with_defaults() {
        let lua = Lua::new();
        let t = table(
            &lua,
            "{ name = 'b', behaviour = 'walk', gait = { step_height = 0.2, min_grounded = 1 },
               lean = { turn = { gain = 0.3 }, filter_hz = 4 }, nav = { speed = 2 } }",
        );
        let (def, behaviour, _) = creature_def(&lua, t).expect("reads");
        assert_eq!(behaviour.as_deref(), Some("walk"));
        assert_eq!(def.gait.params.step_height, 0.2);
        assert_eq!(
            def.gait.params.step_trigger,
            crate::locomotion::GaitParams::default().step_trigger
        );
        assert_eq!(def.gait.min_grounded, Some(1.0));
        assert_eq!(def.lean.turn_gain, 0.3);
        assert_eq!(def.lean.turn_max, LeanDef::default().turn_max);
        assert_eq!(def.lean.filter_hz, 4.0);
        assert_eq!(def.nav.speed, 2.0);
        assert_eq!(def.body, BodyDef::default());
        assert!(def.legs.is_empty());
    }

    #[test]
    fn creature_tables_name_the_nested_field() {
        let lua = Lua::new();
        let cases = [
            (
                "{ name = 'b', lean = { turn = { gian = 1 } } }",
                "lean.turn.gian",
            ),
            ("{ name = 'b', gait = { step_arc = 'x' } }", "gait.step_arc"),
            (
                "{ name = 'b', legs = { { hip = vec3(0,0,0) } } }",
                "legs[1].rest",
            ),
            ("{ name = 'b', legs = { x = 1 } }", "legs"),
            (
                "{ name = 'b', body = { head = { size = 'big' } } }",
                "body.head.size",
            ),
            (
                "{ name = 'b', gait = { groups = { { 1 } } } }",
                "gait.groups[1][1]",
            ),
            ("{ body = {} }", "name"),
        ];
        for (src, field) in cases {
            let e = creature_def(&lua, table(&lua, src)).expect_err(src);
            assert_eq!(e.field, field, "{src}: {e}");
        }
    }

    #[test]
    fn level_tables_read_with_defaults_and_refuse_conflicts() {
        let lua = Lua::new();
        let g = ground_desc(table(&lua, "{ noise = { amplitude = 1 } }"), 9).expect("ground");
        assert_eq!(
            g.heights,
            HeightSource::Noise {
                amplitude: 1.0,
                scale: 8.0,
                seed: 9
            }
        );
        assert_eq!((g.width, g.depth), (40.0, 40.0));
        let both = ground_desc(table(&lua, "{ noise = {}, heights = {} }"), 0);
        assert_eq!(
            err(both),
            "field 'noise' cannot be given together with 'heights'"
        );
        let s = stairs_desc(table(&lua, "{ position = vec3(1, 0, 0) }")).expect("stairs");
        assert_eq!((s.steps, s.step_height, s.width), (5, 0.2, 2.0));
        assert_eq!(
            err(stairs_desc(table(
                &lua,
                "{ position = vec3(0,0,0), steps = 2.5 }"
            ))),
            "field 'steps' must be a whole number >= 1, got 2.5"
        );
        assert_eq!(
            err(box_desc(table(&lua, "{ size = vec3(1,1,1) }"))),
            "field 'position' is required (a vector, vec3(x, y, z))"
        );
    }
}
