//! The Lua registry entries the API keeps in each mod's state, owned here: nothing else
//! spells their keys.

use mlua::{Lua, Table, Value};

const MODULES: &str = "skitter.modules";
const BEHAVIOURS: &str = "skitter.behaviours";
const TYPES: &str = "skitter.types";
const HANDLES: &str = "skitter.handles";
const HANDLE_MT: &str = "skitter.handle_mt";
const HANDLE_METHODS: &str = "skitter.handle_methods";

/// Creates the empty tables (the handle metatable is set by [`set_handle_mt`]).
pub(super) fn create(lua: &Lua) -> mlua::Result<()> {
    for key in [MODULES, BEHAVIOURS, TYPES, HANDLES] {
        lua.set_named_registry_value(key, lua.create_table()?)?;
    }
    Ok(())
}

/// Modules loaded by `require`, by chunk name (`false` while one is loading).
pub(super) fn modules(lua: &Lua) -> mlua::Result<Table> {
    lua.named_registry_value(MODULES)
}

/// Behaviour tables by bare name.
pub(super) fn behaviours(lua: &Lua) -> mlua::Result<Table> {
    lua.named_registry_value(BEHAVIOURS)
}

/// Creature type tables (their callbacks) by qualified name.
pub(super) fn types(lua: &Lua) -> mlua::Result<Table> {
    lua.named_registry_value(TYPES)
}

/// Handle tables by creature id.
pub(super) fn handles(lua: &Lua) -> mlua::Result<Table> {
    lua.named_registry_value(HANDLES)
}

/// The metatable every handle shares (its `__index` holds the methods).
pub(crate) fn handle_mt(lua: &Lua) -> mlua::Result<Table> {
    lua.named_registry_value(HANDLE_MT)
}

/// The handle methods by name (what the handle metatable's `__index` looks up first).
pub(crate) fn handle_methods(lua: &Lua) -> mlua::Result<Table> {
    lua.named_registry_value(HANDLE_METHODS)
}

pub(super) fn set_handle_methods(lua: &Lua, m: Table) -> mlua::Result<()> {
    lua.set_named_registry_value(HANDLE_METHODS, m)
}

pub(super) fn set_handle_mt(lua: &Lua, mt: Table) -> mlua::Result<()> {
    lua.set_named_registry_value(HANDLE_MT, mt)
}

/// The table of a behaviour (by bare name) or of a creature type (by qualified name), if
/// this state defines it.
pub(crate) fn brain_table(
    lua: &Lua,
    kind: &crate::script::shared::BrainKind,
) -> mlua::Result<Option<Table>> {
    use crate::script::shared::BrainKind;
    let (t, key) = match kind {
        BrainKind::Behaviour(n) => (behaviours(lua)?, n.as_str()),
        BrainKind::Type(q) => (types(lua)?, q.as_str()),
    };
    Ok(match t.raw_get::<Value>(key)? {
        Value::Table(t) => Some(t),
        _ => None,
    })
}
