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
    lua.remove_app_data::<std::rc::Rc<HandleKeys>>();
    Ok(())
}

/// What every handle method reads, kept on the Rust side: the handle's `id` key and the
/// handles table. (Named, each read would intern its key string and look it up in the
/// registry: a battle's brains make a few million such reads a minute.)
pub(crate) struct HandleKeys {
    /// The string `"id"`.
    pub id: mlua::LuaString,
    /// [`handles`].
    pub handles: Table,
}

/// This state's [`HandleKeys`] (made on first use).
pub(crate) fn handle_keys(lua: &Lua) -> mlua::Result<std::rc::Rc<HandleKeys>> {
    if let Some(k) = lua.app_data_ref::<std::rc::Rc<HandleKeys>>() {
        return Ok(k.clone());
    }
    let k = std::rc::Rc::new(HandleKeys {
        id: lua.create_string("id")?,
        handles: handles(lua)?,
    });
    lua.set_app_data(k.clone());
    Ok(k)
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
