//! Completion of the name being typed at the end of a console line: globals (the API's and
//! the line's own), fields of tables reached by `a.b.c`, a creature handle's methods after
//! `c:` (and its fields after `c.`), a string's methods, a vector's components. Values are
//! reached by raw reads only: completing never runs script code.

use mlua::{Lua, Table, Value};

/// Luau's keywords offered where a statement may start.
const KEYWORDS: &[&str] = &[
    "and", "break", "continue", "do", "else", "elseif", "end", "false", "for", "function", "if",
    "in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
];

/// What can be completed at the end of `text`: the byte offset where the name being typed
/// starts (what a completion replaces) and the candidates, sorted, each a whole name.
pub(crate) fn complete(lua: &Lua, text: &str) -> (usize, Vec<String>) {
    let tail_start = text
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || matches!(c, '_' | '.' | ':'))
        .last()
        .map_or(text.len(), |(i, _)| i);
    let tail = &text[tail_start..];
    // `a.b:c`: the path `a.b`, the separator `:`, the prefix `c`.
    let cut = tail.rfind(['.', ':']);
    let (path, sep, prefix) = match cut {
        Some(i) => (&tail[..i], tail[i..].chars().next(), &tail[i + 1..]),
        None => ("", None, tail),
    };
    let start = text.len() - prefix.len();
    let names: Vec<String> = match sep {
        None => global_names(lua),
        Some(sep) => match resolve(lua, path) {
            Some(v) => member_names(lua, &v, sep == ':'),
            None => Vec::new(),
        },
    };
    let mut out: Vec<String> = names
        .into_iter()
        .filter(|n| n.starts_with(prefix))
        .collect();
    if sep.is_none() {
        out.extend(
            KEYWORDS
                .iter()
                .filter(|k| k.starts_with(prefix))
                .map(|k| k.to_string()),
        );
    }
    out.sort();
    out.dedup();
    (start, out)
}

/// The longest start every candidate shares.
pub(crate) fn common_prefix(names: &[String]) -> String {
    let Some(first) = names.first() else {
        return String::new();
    };
    let mut n = first.len();
    for s in &names[1..] {
        n = n.min(
            first
                .char_indices()
                .zip(s.chars())
                .take_while(|((_, a), b)| a == b)
                .last()
                .map_or(0, |((i, a), _)| i + a.len_utf8()),
        );
    }
    first[..n].to_string()
}

/// String keys of `t` (raw).
fn keys(t: &Table, only_functions: bool) -> Vec<String> {
    t.clone()
        .pairs::<Value, Value>()
        .flatten()
        .filter(|(_, v)| !only_functions || matches!(v, Value::Function(_)))
        .filter_map(|(k, _)| match k {
            Value::String(s) => s.to_str().ok().map(|s| s.to_string()),
            _ => None,
        })
        .collect()
}

/// The table a metatable's `__index` reads from, when it is a table.
fn index_table(t: &Table) -> Option<Table> {
    match t.metatable()?.raw_get::<Value>("__index").ok()? {
        Value::Table(i) => Some(i),
        _ => None,
    }
}

/// Every global name: the line's own and the sandbox's frozen ones under them.
fn global_names(lua: &Lua) -> Vec<String> {
    let g = lua.globals();
    let mut out = keys(&g, false);
    if let Some(base) = index_table(&g) {
        out.extend(keys(&base, false));
    }
    out
}

/// A raw read of `t[k]`, through a table `__index` (the sandbox's globals, a class).
fn raw_field(t: &Table, k: &str) -> Option<Value> {
    match t.raw_get::<Value>(k).ok()? {
        Value::Nil => raw_field(&index_table(t)?, k),
        v => Some(v),
    }
}

/// The value `a.b.c` names, read raw from the globals.
fn resolve(lua: &Lua, path: &str) -> Option<Value> {
    let mut parts = path.split(['.', ':']);
    let first = parts.next().filter(|p| !p.is_empty())?;
    let mut v = raw_field(&lua.globals(), first)?;
    for p in parts {
        let Value::Table(t) = &v else { return None };
        v = raw_field(t, p)?;
    }
    Some(v)
}

/// What may follow `v.` (`methods`: `v:`).
fn member_names(lua: &Lua, v: &Value, methods: bool) -> Vec<String> {
    match v {
        Value::Table(t) => {
            let handle_mt = crate::script::api::handle_mt(lua).ok();
            if handle_mt.is_some() && t.metatable() == handle_mt {
                let mut out: Vec<String> = crate::script::api::handle_methods(lua)
                    .map(|m| keys(&m, false))
                    .unwrap_or_default();
                if !methods {
                    out.extend(keys(t, false));
                    out.extend(["gait", "lean", "muscle"].map(String::from));
                }
                return out;
            }
            let mut out = keys(t, methods);
            if let Some(i) = index_table(t) {
                out.extend(keys(&i, methods));
            }
            out
        }
        Value::String(_) if methods => match raw_field(&lua.globals(), "string") {
            Some(Value::Table(s)) => keys(&s, true),
            _ => Vec::new(),
        },
        Value::Vector(_) if !methods => ["x", "y", "z"].map(String::from).to_vec(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_fields_and_methods_complete() {
        let lua = Lua::new();
        lua.load("player = { name = 'x', speed = 2, run = function() end }")
            .exec()
            .expect("runs");
        let (at, c) = complete(&lua, "print(pla");
        assert_eq!((at, c), (6, vec!["player".to_string()]));
        let (at, c) = complete(&lua, "player.s");
        assert_eq!((at, c), (7, vec!["speed".to_string()]));
        // After `:` only functions.
        assert_eq!(complete(&lua, "player:").1, vec!["run".to_string()]);
        assert_eq!(complete(&lua, "string.up").1, vec!["upper".to_string()]);
        assert!(complete(&lua, "wh").1.contains(&"while".to_string()));
        assert!(complete(&lua, "nothing.x").1.is_empty());
        assert_eq!(
            common_prefix(&["spawn".into(), "spawn_at".into(), "spawned".into()]),
            "spawn"
        );
    }
}
