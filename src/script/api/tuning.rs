//! `c.gait` and `c.lean`: live views of one creature's tunable fields. Reading gives the
//! value the creature will have next tick; assigning checks the field and the whole table
//! and queues the change. Both walk the field tables of `locomotion::tuning`.

use mlua::{Lua, UserData, UserDataMethods, Value};

use super::context::{ctx, gone, located};
use crate::locomotion::tuning::{self, Field, FieldMut, FieldValue};
use crate::locomotion::{DefError, GaitParams, LeanDef};
use crate::script::convert::{self, as_number, type_name, LuaCurve};
use crate::sim::{Command, CreatureId, World};

/// A table of tunable fields a creature carries.
pub(crate) trait Tunable: Clone + Sized + 'static {
    /// Its name on the handle (`gait`).
    const TABLE: &'static str;
    /// Its fields.
    const FIELDS: &'static [Field<Self>];
    /// Said after the field list when a name is unknown.
    const NOTE: &'static str = "";
    /// The value creature `id` will have at the next tick.
    fn pending(w: &World, id: CreatureId) -> Option<Self>;
    /// Checks the whole table for creature `id`.
    fn validate(&self, w: &World, id: CreatureId) -> Result<(), DefError>;
    /// The command that sets it.
    fn command(id: CreatureId, v: Self) -> Command;
    /// A read-only field beside the tunable ones (`c.gait.groups`).
    fn read_only(
        _lua: &Lua,
        _w: &World,
        _id: CreatureId,
        _key: &str,
    ) -> Option<mlua::Result<Value>> {
        None
    }
}

impl Tunable for GaitParams {
    const TABLE: &'static str = "gait";
    const FIELDS: &'static [Field<Self>] = tuning::GAIT;
    const NOTE: &'static str = "; groups are fixed by the type";
    fn pending(w: &World, id: CreatureId) -> Option<Self> {
        w.pending_gait(id).cloned()
    }
    fn validate(&self, w: &World, id: CreatureId) -> Result<(), DefError> {
        let legs = w.creature(id).map(|c| c.def.legs.len()).unwrap_or(0);
        GaitParams::validate(self, legs)
    }
    fn command(id: CreatureId, v: Self) -> Command {
        Command::SetGait(id, Box::new(v))
    }
    /// `c.gait.groups`: the type's gait groups, as lists of leg names.
    fn read_only(lua: &Lua, w: &World, id: CreatureId, key: &str) -> Option<mlua::Result<Value>> {
        if key != "groups" {
            return None;
        }
        let def = &w.creature(id)?.def;
        let groups = (0..def.group_count).map(|g| {
            def.legs
                .iter()
                .filter(|l| l.group == g)
                .map(|l| l.name.clone())
                .collect::<Vec<_>>()
        });
        Some(lua.create_sequence_from(groups).map(Value::Table))
    }
}

impl Tunable for LeanDef {
    const TABLE: &'static str = "lean";
    const FIELDS: &'static [Field<Self>] = tuning::LEAN;
    fn pending(w: &World, id: CreatureId) -> Option<Self> {
        w.pending_lean(id).cloned()
    }
    fn validate(&self, _: &World, _: CreatureId) -> Result<(), DefError> {
        LeanDef::validate(self)
    }
    fn command(id: CreatureId, v: Self) -> Command {
        Command::SetLean(id, Box::new(v))
    }
}

/// `c.gait`, `c.lean` and its parts (`c.lean.turn`): creature, and the part when nested.
pub(crate) struct Proxy<T>(
    pub CreatureId,
    pub Option<&'static str>,
    std::marker::PhantomData<T>,
);

/// `c.gait`.
pub(crate) type GaitProxy = Proxy<GaitParams>;
/// `c.lean`.
pub(crate) type LeanProxy = Proxy<LeanDef>;

impl<T: Tunable> Proxy<T> {
    /// The view of creature `id`'s table (`part` None) or of one part of it.
    pub(crate) fn new(id: CreatureId, part: Option<&'static str>) -> Self {
        Proxy(id, part, std::marker::PhantomData)
    }

    /// `gait.step_height`, `lean.turn.gain`: the name used in errors.
    fn path(&self, key: &str) -> String {
        match self.1 {
            Some(p) => format!("{}.{p}.{key}", T::TABLE),
            None => format!("{}.{key}", T::TABLE),
        }
    }

    /// The name of `key` in the field table (`turn.gain`).
    fn name(&self, key: &str) -> String {
        match self.1 {
            Some(p) => format!("{p}.{key}"),
            None => key.to_string(),
        }
    }

