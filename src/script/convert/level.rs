//! The level a script builds: `world.ground`, `world.box` and `world.stairs` tables read
//! into the sim's descriptions.

use glam::Vec3;
use mlua::{Table, Value};

use super::{as_number, type_name, Reader};
use crate::locomotion::DefError;
use crate::sim::{BoxDesc, GroundDesc, HeightSource, StairsDesc};

/// Reads a `world.ground` table; `default_seed` is used when noise has no seed.
pub(crate) fn ground_desc(t: Table, default_seed: u32) -> Result<GroundDesc, DefError> {
    let r = Reader::new(
        t,
        "",
        &["size", "heights", "noise", "position", "name", "surface"],
    );
    let size = r.vec("size")?.unwrap_or(Vec3::new(40.0, 0.0, 40.0));
    let position = r.vec("position")?.unwrap_or(Vec3::ZERO);
    let heights = match (r.table("heights")?, r.table("noise")?) {
        (Some(_), Some(_)) => {
            return Err(DefError::new(
                "noise",
                "cannot be given together with 'heights'",
            ))
        }
        (Some(h), None) => {
            let mut rows = Vec::new();
            for (i, row) in h.sequence_values::<Value>().enumerate() {
                let row = row.map_err(|e| DefError::new("heights", e.to_string()))?;
                let Value::Table(row) = row else {
                    return Err(DefError::new(
                        format!("heights[{}]", i + 1),
                        format!("must be a list of numbers, got {}", type_name(&row)),
                    ));
                };
                let mut out = Vec::new();
                for (j, v) in row.sequence_values::<Value>().enumerate() {
                    let v = v.map_err(|e| DefError::new("heights", e.to_string()))?;
                    let n = as_number(&v).ok_or_else(|| {
                        DefError::new(
                            format!("heights[{}][{}]", i + 1, j + 1),
                            format!("must be a number, got {}", type_name(&v)),
                        )
                    })?;
                    out.push(n as f32);
                }
                rows.push(out);
            }
            HeightSource::Grid(rows)
        }
        (None, Some(n)) => {
            let nr = Reader::new(n, "noise.", &["amplitude", "scale", "seed"]);
            let src = HeightSource::Noise {
                amplitude: nr.num_or("amplitude", 0.5)?,
                scale: nr.num_or("scale", 8.0)?,
                seed: nr
                    .num("seed")?
                    .map(|s| s as i64 as u32)
                    .unwrap_or(default_seed),
            };
            nr.finish()?;
            src
        }
        (None, None) => HeightSource::Flat,
    };
    let tag = piece_tag(&r)?;
    r.finish()?;
    Ok(GroundDesc {
        tag,
        position,
        width: size.x,
        depth: size.z,
        heights,
    })
}

/// Reads a `world.box` table.
pub(crate) fn box_desc(t: Table) -> Result<BoxDesc, DefError> {
    let r = Reader::new(t, "", &["position", "size", "rotation", "name", "surface"]);
    let b = BoxDesc {
        tag: piece_tag(&r)?,
        position: r.vec_req("position")?,
        size: r.vec_req("size")?,
        rotation: r.vec("rotation")?.unwrap_or(Vec3::ZERO),
    };
    r.finish()?;
    Ok(b)
}

/// Reads a `world.stairs` table.
pub(crate) fn stairs_desc(t: Table) -> Result<StairsDesc, DefError> {
    let r = Reader::new(
        t,
        "",
        &[
            "position",
            "yaw",
            "steps",
            "step_height",
            "step_depth",
            "width",
            "name",
            "surface",
        ],
    );
    let steps = r.num_or("steps", 5.0)?;
    if !(steps >= 1.0 && steps.fract() == 0.0) {
        return Err(DefError::new(
            "steps",
            format!("must be a whole number >= 1, got {steps}"),
        ));
    }
    let s = StairsDesc {
        tag: piece_tag(&r)?,
        position: r.vec_req("position")?,
        yaw: r.num_or("yaw", 0.0)?,
        steps: steps as u32,
        step_height: r.num_or("step_height", 0.2)?,
        step_depth: r.num_or("step_depth", 0.4)?,
        width: r.num_or("width", 2.0)?,
    };
    r.finish()?;
    Ok(s)
}

/// A piece's `name = "…"` and `surface = "…"` (each a word of up to 64 characters).
fn piece_tag(r: &Reader) -> Result<crate::sim::PieceTag, DefError> {
    let word = |k: &str| -> Result<Option<String>, DefError> {
        match r.string(k)? {
            Some(s) if s.is_empty() || s.len() > 64 => Err(DefError::new(
                k,
                format!("must be 1 to 64 characters, got {}", s.len()),
            )),
            other => Ok(other),
        }
    };
    Ok(crate::sim::PieceTag {
        name: word("name")?,
        surface: word("surface")?,
    })
}
