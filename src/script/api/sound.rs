//! `sound.play(name, at, opts?)` and `c:play(name, opts?)`: a bundled sound (`step`, `lift`,
//! `thud`) at a point or on a creature, `volume` and `pitch` times its own, for whoever
//! listens (`skitter run --headless --audio-out`). Requests wait for the listener; a mod
//! asking with nothing listening cannot grow the process (the oldest go first).

use mlua::{Lua, Table, Value};

use super::context::{arg_vec, ctx, located};
use super::handle::handle_id;
use crate::audio::SOUNDS;
use crate::script::convert::{as_number, type_name};
use crate::script::shared::{SoundAt, SoundRequest};

/// Sound requests kept for the listener at most.
pub(crate) const MAX_SOUND_REQUESTS: usize = 256;

/// `sound.play(name, at, opts?)`.
pub(super) fn play_at(
    lua: &Lua,
    (name, at, opts): (Value, Value, Option<Value>),
) -> mlua::Result<()> {
    const WHAT: &str = "sound.play";
    let sound = sound_name(lua, WHAT, &name)?;
    let at = arg_vec(lua, "sound.play: at", &at)?;
    let (volume, pitch) = options(lua, WHAT, opts)?;
    push(
        lua,
        SoundRequest {
            sound,
            at: SoundAt::Point(at),
            volume,
            pitch,
        },
    )
}

/// `c:play(name, opts?)`.
pub(super) fn play_on(
    lua: &Lua,
    (this, name, opts): (Table, Value, Option<Value>),
) -> mlua::Result<()> {
    const WHAT: &str = "c:play";
    let id = handle_id(lua, &this)?;
    let sound = sound_name(lua, WHAT, &name)?;
    let (volume, pitch) = options(lua, WHAT, opts)?;
    push(
        lua,
        SoundRequest {
            sound,
            at: SoundAt::Creature(id),
            volume,
            pitch,
        },
    )
}

fn sound_name(lua: &Lua, what: &str, v: &Value) -> mlua::Result<usize> {
    let Value::String(s) = v else {
        return Err(located(
            lua,
            format!("{what}: name must be a string, got {}", type_name(v)),
        ));
    };
    let name = s.to_string_lossy();
    SOUNDS.iter().position(|n| *n == name).ok_or_else(|| {
        located(
            lua,
            format!(
                "{what}: unknown sound \"{name}\" (one of {})",
                SOUNDS.join(", ")
            ),
        )
    })
}

/// `{ volume = 1, pitch = 1 }`: volume 0..8, pitch 0.25..4.
fn options(lua: &Lua, what: &str, opts: Option<Value>) -> mlua::Result<(f32, f32)> {
    let t = match opts {
        None | Some(Value::Nil) => return Ok((1.0, 1.0)),
        Some(Value::Table(t)) => t,
        Some(v) => {
            return Err(located(
                lua,
                format!("{what}: opts must be a table, got {}", type_name(&v)),
            ))
        }
    };
    let mut out = [1.0f32, 1.0];
    for (i, (key, lo, hi)) in [("volume", 0.0, 8.0), ("pitch", 0.25, 4.0)]
        .into_iter()
        .enumerate()
    {
        let v: Value = t.raw_get(key)?;
        if v.is_nil() {
            continue;
        }
        match as_number(&v) {
            Some(x) if x.is_finite() && (lo..=hi).contains(&x) => out[i] = x as f32,
            _ => {
                return Err(located(
                    lua,
                    format!(
                        "{what}: field '{key}' must be a number from {lo} to {hi}, got {}",
                        describe(&v)
                    ),
                ))
            }
        }
    }
    for pair in t.pairs::<Value, Value>() {
        let (k, _) = pair?;
        let known =
            matches!(&k, Value::String(s) if ["volume", "pitch"].contains(&&*s.to_string_lossy()));
        if !known {
            return Err(located(
                lua,
                format!("{what}: unknown field {} (volume, pitch)", describe(&k)),
            ));
        }
    }
    Ok((out[0], out[1]))
}

fn describe(v: &Value) -> String {
    match v {
        Value::String(s) => format!("'{}'", s.to_string_lossy()),
        Value::Integer(i) => i.to_string(),
        Value::Number(n) => n.to_string(),
        other => type_name(other).to_string(),
    }
}

fn push(lua: &Lua, r: SoundRequest) -> mlua::Result<()> {
    let c = ctx(lua)?;
    let mut sh = c.shared.borrow_mut();
    if sh.sounds.len() >= MAX_SOUND_REQUESTS {
        sh.sounds.pop_front();
    }
    sh.sounds.push_back(r);
    Ok(())
}