    /// A sub-table name at the top level.
    fn part(&self, key: &str) -> Option<&'static str> {
        if self.1.is_some() {
            return None;
        }
        tuning::parts(T::FIELDS).into_iter().find(|p| *p == key)
    }

    fn no_field(&self, lua: &Lua, key: &str) -> mlua::Error {
        let here = match self.1 {
            Some(p) => format!("{}.{p}", T::TABLE),
            None => T::TABLE.to_string(),
        };
        located(
            lua,
            format!(
                "c.{here} has no field '{key}' (fields: {}{})",
                tuning::keys(T::FIELDS, self.1).join(", "),
                T::NOTE
            ),
        )
    }

    fn current(&self, lua: &Lua) -> mlua::Result<T> {
        let c = ctx(lua)?;
        let w = c.world.borrow();
        T::pending(&w, self.0).ok_or_else(|| gone(lua, self.0))
    }

    fn get(&self, lua: &Lua, key: String) -> mlua::Result<Value> {
        let v = self.current(lua)?;
        if self.1.is_none() {
            let c = ctx(lua)?;
            let w = c.world.borrow();
            if let Some(r) = T::read_only(lua, &w, self.0, &key) {
                return r;
            }
        }
        if let Some(p) = self.part(&key) {
            return Ok(Value::UserData(
                lua.create_userdata(Self::new(self.0, Some(p)))?,
            ));
        }
        let f =
            tuning::find(T::FIELDS, &self.name(&key)).ok_or_else(|| self.no_field(lua, &key))?;
        Ok(match (f.get)(&v) {
            FieldValue::Num(x) => Value::Number(script_number(x)),
            FieldValue::Count(n) => Value::Number(n as f64),
            FieldValue::Curve(c) => Value::UserData(lua.create_userdata(LuaCurve(c))?),
        })
    }

    /// Writes `value` into `v` (not yet validated as a whole).
    fn assign(&self, lua: &Lua, v: &mut T, key: &str, value: &Value) -> mlua::Result<()> {
        let field = self.path(key);
        if let Some(p) = self.part(key) {
            // `c.lean.turn = { gain = 0.2 }`: assign each field of the table.
            let Value::Table(t) = value else {
                return Err(located(
                    lua,
                    format!("field '{field}' must be a table, got {}", type_name(value)),
                ));
            };
            let sub = Self::new(self.0, Some(p));
            for pair in t.pairs::<Value, Value>() {
                let (k, x) = pair?;
                let Value::String(k) = k else {
                    return Err(located(
                        lua,
                        format!("field '{field}' has a non-string key"),
                    ));
                };
                sub.assign(lua, v, &k.to_string_lossy(), &x)?;
            }
            return Ok(());
        }
        let f = tuning::find(T::FIELDS, &self.name(key)).ok_or_else(|| self.no_field(lua, key))?;
        let number = || {
            as_number(value).ok_or_else(|| {
                located(
                    lua,
                    format!("field '{field}' must be a number, got {}", type_name(value)),
                )
            })
        };
        match (f.slot)(v) {
            FieldMut::Num(x) => *x = number()? as f32,
            FieldMut::Count(x) => {
                let n = number()? as f32;
                if !(n >= 0.0 && n.fract() == 0.0) {
                    return Err(located(
                        lua,
                        format!("field '{field}' must be a whole number >= 0, got {n}"),
                    ));
                }
                *x = n as usize;
            }
            FieldMut::Curve(c) => {
                *c = convert::curve_from_value(value)
                    .map_err(|m| located(lua, format!("field '{field}' {m}")))?
                    .ok_or_else(|| located(lua, format!("field '{field}' cannot be nil")))?;
            }
        }
        Ok(())
    }

    /// `c.gait = { ... }`: every field of `value` (a table) applied to one copy, checked
    /// as a whole and queued once; fields not given keep their values.
    pub(crate) fn set_table(&self, lua: &Lua, what: &str, value: Value) -> mlua::Result<()> {
        let Value::Table(t) = value else {
            return Err(located(
                lua,
                format!("{what} takes a table of fields, got {}", type_name(&value)),
            ));
        };
        let mut v = self.current(lua)?;
        for pair in t.pairs::<Value, Value>() {
            let (k, x) = pair?;
            let Value::String(k) = k else {
                return Err(located(lua, format!("{what}: field names are strings")));
            };
            self.assign(lua, &mut v, &k.to_string_lossy(), &x)?;
        }
        let c = ctx(lua)?;
        v.validate(&c.world.borrow(), self.0)
            .map_err(|e| located(lua, e))?;
        c.world.borrow_mut().push(T::command(self.0, v));
        Ok(())
    }

    fn set(&self, lua: &Lua, key: String, value: Value) -> mlua::Result<()> {
        let mut v = self.current(lua)?;
        self.assign(lua, &mut v, &key, &value)?;
        let c = ctx(lua)?;
        v.validate(&c.world.borrow(), self.0)
            .map_err(|e| located(lua, e))?;
        c.world.borrow_mut().push(T::command(self.0, v));
        Ok(())
    }
}

impl<T: Tunable> UserData for Proxy<T> {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_meta_method("__index", |lua, this, key: String| this.get(lua, key));
        methods.add_meta_method("__newindex", |lua, this, (key, value): (String, Value)| {
            this.set(lua, key, value)
        });
    }
}

/// An f32 as the f64 a script would have written (0.12, not 0.11999999731779099).
fn script_number(x: f32) -> f64 {
    x.to_string().parse().unwrap_or(x as f64)
}
