//! Errors from mods: where (`mod/file.lua:LINE`) and what. Every failure a script causes,
//! from a bad definition field to a budget overrun, ends as one [`ScriptError`].

use std::fmt;

use mlua::Lua;

/// An error from a mod: where (`mod/file.lua:LINE`, when known) and what.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptError {
    /// The mod.
    pub mod_name: String,
    /// `mod/file.lua:LINE`, when the error points into a script.
    pub location: Option<String>,
    /// The message, without the location.
    pub message: String,
}

impl ScriptError {
    /// An error of `mod_name` with no place in a script (`""`: of no mod).
    pub(crate) fn in_mod(mod_name: &str, message: impl Into<String>) -> ScriptError {
        ScriptError {
            mod_name: mod_name.to_string(),
            location: None,
            message: message.into(),
        }
    }

    /// An error of `mod_name` at `location` (`mod/file.lua[:LINE]`).
    pub(crate) fn at(
        mod_name: &str,
        location: impl Into<String>,
        message: impl Into<String>,
    ) -> ScriptError {
        ScriptError {
            mod_name: mod_name.to_string(),
            location: Some(location.into()),
            message: message.into(),
        }
    }

    /// An error of `mod_name` from a Lua error's text (`"mod/file.lua:12: message"`).
    pub(crate) fn from_text(mod_name: &str, text: &str) -> ScriptError {
        let (location, message) = split_location(text);
        ScriptError {
            mod_name: mod_name.to_string(),
            location,
            message,
        }
    }
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Some(l) => write!(f, "{l}: {}", self.message),
            // An error of no mod (a folder given that holds none) is only its message.
            None if self.mod_name.is_empty() => write!(f, "{}", self.message),
            None => write!(f, "{}: {}", self.mod_name, self.message),
        }
    }
}

impl std::error::Error for ScriptError {}

/// Splits `"mod/file.lua:12: message"` into location and message.
pub(crate) fn split_location(msg: &str) -> (Option<String>, String) {
    let msg = msg.trim();
    for ext in [".luau:", ".lua:", ".toml:"] {
        if let Some(i) = msg.find(ext) {
            let after = &msg[i + ext.len()..];
            let digits: String = after.chars().take_while(|c| c.is_ascii_digit()).collect();
            if !digits.is_empty()
                && after[digits.len()..].starts_with(": ")
                && !msg[..i].contains(' ')
            {
                let loc = &msg[..i + ext.len() + digits.len()];
                return (Some(loc.to_string()), after[digits.len() + 2..].to_string());
            }
        }
    }
    (None, msg.to_string())
}

/// The root message of an mlua error (callback wrappers and tracebacks removed).
pub(crate) fn root_message(e: &mlua::Error) -> String {
    let msg = root_message_full(e);
    match msg.find("\nstack traceback:") {
        Some(i) => msg[..i].to_string(),
        None => msg,
    }
}

fn root_message_full(e: &mlua::Error) -> String {
    match e {
        mlua::Error::CallbackError { cause, .. } => root_message_full(cause),
        mlua::Error::WithContext { cause, .. } => root_message_full(cause),
        mlua::Error::RuntimeError(s) => s.clone(),
        mlua::Error::SyntaxError { message, .. } => message.clone(),
        mlua::Error::MemoryError(_) => "memory limit exceeded".to_string(),
        other => other.to_string(),
    }
}

/// `mod/file.lua:LINE` of the innermost Lua frame on the stack, if any.
pub(crate) fn caller_location(lua: &Lua) -> Option<String> {
    for level in 0..12 {
        let found = lua.inspect_stack(level, |d| {
            let src = d.source();
            if src.what == "C" {
                return None;
            }
            let line = d.current_line()?;
            let short = src.short_src.as_deref()?.to_string();
            if short.starts_with(crate::script::api::INTERNAL_CHUNK) {
                return None;
            }
            Some(format!("{short}:{line}"))
        });
        match found {
            None => return None,
            Some(Some(loc)) => return Some(loc),
            Some(None) => {}
        }
    }
    None
}

/// A runtime error prefixed with the calling script's location.
pub(crate) fn located(lua: &Lua, msg: impl fmt::Display) -> mlua::Error {
    match caller_location(lua) {
        Some(loc) => mlua::Error::runtime(format!("{loc}: {msg}")),
        None => mlua::Error::runtime(msg.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_locations() {
        assert_eq!(
            split_location("spider/main.lua:12: boom"),
            (Some("spider/main.lua:12".into()), "boom".into())
        );
        assert_eq!(
            split_location("a/b/c.luau:3: x: y"),
            (Some("a/b/c.luau:3".into()), "x: y".into())
        );
        assert_eq!(
            split_location("no location here"),
            (None, "no location here".into())
        );
        // A space before the extension means prose, not a path.
        assert_eq!(split_location("see my file.lua:3: x").0, None);
    }

    #[test]
    fn script_errors_are_std_errors_that_print_their_place() {
        let e = ScriptError::from_text("m", "m/main.lua:7: boom");
        let dynamic: &dyn std::error::Error = &e;
        assert_eq!(dynamic.to_string(), "m/main.lua:7: boom");
        assert_eq!(ScriptError::in_mod("m", "gone").to_string(), "m: gone");
    }
}
