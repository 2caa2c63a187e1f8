//! Definition errors where the author looks for them: each at its field's own line, and in
//! `skitter check` every bad field of a table, not only the first.

use std::path::Path;

use mlua::{Lua, Table, Value};

use super::context::{caller_location, ctx};
use crate::locomotion::DefError;
use crate::script::read_script;

/// How many more bad fields `skitter check` looks for in one table after the first.
const MORE_ERRORS: usize = 24;

/// A definition error raised by `what`, at the line of its field when the calling file
/// shows it (`nav = { sped = 3 }` on line 6 of a define that starts on line 1: line 6),
/// else at the calling line.
pub(crate) fn def_err(lua: &Lua, what: &str, e: DefError) -> mlua::Error {
    mlua::Error::runtime(def_err_text(lua, &Caller::of(lua), what, &e))
}

/// The text of [`def_err`] for `e`, placed by `caller`.
fn def_err_text(lua: &Lua, caller: &Option<Caller>, what: &str, e: &DefError) -> String {
    let place = caller.as_ref().and_then(|c| {
        Some(format!(
            "{}:{}",
            c.chunk,
            field_line(&c.text, c.line, &e.field)?
        ))
    });
    match place.or_else(|| caller_location(lua)) {
        Some(loc) => format!("{loc}: {what}: {e}"),
        None => format!("{what}: {e}"),
    }
}

/// The calling script's place and text: its chunk (`mod/file.lua`), the line calling, and
/// the file as it is on disk (read as the loader reads scripts).
struct Caller {
    chunk: String,
    line: usize,
    text: String,
}

impl Caller {
    /// The caller of the API function running, when its file can be read.
    fn of(lua: &Lua) -> Option<Caller> {
        let at = caller_location(lua)?;
        let (chunk, line) = at.rsplit_once(':')?;
        let (mod_name, rel) = chunk.split_once('/')?;
        let c = ctx(lua).ok()?;
        let (root, _) = c.roots.get(mod_name)?;
        Some(Caller {
            chunk: chunk.to_string(),
            line: line.parse().ok()?,
            text: read_script(&root.join(Path::new(rel))).ok()?,
        })
    }
}

/// The 1-based line of `field`'s key in the table that starts on line `start` of `text`:
/// each dotted part's `key =` in turn, within the braces opened from `start` on (a part
/// that is an index, `legs[3]`, ends the search at its list's line; one not written out, at
/// its table's line). `None` when the first part is not written there (a table built
/// elsewhere and passed in).
pub(crate) fn field_line(text: &str, start: usize, field: &str) -> Option<usize> {
    let lines: Vec<&str> = text.lines().collect();
    let first = start.checked_sub(1)?;
    // The lines of the call's table: until its braces close again.
    let code_of = |l: &str| l.split("--").next().unwrap_or("").to_string();
    let opened = code_of(lines.get(first)?).contains('{');
    let mut depth = 0i32;
    let mut end = first;
    for (i, l) in lines.iter().enumerate().skip(first) {
        let code = code_of(l);
        depth += code.matches('{').count() as i32 - code.matches('}').count() as i32;
        end = i;
        // Closed again (or never opened on the calling line: a table passed in).
        if depth <= 0 && (i > first || !opened || code.contains('}')) {
            break;
        }
    }
    let mut at = None;
    let mut from = first;
    for part in field.split('.') {
        let (key, indexed) = match part.split_once('[') {
            Some((k, _)) => (k, true),
            None => (part, false),
        };
        // A part not written out (a default the error asks for): the table that lacks it.
        let Some(hit) = (from..=end).find(|&i| assigns(lines[i], key)) else {
            break;
        };
        at = Some(hit + 1);
        from = hit;
        if indexed {
            break;
        }
    }
    at
}

/// Whether `line` assigns `key` in a table constructor (`key = …`, not `key == …`).
fn assigns(line: &str, key: &str) -> bool {
    let code = line.split("--").next().unwrap_or("");
    let mut rest = code;
    let mut offset = 0;
    while let Some(i) = rest.find(key) {
        let abs = offset + i;
        let before = code[..abs].chars().next_back();
        let after = code[abs + key.len()..].trim_start();
        let word_start = before.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '.'));
        if word_start && after.starts_with('=') && !after.starts_with("==") {
            return true;
        }
        offset = abs + key.len();
        rest = &code[offset..];
    }
    false
}

/// In `skitter check`: the bad fields of `t` after `first`, found by trying the table again
/// with each bad field taken out (its default then) until `check` passes or finds nothing
/// new. Each as `mod/file.lua:LINE: what: field '…' …`.
pub(crate) fn more_def_errors(
    lua: &Lua,
    what: &str,
    t: &Table,
    first: &DefError,
    check: impl Fn(&Lua, Table) -> Result<(), DefError>,
) -> Vec<String> {
    let mut out = Vec::new();
    let Ok(copy) = deep_copy(lua, t, 0) else {
        return out;
    };
    let caller = Caller::of(lua);
    let mut seen = vec![first.field.clone()];
    let mut bad = first.field.clone();
    for _ in 0..MORE_ERRORS {
        // Taking an element out of a list would change what the list says (a leg's two
        // segments, one taken out, are one too few): the search ends there.
        if bad.ends_with(']') || !remove_field(&copy, &bad) {
            break;
        }
        match check(lua, copy.clone()) {
            Ok(()) => break,
            Err(e) if seen.contains(&e.field) => break,
            Err(e) => {
                out.push(def_err_text(lua, &caller, what, &e));
                seen.push(e.field.clone());
                bad = e.field;
            }
        }
    }
    out
}

