//! `log.info`, `log.warn`, `log.error` and `print`: lines the host shows with the mod's name.

use mlua::{Lua, MultiValue, Value};

use super::context::ctx;
use crate::script::convert::{as_number, type_name};
use crate::script::shared::{LogLevel, LogLine};

fn line(lua: &Lua, level: LogLevel, args: MultiValue) -> mlua::Result<()> {
    let c = ctx(lua)?;
    let mut parts = Vec::new();
    for v in args.iter() {
        parts.push(match v {
            Value::String(s) => s.to_string_lossy(),
            Value::Nil => "nil".into(),
            Value::Boolean(b) => b.to_string(),
            Value::Vector(v) => format!("vec3({}, {}, {})", v.x(), v.y(), v.z()),
            other => match as_number(other) {
                Some(n) => n.to_string(),
                None => other
                    .to_string()
                    .unwrap_or_else(|_| type_name(other).to_string()),
            },
        });
    }
    c.shared.borrow_mut().logs.push(LogLine {
        mod_name: c.name.clone(),
        level,
        text: parts.join("\t"),
    });
    Ok(())
}

/// `log.info(...)` and `print(...)`.
pub(super) fn info(lua: &Lua, args: MultiValue) -> mlua::Result<()> {
    line(lua, LogLevel::Info, args)
}

/// `log.warn(...)`.
pub(super) fn warn(lua: &Lua, args: MultiValue) -> mlua::Result<()> {
    line(lua, LogLevel::Warn, args)
}

/// `log.error(...)`.
pub(super) fn error(lua: &Lua, args: MultiValue) -> mlua::Result<()> {
    line(lua, LogLevel::Error, args)
}
