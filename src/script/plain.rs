//! Plain data copied between Lua states (spawn params, kept state): numbers, strings,
//! vectors and tables, and the API's own values — paths, curves, creature handles — which
//! are rebuilt in the state they cross into. Functions, threads and foreign userdata cannot
//! cross: what is left out is named.

use glam::Vec3;
#[cfg(test)]
use mlua::Table;
use mlua::{Lua, Value};

use super::convert::{as_number, as_vec3, to_vector, LuaCurve};
use crate::math::Curve;
use crate::sim::CreatureId;

/// Deepest table nesting copied.
const MAX_DEPTH: usize = 32;
/// Most values copied from one root (shared sub-tables are copied each time they appear).
const MAX_VALUES: usize = 200_000;

/// What a copy left out, by path (`state.brain.f`), with why.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Dropped {
    /// `path: reason` for each value left out (the first 8 are listed).
    pub items: Vec<String>,
    /// How many values were left out in all.
    pub count: usize,
    values: usize,
}

impl Dropped {
    fn drop(&mut self, path: &dyn Fn() -> String, why: &str) {
        self.count += 1;
        if self.items.len() < 8 {
            self.items.push(format!("{} ({why})", path()));
        }
    }
}

/// A Lua value as plain Rust data.
#[derive(Clone, Debug, PartialEq, Default)]
pub(super) enum Plain {
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
    /// A path (`path.bezier{...}`).
    Path(crate::script::api::LuaPath),
    /// A curve.
    Curve(Curve),
    /// A creature handle: its id and type.
    Creature(CreatureId, String),
    /// A filter read by `world.near_filter`.
    NearFilter(crate::script::api::LuaNearFilter),
}

impl Plain {
    /// Copies a Lua value. Functions, userdata and threads become nil; cycles, tables deeper
    /// than 32 levels and values past the 200 000th are cut.
    pub(super) fn from_lua(v: &Value) -> Plain {
        Self::from_lua_report(v, "value", &mut Dropped::default())
    }

    /// Copies a Lua value, noting in `dropped` what was left out (paths start at `root`).
    pub(super) fn from_lua_report(v: &Value, root: &str, dropped: &mut Dropped) -> Plain {
        let mut stack = Vec::new();
        Self::copy(v, &|| root.to_string(), &mut stack, dropped)
    }

    fn copy(
        v: &Value,
        path: &dyn Fn() -> String,
        stack: &mut Vec<*const std::ffi::c_void>,
        dropped: &mut Dropped,
    ) -> Plain {
        dropped.values += 1;
        if dropped.values > MAX_VALUES {
            dropped.drop(path, "too much data");
            return Plain::Nil;
        }
        match v {
            Value::Nil => Plain::Nil,
            Value::Boolean(b) => Plain::Bool(*b),
            Value::String(s) => Plain::Str(s.to_string_lossy()),
            Value::Table(t) if is_handle(t) => {
                let id = t.raw_get::<Value>("id").ok().and_then(|v| as_number(&v));
                let ty = t.raw_get::<String>("type").unwrap_or_default();
                match id {
                    Some(id) => Plain::Creature(CreatureId(id as u32), ty),
                    None => Plain::Nil,
                }
            }
            Value::UserData(ud) => {
                if let Ok(p) = ud.borrow::<crate::script::api::LuaPath>() {
                    Plain::Path(p.clone())
                } else if let Ok(c) = ud.borrow::<LuaCurve>() {
                    Plain::Curve(c.0.clone())
                } else if let Ok(f) = ud.borrow::<crate::script::api::LuaNearFilter>() {
                    Plain::NearFilter(f.clone())
                } else {
                    dropped.drop(path, "userdata");
                    Plain::Nil
                }
            }
            Value::Table(t) => {
                let ptr = t.to_pointer();
                if stack.contains(&ptr) {
                    dropped.drop(path, "a cycle");
                    return Plain::Nil;
                }
                if stack.len() >= MAX_DEPTH {
                    dropped.drop(path, "nested too deep");
                    return Plain::Nil;
                }
                stack.push(ptr);
                let mut out = Vec::new();
                for (k, v) in t.pairs::<Value, Value>().flatten() {
                    let key = Self::copy(&k, path, stack, dropped);
                    if key == Plain::Nil {
                        continue;
                    }
                    let sub = || format!("{}.{}", path(), key_text(&key));
                    let val = Self::copy(&v, &sub, stack, dropped);
                    if val != Plain::Nil {
                        out.push((key, val));
                    }
                }
                stack.pop();
                Plain::Table(out)
            }
            _ => {
                if let Some(n) = as_number(v) {
                    Plain::Num(n)
                } else if let Some(p) = as_vec3(v) {
                    Plain::Vec(p)
                } else {
                    dropped.drop(path, v.type_name());
                    Plain::Nil
                }
            }
        }
    }

