//! `creature.define{ arms = { { name =, shoulder =, segments = { … }, rest =, pole = }, … } }`.

use mlua::Value;

use super::{type_name, Reader};
use crate::locomotion::{ArmDef, DefError, Hand};

/// Reads the `arms` list (absent: none).
pub(crate) fn arm_defs(r: &Reader) -> Result<Vec<ArmDef>, DefError> {
    let Some(t) = r.table("arms")? else {
        return Ok(Vec::new());
    };
    let n = t.raw_len();
    if t.clone().pairs::<Value, Value>().count() != n {
        return Err(DefError::new(
            "arms",
            "must be a list of arm tables ({ {name=..., shoulder=..., segments={...}}, ... })",
        ));
    }
    let mut arms = Vec::with_capacity(n);
    for i in 1..=n {
        let v: Value = t
            .raw_get(i)
            .map_err(|e| DefError::new(format!("arms[{i}]"), e.to_string()))?;
        let Value::Table(a) = v else {
            return Err(DefError::new(
                format!("arms[{i}]"),
                format!("must be a table, got {}", type_name(&v)),
            ));
        };
        let ar = Reader::new(
            a,
            &format!("arms[{i}]."),
            &["name", "shoulder", "segments", "rest", "pole", "hand"],
        );
        let name = ar.string("name")?.unwrap_or_else(|| format!("arm{i}"));
        let shoulder = ar.vec_req("shoulder")?;
        let segments = super::lengths(&ar, "segments")?;
        let rest = ar.vec("rest")?;
        let pole = ar.vec("pole")?;
        let hand = match ar.string("hand")?.as_deref() {
            None | Some("none") => Hand::Plain,
            Some("claw") => Hand::Claw,
            Some("fist") => Hand::Fist,
            Some(other) => {
                return Err(DefError::new(
                    format!("arms[{i}].hand"),
                    format!("must be \"claw\", \"fist\" or \"none\", got \"{other}\""),
                ))
            }
        };
        ar.finish()?;
        arms.push(ArmDef {
            name,
            shoulder,
            segments,
            rest,
            pole,
            hand,
        });
    }
    Ok(arms)
}
