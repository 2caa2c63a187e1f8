//! `creature.define{ model = { file =, texture =, scale =, height =, rotation =, idle =, hide =, bind = { body =,
//! head =, legs = { NAME = { "Bone", … } }, arms = { … } }, springs = { … } } }`: what a type's
//! model is, how its bones bind and how its free chains swing (read here; loaded and bound by
//! `script::api::define`).

use mlua::{Table, Value};

use super::{type_name, Reader};
use crate::locomotion::DefError;
use crate::model::BindSpec;

/// A type's `model` table.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ModelSpec {
    /// The model file, relative to the mod's folder.
    pub file: String,
    /// An image to use as the base colour where the file references none.
    pub texture: Option<String>,
    /// How its bones bind, scale and rotation.
    pub bind: BindSpec,
    /// A clip to loop on the unbound bones.
    pub idle: Option<String>,
    /// Mesh nodes not to draw, by node or mesh name.
    pub hide: Vec<String>,
}

/// Reads `model` (absent: `None`).
pub(crate) fn model_spec(r: &Reader, lua: &mlua::Lua) -> Result<Option<ModelSpec>, DefError> {
    if r.table("model")?.is_none() {
        if let v @ (Value::String(_) | Value::Number(_) | Value::Boolean(_)) =
            r.get_value("model")?
        {
            return Err(DefError::new(
                "model",
                format!(
                    "must be a table ({{ file = \"assets/x.glb\" }}), got {}",
                    type_name(&v)
                ),
            ));
        }
        return Ok(None);
    }
    let m = r.sub(
        "model",
        &[
            "file", "texture", "scale", "height", "rotation", "idle", "bind", "hide", "springs",
            "spine",
        ],
        lua,
    )?;
    let file = m.string("file")?.ok_or_else(|| {
        DefError::new(
            "model.file",
            "is required (a path inside the mod, \"assets/spider.glb\")",
        )
    })?;
    let (scale, height) = size_spec(&m)?;
    let rotation = m.vec("rotation")?;
    if rotation.is_some_and(|v| !v.is_finite()) {
        return Err(DefError::new("model.rotation", "must be finite degrees"));
    }
    let b = m.sub("bind", &["body", "head", "legs", "arms"], lua)?;
    let chains = |key: &str| -> Result<Vec<(String, Vec<String>)>, DefError> {
        let Some(t) = b.table(key)? else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for pair in t.pairs::<Value, Value>() {
            let (k, v) =
                pair.map_err(|e| DefError::new(format!("model.bind.{key}"), e.to_string()))?;
            let Value::String(name) = k else {
                return Err(DefError::new(
                    format!("model.bind.{key}"),
                    "must map limb names to lists of bone names ({ L1 = { \"Upper.L\", \"Lower.L\" } })",
                ));
            };
            let name = name.to_string_lossy();
            let field = format!("model.bind.{key}.{name}");
            let Value::Table(list) = v else {
                return Err(DefError::new(
                    field,
                    format!("must be a list of bone names, got {}", type_name(&v)),
                ));
            };
            out.push((name, name_list(&list, &field, "bone")?));
        }
        out.sort();
        Ok(out)
    };
    let legs = chains("legs")?;
    let arms = chains("arms")?;
    let spec = ModelSpec {
        file,
        texture: m.string("texture")?,
        bind: BindSpec {
            body: b.string("body")?,
            head: b.string("head")?,
            legs,
            arms,
            scale,
            height,
            rotation,
            fly: None,
            springs: springs_spec(&m)?,
            spine: spine_spec(&m, lua)?,
        },
        idle: m.string("idle")?,
        hide: match m.table("hide")? {
            Some(t) => name_list(&t, "model.hide", "mesh node")?,
            None => Vec::new(),
        },
    };
    b.finish()?;
    m.finish()?;
    Ok(Some(spec))
}

/// `model.spine = { weights = { … } }` (pelvis first) or `false` (no spread: the lean stays
/// on the body bone).
fn spine_spec(m: &Reader, lua: &mlua::Lua) -> Result<crate::model::SpineSpec, DefError> {
    match m.get_value("spine")? {
        Value::Nil => return Ok(Default::default()),
        Value::Boolean(false) => {
            return Ok(crate::model::SpineSpec {
                off: true,
                weights: None,
            })
        }
        Value::Table(_) => {}
        other => {
            return Err(DefError::new(
                "model.spine",
                format!(
                    "must be a table ({{ weights = {{ 0.1, 0.2, 0.3, 0.4 }} }}) or false, got {}",
                    type_name(&other)
                ),
            ))
        }
    }
    let t = m.sub("spine", &["weights"], lua)?;
    let weights = match t.table("weights")? {
        None => None,
        Some(list) => {
            let mut w = Vec::new();
            for (i, v) in list.sequence_values::<Value>().enumerate() {
                let v = v.map_err(|e| DefError::new("model.spine.weights", e.to_string()))?;
                match super::as_number(&v) {
                    Some(x) if x.is_finite() && x >= 0.0 => w.push(x as f32),
                    _ => {
                        return Err(DefError::new(
                            format!("model.spine.weights[{}]", i + 1),
                            format!("must be a number >= 0, got {}", type_name(&v)),
                        ))
                    }
                }
            }
            Some(w)
        }
    };
    t.finish()?;
    Ok(crate::model::SpineSpec {
        off: false,
        weights,
    })
}