    /// Sets a table's pairs into `t` (anything else writes nothing): params over defaults,
    /// without building an intermediate table.
    pub(super) fn write_into(&self, lua: &Lua, t: &mlua::Table) -> mlua::Result<()> {
        if let Plain::Table(pairs) = self {
            for (k, v) in pairs {
                t.raw_set(k.to_lua(lua)?, v.to_lua(lua)?)?;
            }
        }
        Ok(())
    }

    /// Builds the value in `lua`.
    pub(super) fn to_lua(&self, lua: &Lua) -> mlua::Result<Value> {
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
            Plain::Path(p) => Value::UserData(lua.create_userdata(p.clone())?),
            Plain::Curve(c) => Value::UserData(lua.create_userdata(LuaCurve(c.clone()))?),
            Plain::Creature(id, ty) => Value::Table(crate::script::api::handle(lua, *id, ty)?),
            Plain::NearFilter(f) => Value::UserData(lua.create_userdata(f.clone())?),
        })
    }
}

/// Whether `t` is a creature handle (its metatable is the one handles share).
fn is_handle(t: &mlua::Table) -> bool {
    t.metatable()
        .and_then(|mt| mt.raw_get::<String>("__metatable").ok())
        .is_some_and(|m| m == "creature")
}

fn key_text(k: &Plain) -> String {
    match k {
        Plain::Str(s) => s.clone(),
        Plain::Num(n) => format!("[{n}]"),
        Plain::Bool(b) => format!("[{b}]"),
        _ => "[?]".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_plain_data_and_names_what_it_drops() {
        let lua = Lua::new();
        let v: Value = lua
            .load(
                r#"
local t = { n = 3, s = "x", list = { 1, 2 }, f = print, nested = { g = function() end } }
t.me = t
return t
"#,
            )
            .eval()
            .expect("eval");
        let mut d = Dropped::default();
        let p = Plain::from_lua_report(&v, "state", &mut d);
        assert_eq!(d.count, 3, "{:?}", d.items);
        let text = d.items.join("; ");
        for want in [
            "state.f (function)",
            "state.nested.g (function)",
            "state.me (a cycle)",
        ] {
            assert!(text.contains(want), "{want} in {text}");
        }
        let back = p.to_lua(&lua).expect("to lua");
        let Value::Table(t) = back else {
            panic!("a table")
        };
        assert_eq!(t.raw_get::<f64>("n").expect("n"), 3.0);
        assert_eq!(t.raw_get::<Table>("list").expect("list").raw_len(), 2);
        // Shared sub-tables do not blow up: 2^40 paths are cut at the value cap.
        let bomb: Value = lua
            .load("local t = {} for i = 1, 40 do t = { a = t, b = t } end return t")
            .eval()
            .expect("eval");
        let mut d = Dropped::default();
        Plain::from_lua_report(&bomb, "state", &mut d);
        assert!(d.values > MAX_VALUES && d.count > 8, "cut at the value cap");
    }

    #[test]
    fn a_filter_read_by_near_filter_crosses_into_another_state_as_itself() {
        use crate::script::api::LuaNearFilter;
        let f = LuaNearFilter {
            filter: crate::sim::NearFilter {
                not_team: Some(1),
                animated: true,
                limit: Some(1),
                exclude: Some(CreatureId(7)),
                ..Default::default()
            },
            type_name: Some("brawl/soldier".into()),
        };
        let (a, b) = (Lua::new(), Lua::new());
        let t = a.create_table().expect("table");
        t.raw_set("foes", a.create_userdata(f.clone()).expect("ud"))
            .expect("set");
        let mut d = Dropped::default();
        let p = Plain::from_lua_report(&Value::Table(t), "state", &mut d);
        assert_eq!(d.count, 0, "{:?}", d.items);
        let Value::Table(back) = p.to_lua(&b).expect("to lua") else {
            panic!("a table")
        };
        let ud = back
            .raw_get::<mlua::AnyUserData>("foes")
            .expect("a userdata");
        assert_eq!(*ud.borrow::<LuaNearFilter>().expect("a filter"), f);
    }
}
