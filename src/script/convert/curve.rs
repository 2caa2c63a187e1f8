//! Curves from Lua values: a `curve` value, a number (a constant) or a list of `{x, y}`
//! points, and why a value is none.

use mlua::{AnyUserData, Table, Value};

use super::{as_number, type_name, LuaCurve};
use crate::math::Curve;

/// Why a Lua value is not a curve (the message follows the field's name).
#[derive(Debug, thiserror::Error, PartialEq)]
pub(crate) enum BadCurve {
    /// A number that is NaN or infinite.
    #[error("must be a finite number, got {0}")]
    NotFinite(f64),
    /// Neither a curve, a number nor a list of points (the value's type).
    #[error("must be a curve (curve{{...}}), got {0}")]
    NotACurve(&'static str),
    /// A userdata that is not a curve.
    #[error("must be a curve (curve{{...}}), got another userdata")]
    OtherUserdata,
    /// A list entry that is not a table (its 1-based index and type).
    #[error("point {index} must be a {{x, y}} pair, got {got}")]
    NotAPair { index: usize, got: &'static str },
    /// A pair whose entries are not both numbers.
    #[error("point {0} must be a {{x, y}} pair of numbers")]
    NotNumbers(usize),
    /// Points that make no curve.
    #[error("is not a valid curve: {0}")]
    Invalid(#[from] crate::math::CurveError),
    /// Reading the table failed in Lua.
    #[error("{0}")]
    Lua(String),
}

impl From<mlua::Error> for BadCurve {
    fn from(e: mlua::Error) -> BadCurve {
        BadCurve::Lua(e.to_string())
    }
}

/// A curve from a Lua value (see [`Reader::curve`]).
pub(crate) fn curve_from_value(v: &Value) -> Result<Option<Curve>, BadCurve> {
    match v {
        Value::Nil => Ok(None),
        Value::UserData(ud) => curve_from_userdata(ud).map(Some),
        Value::Table(t) => curve_from_points(t, false).map(Some),
        v => match as_number(v) {
            Some(n) if n.is_finite() => Ok(Some(Curve::Constant(n as f32))),
            Some(n) => Err(BadCurve::NotFinite(n)),
            None => Err(BadCurve::NotACurve(type_name(v))),
        },
    }
}

fn curve_from_userdata(ud: &AnyUserData) -> Result<Curve, BadCurve> {
    ud.borrow::<LuaCurve>()
        .map(|c| c.0.clone())
        .map_err(|_| BadCurve::OtherUserdata)
}

/// Builds a curve from `{ {x0, y0}, {x1, y1}, ... }` (monotone cubic, or straight lines when `linear`).
pub(crate) fn curve_from_points(t: &Table, linear: bool) -> Result<Curve, BadCurve> {
    let mut points = Vec::new();
    for (i, p) in t.sequence_values::<Value>().enumerate() {
        let p = p?;
        let Value::Table(p) = p else {
            return Err(BadCurve::NotAPair {
                index: i + 1,
                got: type_name(&p),
            });
        };
        let x = as_number(&p.raw_get::<Value>(1)?);
        let y = as_number(&p.raw_get::<Value>(2)?);
        match (x, y) {
            (Some(x), Some(y)) => points.push((x as f32, y as f32)),
            _ => return Err(BadCurve::NotNumbers(i + 1)),
        }
    }
    Ok(if linear {
        Curve::linear(&points)
    } else {
        Curve::monotone(&points)
    }?)
}
