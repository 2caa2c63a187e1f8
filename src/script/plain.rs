//! Plain data copied between Lua states (spawn params, kept state): no functions, no userdata.

use glam::Vec3;
use mlua::{Lua, Value};

use super::convert::{as_number, as_vec3, to_vector};

/// Deepest table nesting copied.
const MAX_DEPTH: usize = 32;

/// A Lua value as plain Rust data.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Plain {
    /// nil (also what functions and userdata become).
    #[default]
    Nil,
    /// boolean.
    Bool(bool),
    /// number.
    Num(f64),
    /// string.
    Str(String),
    /// vector.
    Vec(Vec3),
    /// table, as key/value pairs.
    Table(Vec<(Plain, Plain)>),
}

impl Plain {
    /// Copies a Lua value. Functions, userdata and threads become nil; tables deeper than 32 levels are cut.
    pub fn from_lua(v: &Value) -> Plain {
        Self::from_lua_depth(v, 0)
    }

    fn from_lua_depth(v: &Value, depth: usize) -> Plain {
        match v {
            Value::Boolean(b) => Plain::Bool(*b),
            Value::String(s) => Plain::Str(s.to_string_lossy()),
            Value::Table(t) if depth < MAX_DEPTH => {
                let mut out = Vec::new();
                for (k, v) in t.pairs::<Value, Value>().flatten() {
                    let k = Self::from_lua_depth(&k, depth + 1);
                    if k != Plain::Nil {
                        out.push((k, Self::from_lua_depth(&v, depth + 1)));
                    }
                }
                Plain::Table(out)
            }
            _ => {
                if let Some(n) = as_number(v) {
                    Plain::Num(n)
                } else if let Some(p) = as_vec3(v) {
                    Plain::Vec(p)
                } else {
                    Plain::Nil
                }
            }
        }
    }

    /// Builds the value in `lua`.
    pub fn to_lua(&self, lua: &Lua) -> mlua::Result<Value> {
        Ok(match self {
            Plain::Nil => Value::Nil,
            Plain::Bool(b) => Value::Boolean(*b),
            Plain::Num(n) => Value::Number(*n),
            Plain::Str(s) => Value::String(lua.create_string(s)?),
            Plain::Vec(v) => Value::Vector(to_vector(*v)),
            Plain::Table(pairs) => {
                let t = lua.create_table()?;
                for (k, v) in pairs {
                    t.raw_set(k.to_lua(lua)?, v.to_lua(lua)?)?;
                }
                Value::Table(t)
            }
        })
    }
}
