//! `creature.define{ model = { file =, texture =, scale =, height =, rotation =, idle =, hide =, bind = { body =,
//! head =, legs = { NAME = { "Bone", … } }, arms = { … } } } }`: what a type's model is and how
//! its bones bind (read here; loaded and bound by `script::api::define`).

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
            "file", "texture", "scale", "height", "rotation", "idle", "bind", "hide",
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
