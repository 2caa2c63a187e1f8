//! Console results as a modder reads them: numbers without noise, strings quoted, vectors as
//! `vector(x, y, z)`, creature handles as `spider/spider#12`, tables with their fields in a
//! stable order (array part first, then the keys sorted), nested to a depth, long ones cut
//! with a count of what was left out, cycles named. Nothing here runs script code: tables are
//! read raw, so a metamethod cannot run (or loop) while a result is printed.

use mlua::{Lua, Table, Value};

/// How deep nested tables are opened.
const DEPTH: usize = 3;
/// The most fields shown of one table.
const FIELDS: usize = 40;
/// A table whose one-line form is longer than this is laid out one field a line.
const LINE: usize = 72;

/// `v` as the console shows it.
pub(crate) fn pretty(lua: &Lua, v: &Value) -> String {
    let handle_mt = crate::script::api::handle_mt(lua).ok();
    let mut p = Printer {
        handle_mt,
        open: Vec::new(),
    };
    p.value(v, 0)
}

struct Printer {
    handle_mt: Option<Table>,
    /// Tables being printed (a cycle points back at one of them).
    open: Vec<Table>,
}

/// A number as Luau writes it, without a trailing `.0` on whole numbers.
pub(crate) fn number(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.into()
    } else if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        // Shortest form that reads back to the same float, trimmed to what a person wants.
        let s = format!("{x:.6}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        if s.parse::<f64>().ok() == Some(x) || x.abs() >= 1e-4 {
            s.to_string()
        } else {
            format!("{x:e}")
        }
    }
}

