//! `creature.define{ physics = { … } }`: the active ragdoll section (see
//! `locomotion::physics` for the meaning and defaults of every field).

use mlua::{Table, Value};

use super::{as_number, type_name, Reader};
use crate::locomotion::{DefError, JointOverride, PhysicsDef};

const KEYS: &[&str] = &[
    "stiffness",
    "damping",
    "max_torque",
    "joints",
    "limits",
    "hit_threshold",
    "hit_impulse",
    "getup_delay",
    "recovery_time",
    "recovery_tries",
    "limp_strength",
    "friction",
    "balance",
];
const MUSCLE_KEYS: &[&str] = &["stiffness", "damping", "max_torque"];

/// Reads `physics` from a creature table (absent: the defaults).
pub(crate) fn physics_def(r: &Reader, lua: &mlua::Lua) -> Result<PhysicsDef, DefError> {
    let p = r.sub("physics", KEYS, lua)?;
    let d = PhysicsDef::default();
    let tries = p.num("recovery_tries")?;
    let mut def = PhysicsDef {
        stiffness: p.num("stiffness")?,
        damping: p.num("damping")?,
        max_torque: p.num("max_torque")?,
        joints: Vec::new(),
        hit_threshold: p.num_or("hit_threshold", d.hit_threshold)?,
        hit_impulse: p.num("hit_impulse")?,
        getup_delay: p.num_or("getup_delay", d.getup_delay)?,
        recovery_time: p.num_or("recovery_time", d.recovery_time)?,
        recovery_tries: match tries {
            None => d.recovery_tries,
            Some(n) if n.fract() == 0.0 && (0.0..=1e6).contains(&n) => n as u32,
            Some(n) => {
                return Err(DefError::new(
                    "physics.recovery_tries",
                    format!("must be a whole number >= 0, got {n}"),
                ))
            }
        },
        limp_strength: p.num_or("limp_strength", d.limp_strength)?,
        friction: p.num_or("friction", d.friction)?,
        balance: p.num("balance")?,
        ..d
    };
    let limits = p.sub("limits", &["hip", "twist", "knee"], lua)?;
    def.hip_swing = limits.num_or("hip", def.hip_swing)?;
    def.hip_twist = limits.num_or("twist", def.hip_twist)?;
    match limits.get_value("knee")? {
        Value::Nil => {}
        Value::Table(t) => def.knee = pair(&t)?,
        v => {
            return Err(DefError::new(
                "physics.limits.knee",
                format!("must be {{min, max}} in degrees, got {}", type_name(&v)),
            ))
        }
    }
    limits.finish()?;
    if let Some(t) = p.table("joints")? {
        def.joints = joint_overrides(t)?;
    }
    p.finish()?;
    Ok(def)
}

fn pair(t: &Table) -> Result<[f32; 2], DefError> {
    let get = |i: usize| -> Result<f32, DefError> {
        let v: Value = t
            .raw_get(i)
            .map_err(|e| DefError::new("physics.limits.knee", e.to_string()))?;
        as_number(&v).map(|n| n as f32).ok_or_else(|| {
            DefError::new(
                format!("physics.limits.knee[{i}]"),
                format!("must be a number (degrees), got {}", type_name(&v)),
            )
        })
    };
    if t.raw_len() != 2 {
        return Err(DefError::new(
            "physics.limits.knee",
            "must be {min, max} in degrees",
        ));
    }
    Ok([get(1)?, get(2)?])
}

/// `joints = { hip = { … }, ["L1.knee"] = { … } }`, in key order (deterministic).
fn joint_overrides(t: Table) -> Result<Vec<JointOverride>, DefError> {
    let mut keys = Vec::new();
    for pair in t.clone().pairs::<Value, Value>() {
        let (k, _) = pair.map_err(|e| DefError::new("physics.joints", e.to_string()))?;
        match k {
            Value::String(s) => keys.push(s.to_string_lossy()),
            other => {
                return Err(DefError::new(
                    "physics.joints",
                    format!(
                        "keys must be joint names ('hip', 'knee', 'L1.knee'), got {}",
                        type_name(&other)
                    ),
                ))
            }
        }
    }
    keys.sort();
    let mut out = Vec::with_capacity(keys.len());
    for key in keys {
        let field = format!("physics.joints.{key}");
        let v: Value = t
            .raw_get(key.as_str())
            .map_err(|e| DefError::new(&field, e.to_string()))?;
        let Value::Table(jt) = v else {
            return Err(DefError::new(
                field,
                format!(
                    "must be a table {{ stiffness =, damping =, max_torque = }}, got {}",
                    type_name(&v)
                ),
            ));
        };
        let r = Reader::new(jt, &format!("{field}."), MUSCLE_KEYS);
        out.push(JointOverride {
            key: key.clone(),
            stiffness: r.num("stiffness")?,
            damping: r.num("damping")?,
            max_torque: r.num("max_torque")?,
        });
        r.finish()?;
    }
    Ok(out)
}
