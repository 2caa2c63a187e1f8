//! Value constructors and the seeded random numbers: `vec3`, `curve{...}`, `curve.linear`,
//! `curve.sine_arc`, `curve.smoothstep`, `math.random`, `math.randomseed`.

use std::cell::Cell;
use std::rc::Rc;

use mlua::{Function, Lua, Table, Value};

use super::context::located;
use crate::math::Curve;
use crate::script::convert::{self, type_name, LuaCurve};

/// `vec3(x, y, z)`: Luau's native vector constructor under the contract's name, taking
/// exactly three numbers (Luau's own would make `vec3(1, 2)` a `vec3(1, 2, 0)` and say
/// `invalid argument #2 to 'create'` for a string): anything else is an error at the
/// script's line that names `vec3` and what it got.
pub(super) fn install_vec3(lua: &Lua, g: &Table) -> mlua::Result<()> {
    let vector: Table = g.raw_get("vector")?;
    let create: Function = vector.raw_get("create")?;
    let checked: Function = lua
        .load(
            r#"
local create, type = ...
return function(x, y, z)
  if type(x) == "number" and type(y) == "number" and type(z) == "number" then
    return create(x, y, z)
  end
  error("vec3(x, y, z) takes three numbers, got (" .. type(x) .. ", " .. type(y) .. ", " .. type(z) .. ")", 2)
end
"#,
        )
        .set_name(format!("={}vec3", super::INTERNAL_CHUNK))
        .call((create, g.raw_get::<Function>("type")?))?;
    g.raw_set("vec3", checked)
}

/// `curve.linear{{x, y}, ...}`.
pub(super) fn curve_linear(lua: &Lua, t: Table) -> mlua::Result<LuaCurve> {
    convert::curve_from_points(&t, true)
        .map(LuaCurve)
        .map_err(|m| located(lua, format!("curve.linear: {m}")))
}

/// `curve.sine_arc()`.
pub(super) fn curve_sine_arc(_: &Lua, (): ()) -> mlua::Result<LuaCurve> {
    Ok(LuaCurve(Curve::SineArc))
}

/// `curve.smoothstep(x0, x1)`.
pub(super) fn curve_smoothstep(lua: &Lua, (a, b): (f64, f64)) -> mlua::Result<LuaCurve> {
    Curve::smoothstep(a as f32, b as f32)
        .map(LuaCurve)
        .map_err(|e| located(lua, format!("curve.smoothstep: {e}")))
}

/// `curve{{x, y}, ...}` (the `curve` table's `__call`): a monotone cubic through the points.
pub(super) fn curve_call(lua: &Lua, (_, t): (Table, Value)) -> mlua::Result<LuaCurve> {
    match t {
        Value::Table(t) => convert::curve_from_points(&t, false)
            .map(LuaCurve)
            .map_err(|m| located(lua, format!("curve: {m}"))),
        other => Err(located(
            lua,
            format!(
                "curve: expects a list of {{x, y}} points, got {}",
                type_name(&other)
            ),
        )),
    }
}

/// The first state of a mod's random numbers: the run seed mixed with the mod name, so two
/// mods of one run draw different streams and a run's streams follow `--seed`.
fn random_state(seed: u64, mod_name: &str) -> u64 {
    let mut h: u64 = seed ^ 0x9e37_79b9_7f4a_7c15;
    for b in mod_name.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    h | 1
}

/// Replaces `math.random` and `math.randomseed` with a deterministic xorshift stream.
pub(super) fn install_random(lua: &Lua, g: &Table, seed: u64, mod_name: &str) -> mlua::Result<()> {
    let rng = Rc::new(Cell::new(random_state(seed, mod_name)));
    let math: Table = g.raw_get("math")?;
    let r = rng.clone();
    math.raw_set(
        "random",
        lua.create_function(move |lua, (m, n): (Option<f64>, Option<f64>)| {
            let mut x = r.get();
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            r.set(x);
            let u = (x >> 11) as f64 / (1u64 << 53) as f64;
            match (m, n) {
                (None, _) => Ok(u),
                (Some(m), None) if m >= 1.0 => Ok((u * m.floor()).floor() + 1.0),
                (Some(m), Some(n)) if n >= m => {
                    Ok(m.floor() + (u * (n.floor() - m.floor() + 1.0)).floor())
                }
                _ => Err(located(lua, "math.random: interval is empty")),
            }
        })?,
    )?;
    math.raw_set(
        "randomseed",
        lua.create_function(move |_, s: f64| {
            rng.set((s.to_bits() ^ 0x2545_f491_4f6c_dd1d) | 1);
            Ok(())
        })?,
    )
}

#[cfg(test)]
mod tests {
    use super::random_state;

    #[test]
    fn random_streams_depend_on_seed_and_mod() {
        assert_eq!(random_state(1, "a"), random_state(1, "a"));
        assert_ne!(random_state(1, "a"), random_state(2, "a"));
        assert_ne!(random_state(1, "a"), random_state(1, "b"));
        assert_eq!(random_state(0, "") & 1, 1, "xorshift state is never zero");
    }
}