/// A string as a Luau literal (quotes, escapes; long ones cut).
fn quoted(s: &str) -> String {
    const MAX: usize = 200;
    let mut out = String::from("\"");
    for (i, ch) in s.chars().enumerate() {
        if i == MAX {
            out.push_str(&format!("…\" ({} characters)", s.chars().count()));
            return out;
        }
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\{}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A table key: bare when it is a name, else `[key]`.
fn key(k: &Value) -> String {
    if let Value::String(s) = k {
        let s = s.to_string_lossy();
        let name = s
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_alphanumeric() || c == '_');
        if name {
            return s.to_string();
        }
    }
    format!(
        "[{}]",
        scalar(k).unwrap_or_else(|| k.type_name().to_string())
    )
}

/// A value that prints without looking inside it, if it is one.
fn scalar(v: &Value) -> Option<String> {
    Some(match v {
        Value::Nil => "nil".into(),
        Value::Boolean(b) => b.to_string(),
        Value::Integer(i) => i.to_string(),
        Value::Number(x) => number(*x),
        Value::Vector(v) => format!(
            "vector({}, {}, {})",
            number(v.x() as f64),
            number(v.y() as f64),
            number(v.z() as f64)
        ),
        Value::String(s) => quoted(&s.to_string_lossy()),
        Value::Function(f) => {
            let info = f.info();
            match (info.short_src, info.line_defined) {
                (Some(src), Some(line)) if !src.starts_with(crate::script::api::INTERNAL_CHUNK) => {
                    format!("function ({src}:{line})")
                }
                _ => "function (built in)".into(),
            }
        }
        _ => return None,
    })
}

/// Sort order of keys: numbers, then strings, then the rest, each in its own order.
fn key_order(a: &Value, b: &Value) -> std::cmp::Ordering {
    let rank = |v: &Value| match v {
        Value::Integer(_) | Value::Number(_) => 0,
        Value::String(_) => 1,
        _ => 2,
    };
    let num = |v: &Value| match v {
        Value::Integer(i) => *i as f64,
        Value::Number(x) => *x,
        _ => 0.0,
    };
    rank(a).cmp(&rank(b)).then_with(|| match (a, b) {
        (Value::String(x), Value::String(y)) => x.as_bytes().cmp(&y.as_bytes()),
        _ => num(a).total_cmp(&num(b)),
    })
}

impl Printer {
    fn value(&mut self, v: &Value, depth: usize) -> String {
        if let Some(s) = scalar(v) {
            return s;
        }
        match v {
            Value::Table(t) => self.table(t, depth),
            // Userdata (a path, a gait proxy): its own `__tostring`, written by skitter.
            Value::UserData(u) => Value::UserData(u.clone())
                .to_string()
                .unwrap_or_else(|_| "userdata".into()),
            other => other.type_name().to_string(),
        }
    }

    /// `spider/spider#12` for a creature handle.
    fn handle(&self, t: &Table) -> Option<String> {
        let mt = t.metatable()?;
        if Some(&mt) != self.handle_mt.as_ref() {
            return None;
        }
        let id: Value = t.raw_get("id").ok()?;
        let ty: String = t.raw_get("type").ok()?;
        Some(format!("{ty}#{}", scalar(&id)?))
    }

    fn table(&mut self, t: &Table, depth: usize) -> String {
        if let Some(h) = self.handle(t) {
            return h;
        }
        if self.open.contains(t) {
            return "<cycle>".into();
        }
        let mut fields: Vec<(Value, Value)> = t.clone().pairs::<Value, Value>().flatten().collect();
        if fields.is_empty() {
            return "{}".into();
        }
        if depth >= DEPTH {
            return format!("{{…{} fields}}", fields.len());
        }
        fields.sort_by(|a, b| key_order(&a.0, &b.0));
        let len = t.raw_len();
        self.open.push(t.clone());
        let mut parts = Vec::new();
        for (i, (k, v)) in fields.iter().take(FIELDS).enumerate() {
            let value = self.value(v, depth + 1);
            // The array part (1..n in order) shows values only.
            let in_array = matches!(k, Value::Integer(n) if *n as usize == i + 1 && i < len);
            parts.push(if in_array {
                value
            } else {
                format!("{} = {value}", key(k))
            });
        }
        self.open.pop();
        if fields.len() > FIELDS {
            parts.push(format!("… ({} more)", fields.len() - FIELDS));
        }
        let one = format!("{{ {} }}", parts.join(", "));
        if one.len() <= LINE && !one.contains('\n') {
            return one;
        }
        let pad = "  ".repeat(depth + 1);
        let body: Vec<String> = parts
            .iter()
            .map(|p| format!("{pad}{},", p.replace('\n', &format!("\n{pad}"))))
            .collect();
        format!("{{\n{}\n{}}}", body.join("\n"), "  ".repeat(depth))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(lua: &Lua, src: &str) -> String {
        let v: Value = lua.load(src).eval().expect("evaluates");
        pretty(lua, &v)
    }

    #[test]
    fn values_print_as_a_modder_reads_them() {
        let lua = Lua::new();
        assert_eq!(show(&lua, "3"), "3");
        assert_eq!(show(&lua, "0.25"), "0.25");
        assert_eq!(show(&lua, "1/3"), "0.333333");
        assert_eq!(show(&lua, "'a\"b\\n'"), "\"a\\\"b\\n\"");
        assert_eq!(
            show(&lua, "vector.create(1, 2.5, -3)"),
            "vector(1, 2.5, -3)"
        );
        assert_eq!(show(&lua, "{}"), "{}");
        assert_eq!(
            show(&lua, "{ 1, 2, x = true, ['a b'] = 1 }"),
            "{ 1, 2, [\"a b\"] = 1, x = true }"
        );
        // A cycle is named, not followed.
        assert_eq!(
            show(&lua, "local t = { n = 1 }; t.self = t; return t"),
            "{ n = 1, self = <cycle> }"
        );
        // Deep tables are cut with a count; long ones are laid out a field a line.
        assert_eq!(
            show(&lua, "{ a = { b = { c = { d = 1 } } } }"),
            "{ a = { b = { c = {…1 fields} } } }"
        );
        let long = show(
            &lua,
            "local t = {} for i = 1, 30 do t['field' .. i] = i end return t",
        );
        assert!(long.starts_with("{\n  field1 = 1,\n"), "{long}");
        let many = show(&lua, "local t = {} for i = 1, 100 do t[i] = i end return t");
        assert!(many.ends_with("… (60 more),\n}"), "{many}");
    }
}
