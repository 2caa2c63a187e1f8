//! `tail = { segments =, length =, radius =, rise = (degrees), stiffness =, damping =,
//! gravity =, drag = }` and `antennae = { …, spread = (degrees) }` of a creature type: read
//! over the defaults its body gives (checked by `ValidCreatureDef`); `true` for all defaults.

use mlua::Value;

use super::{type_name, Reader};
use crate::locomotion::{ChainDef, DefError};

const KEYS: &[&str] = &[
    "segments",
    "length",
    "radius",
    "rise",
    "spread",
    "stiffness",
    "damping",
    "gravity",
    "drag",
];

/// The creature table's `key` over `d` (absent or false: none).
pub(super) fn chain_def(
    r: &Reader,
    key: &str,
    d: ChainDef,
    lua: &mlua::Lua,
) -> Result<Option<ChainDef>, DefError> {
    match r.get_value(key)? {
        Value::Nil | Value::Boolean(false) => return Ok(None),
        Value::Boolean(true) => return Ok(Some(d)),
        Value::Table(_) => {}
        other => {
            return Err(DefError::new(
                key,
                format!(
                    "must be a table ({{ segments = 4, length = 0.5 }}) or true, got {}",
                    type_name(&other)
                ),
            ))
        }
    }
    let t = r.sub(key, KEYS, lua)?;
    let segments = match t.num("segments")? {
        None => d.segments,
        Some(n) if n.fract() == 0.0 && (1.0..=12.0).contains(&n) => n as u32,
        Some(n) => {
            return Err(DefError::new(
                format!("{key}.segments"),
                format!("must be a whole number from 1 to 12, got {n}"),
            ))
        }
    };
    let deg =
        |k: &str, v: f32| -> Result<f32, DefError> { Ok(t.num(k)?.map_or(v, f32::to_radians)) };
    let c = ChainDef {
        segments,
        length: t.num_or("length", d.length)?,
        radius: t.num_or("radius", d.radius)?,
        rise: deg("rise", d.rise)?,
        spread: deg("spread", d.spread)?,
        springs: crate::math::SpringParams {
            stiffness: t.num_or("stiffness", d.springs.stiffness)?,
            damping: t.num_or("damping", d.springs.damping)?,
            gravity: t.num_or("gravity", d.springs.gravity)?,
            drag: t.num_or("drag", d.springs.drag)?,
        },
    };
    super::model::check_springs(&c.springs, key)?;
    t.finish()?;
    Ok(Some(c))
}
