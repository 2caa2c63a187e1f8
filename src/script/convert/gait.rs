//! `gait = { step_*, lead, speed_scale, groups, pattern, min_grounded, styles = { NAME = {…} } }`
//! of a creature type.

use mlua::{Table, Value};

use super::{read_fields, type_name, Reader};
use crate::locomotion::def::{GaitDef, GaitPattern};
use crate::locomotion::{tuning, DefError, GaitParams, StyleDef, StylePattern};

/// The keys a style may have.
const STYLE_KEYS: &[&str] = &[
    "speed",
    "froude",
    "step_trigger",
    "step_duration",
    "step_height",
    "lead",
    "min_grounded",
    "groups",
    "pattern",
];

/// `gait = { ..., groups, min_grounded }` (the tunable fields from [`tuning::GAIT`]).
pub(super) fn gait_def(r: &Reader, lua: &mlua::Lua) -> Result<GaitDef, DefError> {
    let mut gait_keys = tuning::keys(tuning::GAIT, None);
    gait_keys.extend(["groups", "pattern", "styles"]);
    let g = r.sub("gait", &gait_keys, lua)?;
    let groups = leg_groups(g.table("groups")?, "gait.groups")?;
    let mut params = GaitParams::default();
    read_fields(&g, &[], tuning::GAIT, &mut params)?;
    let pattern = match g.string("pattern")?.as_deref() {
        None | Some("alternate") => GaitPattern::Alternate,
        Some("wave") => GaitPattern::Wave,
        Some(other) => {
            return Err(DefError::new(
                "gait.pattern",
                format!("must be \"alternate\" or \"wave\", got \"{other}\""),
            ))
        }
    };
    let gait = GaitDef {
        params,
        groups,
        min_grounded: g.num("min_grounded")?,
        pattern,
        styles: styles(g.table("styles")?)?,
    };
    g.finish()?;

    Ok(gait)
}

/// A list of lists of leg names (`field` names it in errors); `None` when absent.
fn leg_groups(t: Option<Table>, field: &str) -> Result<Option<Vec<Vec<String>>>, DefError> {
    let Some(gt) = t else {
        return Ok(None);
    };
    let mut groups = Vec::new();
    for (gi, grp) in gt.sequence_values::<Value>().enumerate() {
        let grp = grp.map_err(|e| DefError::new(field, e.to_string()))?;
        let Value::Table(grp) = grp else {
            return Err(DefError::new(
                format!("{field}[{}]", gi + 1),
                format!("must be a list of leg names, got {}", type_name(&grp)),
            ));
        };
        let mut names = Vec::new();
        for (k, n) in grp.sequence_values::<Value>().enumerate() {
            match n.map_err(|e| DefError::new(field, e.to_string()))? {
                Value::String(s) => names.push(s.to_string_lossy()),
                other => {
                    return Err(DefError::new(
                        format!("{field}[{}][{}]", gi + 1, k + 1),
                        format!("must be a leg name, got {}", type_name(&other)),
                    ))
                }
            }
        }
        groups.push(names);
    }
    Ok(Some(groups))
}

/// `gait.styles = { walk = { … }, trot = { … }, … }`, in name order (the type sorts them by
/// speed when it is checked).
fn styles(t: Option<Table>) -> Result<Vec<StyleDef>, DefError> {
    let Some(t) = t else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for pair in t.pairs::<Value, Value>() {
        let (k, v) = pair.map_err(|e| DefError::new("gait.styles", e.to_string()))?;
        let Value::String(name) = k else {
            return Err(DefError::new(
                "gait.styles",
                format!(
                    "must be a table of named styles ({{ walk = {{…}}, trot = {{…}} }}), got a {} key",
                    type_name(&k)
                ),
            ));
        };
        let name = name.to_string_lossy();
        let field = format!("gait.styles.{name}");
        let Value::Table(st) = v else {
            return Err(DefError::new(
                field,
                format!(
                    "must be a table of the style's fields, got {}",
                    type_name(&v)
                ),
            ));
        };
        let r = Reader::new(st, &format!("{field}."), STYLE_KEYS);
        let pattern = match r.string("pattern")? {
            None => None,
            Some(p) => Some(StylePattern::from_name(&p).ok_or_else(|| {
                DefError::new(
                    format!("{field}.pattern"),
                    format!(
                        "must be \"alternate\", \"wave\", \"sequence\" or \"bound\", got \"{p}\""
                    ),
                )
            })?),
        };
        out.push(StyleDef {
            speed: r.num("speed")?,
            froude: r.num("froude")?,
            step_trigger: r.num("step_trigger")?,
            step_duration: r.num("step_duration")?,
            step_height: r.num("step_height")?,
            lead: r.num("lead")?,
            min_grounded: r.num("min_grounded")?,
            groups: leg_groups(r.table("groups")?, &format!("{field}.groups"))?,
            pattern,
            name,
        });
        r.finish()?;
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}