/// `model.springs = { all = { … }, off = { "Bone", … }, BONE = { stiffness =, damping =,
/// gravity =, drag = }, … }`: every chain's settings, chains stopped, a chain's own settings
/// (by a bone in it: checked when the model is bound).
fn springs_spec(m: &Reader) -> Result<crate::model::SpringSpec, DefError> {
    let mut spec = crate::model::SpringSpec::default();
    let Some(t) = m.table("springs")? else {
        return Ok(spec);
    };
    // `all` first: each chain's own settings go over it.
    if let Some(v) = t.raw_get::<Option<Table>>("all").ok().flatten() {
        spec.all = Some(spring_params(v, "model.springs.all", Default::default())?);
    }
    let base = spec.all.unwrap_or_default();
    for pair in t.pairs::<Value, Value>() {
        let (k, v) = pair.map_err(|e| DefError::new("model.springs", e.to_string()))?;
        let Value::String(name) = k else {
            return Err(DefError::new(
                "model.springs",
                "must map bone names to settings ({ Tail1 = { stiffness = 120 } }), with `all` and `off`",
            ));
        };
        let name = name.to_string_lossy();
        let field = format!("model.springs.{name}");
        match (name.as_str(), v) {
            ("off", Value::Table(list)) => spec.off = name_list(&list, &field, "bone")?,
            ("all", Value::Table(_)) => {}
            (_, Value::Table(settings)) => {
                let params = spring_params(settings, &field, base)?;
                spec.tune.push((name, params));
            }
            (_, other) => {
                return Err(DefError::new(
                    field,
                    format!("must be a table, got {}", type_name(&other)),
                ))
            }
        }
    }
    spec.tune.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(spec)
}

/// One chain's `{ stiffness =, damping =, gravity =, drag = }` over `base`.
fn spring_params(
    t: Table,
    field: &str,
    base: crate::math::SpringParams,
) -> Result<crate::math::SpringParams, DefError> {
    let r = Reader::new(
        t,
        &format!("{field}."),
        &["stiffness", "damping", "gravity", "drag"],
    );
    let p = crate::math::SpringParams {
        stiffness: r.num_or("stiffness", base.stiffness)?,
        damping: r.num_or("damping", base.damping)?,
        gravity: r.num_or("gravity", base.gravity)?,
        drag: r.num_or("drag", base.drag)?,
    };
    check_springs(&p, field)?;
    r.finish()?;
    Ok(p)
}

/// A chain's spring settings in range (`field`: where they were given).
pub(super) fn check_springs(p: &crate::math::SpringParams, field: &str) -> Result<(), DefError> {
    let bad = |key: &str, want: &str, got: f32| {
        DefError::new(
            format!("{field}.{key}"),
            format!("must be {want}, got {got}"),
        )
    };
    if !(p.stiffness > 0.0 && p.stiffness <= 10_000.0) {
        return Err(bad("stiffness", "> 0 and ≤ 10000 (1/s²)", p.stiffness));
    }
    if !(p.damping >= 0.0 && p.damping <= 1_000.0) {
        return Err(bad("damping", "≥ 0 and ≤ 1000 (1/s)", p.damping));
    }
    if !(p.gravity.abs() <= 10.0) {
        return Err(bad(
            "gravity",
            "between -10 and 10 (shares of g)",
            p.gravity,
        ));
    }
    if !(p.drag >= 0.0 && p.drag <= 1_000.0) {
        return Err(bad("drag", "≥ 0 and ≤ 1000 (1/s)", p.drag));
    }
    Ok(())
}

/// `model.scale` (default 1) and `model.height` (a height to fit the model to, instead).
fn size_spec(m: &Reader) -> Result<(f32, Option<f32>), DefError> {
    let scale = m.num_or("scale", 1.0)?;
    if !(scale.is_finite() && scale > 0.0) {
        return Err(DefError::new(
            "model.scale",
            format!("must be > 0, got {scale}"),
        ));
    }
    let height = m.num("height")?;
    if let Some(h) = height {
        if !(h.is_finite() && h > 0.0) {
            return Err(DefError::new(
                "model.height",
                format!("must be > 0 (metres), got {h}"),
            ));
        }
        if m.num("scale")?.is_some() {
            return Err(DefError::new(
                "model.height",
                "fits the model to a height: give it or model.scale, not both",
            ));
        }
    }
    Ok((scale, height))
}

/// A list of names (`what`: "bone", "mesh node"), at least one.
fn name_list(list: &Table, field: &str, what: &str) -> Result<Vec<String>, DefError> {
    let mut out = Vec::new();
    for (i, v) in list.sequence_values::<Value>().enumerate() {
        match v.map_err(|e| DefError::new(field, e.to_string()))? {
            Value::String(s) => out.push(s.to_string_lossy()),
            other => {
                return Err(DefError::new(
                    field,
                    format!(
                        "{what} {} must be a {what} name (a string), got {}",
                        i + 1,
                        type_name(&other)
                    ),
                ))
            }
        }
    }
    if out.is_empty() {
        return Err(DefError::new(field, format!("needs at least one {what}")));
    }
    Ok(out)
}