/// A copy of `t` whose plain tables (no metatable) are copied too, a few levels deep.
fn deep_copy(lua: &Lua, t: &Table, depth: usize) -> mlua::Result<Table> {
    let out = lua.create_table()?;
    for pair in t.pairs::<Value, Value>() {
        let (k, v) = pair?;
        let v = match v {
            Value::Table(inner) if depth < 6 && inner.metatable().is_none() => {
                Value::Table(deep_copy(lua, &inner, depth + 1)?)
            }
            other => other,
        };
        out.raw_set(k, v)?;
    }
    Ok(out)
}

/// One step of a field's path: a key or a 1-based list index.
enum Key<'a> {
    Name(&'a str),
    Index(i64),
}

/// The steps of `field`: `"legs[3].hip"` → `legs`, 3, `hip`.
fn keys(field: &str) -> Option<Vec<Key<'_>>> {
    let mut out = Vec::new();
    for part in field.split('.') {
        let mut parts = part.split('[');
        let name = parts.next()?;
        if !name.is_empty() {
            out.push(Key::Name(name));
        }
        for ix in parts {
            out.push(Key::Index(ix.strip_suffix(']')?.parse().ok()?));
        }
    }
    Some(out)
}

/// Takes `field` (`"gait.step_height"`, `"legs[3].hip"`) out of `t`; false when it is not
/// there to take.
fn remove_field(t: &Table, field: &str) -> bool {
    let Some(path) = keys(field) else {
        return false;
    };
    let Some((last, inner)) = path.split_last() else {
        return false;
    };
    let mut at = t.clone();
    for k in inner {
        let next = match k {
            Key::Name(n) => at.raw_get::<Value>(*n),
            Key::Index(i) => at.raw_get::<Value>(*i),
        };
        match next {
            Ok(Value::Table(n)) => at = n,
            _ => return false,
        }
    }
    let had = match last {
        Key::Name(n) => at.raw_get::<Value>(*n),
        Key::Index(i) => at.raw_get::<Value>(*i),
    };
    if !matches!(had, Ok(v) if !v.is_nil()) {
        return false;
    }
    match last {
        Key::Name(n) => at.raw_set(*n, Value::Nil).is_ok(),
        Key::Index(i) => at.raw_remove(*i).is_ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "creature.define {\n  name = \"bad\",\n  body = { size = vec3(1, 1, 1), height = -1 },\n  gait = {\n    step_height = -2, -- too low\n  },\n  nav = { sped = 3 },\n}\nworld.spawn(\"bad\", { position = vec3(0, 0, 0) })\nlocal nav = { speed = 1 }\n";

    #[test]
    fn a_field_is_found_on_its_own_line_within_its_table() {
        assert_eq!(field_line(SRC, 1, "body.height"), Some(3));
        assert_eq!(field_line(SRC, 1, "gait.step_height"), Some(5));
        assert_eq!(field_line(SRC, 1, "nav.sped"), Some(7));
        assert_eq!(field_line(SRC, 1, "name"), Some(2));
        // Not past the table's closing brace (line 10 has a `speed =`), nor `==`.
        assert_eq!(
            field_line(SRC, 1, "nav.speed"),
            Some(7),
            "the table that lacks it"
        );
        assert_eq!(field_line(SRC, 1, "lean.turn"), None);
        assert_eq!(field_line(SRC, 9, "position"), Some(9));
        assert_eq!(field_line(SRC, 9, "speed"), None);
        assert!(!assigns("if step_height == 2 then", "step_height"));
        // A table passed in: only the calling line.
        let passed = "creature.define(def)\nlocal x = { height = 1 }\n";
        assert_eq!(field_line(passed, 1, "height"), None);
        assert!(!assigns("  my_height = 2", "height"));
        assert!(assigns("  legs = { {", "legs"));
    }

    #[test]
    fn a_field_path_is_taken_out_of_a_table() {
        let lua = Lua::new();
        let t: Table = lua
            .load("return { gait = { step_height = -2, lead = 1 }, legs = { { hip = 1 }, { hip = 2 } } }")
            .eval()
            .expect("table");
        assert!(remove_field(&t, "gait.step_height"));
        assert!(!remove_field(&t, "gait.step_height"), "already gone");
        let g: Table = t.get("gait").expect("gait");
        assert_eq!(g.get::<f64>("lead").expect("kept"), 1.0);
        assert!(remove_field(&t, "legs[2].hip"));
        assert!(!remove_field(&t, "legs[5].hip"));
        assert!(remove_field(&t, "legs[1]"));
    }
}
