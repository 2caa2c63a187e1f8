//! Every field a script may tune on a creature instance — its gait and its lean — declared
//! once: name, kind, the field itself, its own check and its inspector range. Definition
//! reading, validation, the live `c.gait`/`c.lean` proxies, reload merging and the window's
//! sliders all walk these tables, so a new field is one line here.

use super::def::{finite, non_negative, positive, DefError, LeanDef};
use super::gait::GaitParams;
use crate::math::Curve;

/// A field's value, owned.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum FieldValue {
    /// A number.
    Num(f32),
    /// A whole number.
    Count(usize),
    /// A curve.
    Curve(Curve),
}

/// A field of a value, to write through.
pub(crate) enum FieldMut<'a> {
    /// A number.
    Num(&'a mut f32),
    /// A whole number.
    Count(&'a mut usize),
    /// A curve.
    Curve(&'a mut Curve),
}

/// The check a number must pass on its own (checks across fields live in `validate`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Check {
    /// Anything, curves and counts included (checked elsewhere).
    Any,
    /// Finite.
    Finite,
    /// Finite and > 0.
    Positive,
    /// Finite and >= 0.
    NonNegative,
    /// Finite, >= 0 and <= the bound.
    UpTo(f32),
}

/// One tunable field of `T`.
pub(crate) struct Field<T> {
    /// Name inside its table: `step_trigger`, `turn.gain`.
    pub name: &'static str,
    /// Reads the field.
    pub get: fn(&T) -> FieldValue,
    /// The field, to write.
    pub slot: fn(&mut T) -> FieldMut<'_>,
    /// Its own check.
    pub check: Check,
    /// The inspector slider's range, for numbers shown there.
    pub slider: Option<(f32, f32)>,
}

macro_rules! field {
    ($name:literal, $kind:ident, $($f:ident).+, $check:expr, $slider:expr) => {
        Field {
            name: $name,
            get: |t| FieldValue::$kind(t.$($f).+.clone()),
            slot: |t| FieldMut::$kind(&mut t.$($f).+),
            check: $check,
            slider: $slider,
        }
    };
}

/// `gait.*` / `c.gait.*` (`groups` is fixed by the type and not listed).
pub(crate) const GAIT: &[Field<GaitParams>] = &[
    field!(
        "step_trigger",
        Num,
        step_trigger,
        Check::Positive,
        Some((0.05, 1.0))
    ),
    field!(
        "step_duration",
        Num,
        step_duration,
        Check::Positive,
        Some((0.05, 1.0))
    ),
    field!(
        "step_height",
        Num,
        step_height,
        Check::Positive,
        Some((0.01, 0.5))
    ),
    field!("step_arc", Curve, step_arc, Check::Any, None),
    field!("speed_scale", Curve, speed_scale, Check::Any, None),
    field!("min_grounded", Count, min_grounded, Check::Any, None),
    field!("lead", Num, lead, Check::UpTo(4.0), Some((0.0, 2.0))),
];

/// `lean.*` / `c.lean.*`: parts (`turn`, `accel`, `vertical`, `hit`) as dotted names.
pub(crate) const LEAN: &[Field<LeanDef>] = &[
    field!("turn.gain", Num, turn_gain, Check::Finite, Some((0.0, 0.5))),
    field!("turn.max", Num, turn_max, Check::NonNegative, None),
    field!("turn.speed", Curve, turn_speed, Check::Any, None),
    field!(
        "accel.gain",
        Num,
        accel_gain,
        Check::Finite,
        Some((0.0, 8.0))
    ),
    field!("accel.max", Num, accel_max, Check::NonNegative, None),
    field!("accel.speed", Curve, accel_speed, Check::Any, None),
    field!("vertical.rise", Num, rise, Check::Finite, None),
    field!("vertical.fall", Num, fall, Check::Finite, None),
    field!("vertical.land", Num, land, Check::Finite, None),
    field!("hit.gain", Num, hit_gain, Check::Finite, None),
    field!("hit.max", Num, hit_max, Check::NonNegative, None),
    field!("hit.push", Num, hit_push, Check::NonNegative, None),
    field!(
        "response",
        Num,
        response,
        Check::Positive,
        Some((0.02, 0.5))
    ),
    field!("damping", Num, damping, Check::Positive, Some((0.2, 1.5))),
    field!(
        "filter_hz",
        Num,
        filter_hz,
        Check::Positive,
        Some((0.5, 30.0))
    ),
];

/// The field called `name`.
pub(crate) fn find<T>(fields: &'static [Field<T>], name: &str) -> Option<&'static Field<T>> {
    fields.iter().find(|f| f.name == name)
}

/// The part names (`turn`, ...) in declaration order.
pub(crate) fn parts<T>(fields: &[Field<T>]) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for f in fields {
        if let Some((p, _)) = f.name.split_once('.') {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// The keys directly inside `part` (`None`: the top level, parts included), in order.
pub(crate) fn keys<T>(fields: &[Field<T>], part: Option<&str>) -> Vec<&'static str> {
    match part {
        None => fields
            .iter()
            .filter(|f| !f.name.contains('.'))
            .map(|f| f.name)
            .chain(parts(fields))
            .collect(),
        Some(p) => fields
            .iter()
            .filter_map(|f| f.name.split_once('.').filter(|(q, _)| *q == p))
            .map(|(_, k)| k)
            .collect(),
    }
}

/// Runs each number's own check; `table` prefixes the field name in errors (`gait`).
pub(crate) fn check_all<T>(fields: &[Field<T>], table: &str, value: &T) -> Result<(), DefError> {
    for f in fields {
        let FieldValue::Num(v) = (f.get)(value) else {
            continue;
        };
        let name = format!("{table}.{}", f.name);
        match f.check {
            Check::Any => {}
            Check::Finite => {
                finite(&name, v)?;
            }
            Check::Positive => {
                positive(&name, v)?;
            }
            Check::NonNegative => {
                non_negative(&name, v)?;
            }
            Check::UpTo(max) => {
                non_negative(&name, v)?;
                if v > max {
                    return Err(DefError::new(name, format!("must be <= {max}, got {v}")));
                }
            }
        }
    }
    Ok(())
}

/// `new`, with every field where `current` differs from `old` (an instance's override)
/// taken from `current`: how a reload keeps live edits while the type changes.
pub(crate) fn merge<T: Clone>(fields: &[Field<T>], old: &T, current: &T, new: &T) -> T {
    let mut out = new.clone();
    for f in fields {
        let cur = (f.get)(current);
        if cur != (f.get)(old) {
            f.set(&mut out, cur);
        }
    }
    out
}

impl<T> Field<T> {
    /// Writes `v` into the field; a value of another kind is ignored.
    pub(crate) fn set(&self, t: &mut T, v: FieldValue) {
        match ((self.slot)(t), v) {
            (FieldMut::Num(x), FieldValue::Num(v)) => *x = v,
            (FieldMut::Count(x), FieldValue::Count(v)) => *x = v,
            (FieldMut::Curve(x), FieldValue::Curve(v)) => *x = v,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_parts_group_them() {
        for names in [
            GAIT.iter().map(|f| f.name).collect::<Vec<_>>(),
            LEAN.iter().map(|f| f.name).collect::<Vec<_>>(),
        ] {
            let mut sorted = names.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), names.len());
        }
        assert_eq!(parts(LEAN), ["turn", "accel", "vertical", "hit"]);
        assert_eq!(
            keys(LEAN, None),
            [
                "response",
                "damping",
                "filter_hz",
                "turn",
                "accel",
                "vertical",
                "hit"
            ]
        );
        assert_eq!(keys(LEAN, Some("vertical")), ["rise", "fall", "land"]);
        assert!(parts(GAIT).is_empty());
    }

    #[test]
    fn each_field_reads_and_writes_its_own_slot() {
        let mut l = LeanDef::default();
        for (i, f) in LEAN.iter().enumerate() {
            if let FieldValue::Num(_) = (f.get)(&l) {
                f.set(&mut l, FieldValue::Num(100.0 + i as f32));
            }
        }
        for (i, f) in LEAN.iter().enumerate() {
            if let FieldValue::Num(v) = (f.get)(&l) {
                assert_eq!(v, 100.0 + i as f32, "{}", f.name);
            }
        }
        assert_eq!(l.turn_gain, 100.0);
        assert_eq!(l.filter_hz, 100.0 + (LEAN.len() - 1) as f32);
    }

    #[test]
    fn merge_keeps_overrides_and_takes_the_rest_from_the_new_type() {
        let old = LeanDef::default();
        let mut cur = old.clone();
        cur.turn_gain = 0.3; // an instance override
        let mut new = old.clone();
        new.turn_gain = 0.2;
        new.damping = 1.0;
        let m = merge(LEAN, &old, &cur, &new);
        assert_eq!(m.turn_gain, 0.3);
        assert_eq!(m.damping, 1.0);
    }

    #[test]
    fn checks_name_the_field() {
        let mut l = LeanDef {
            hit_max: -1.0,
            ..LeanDef::default()
        };
        let e = check_all(LEAN, "lean", &l).expect_err("negative max");
        assert_eq!(e.to_string(), "field 'lean.hit.max' must be >= 0, got -1");
        l.hit_max = 1.0;
        l.filter_hz = f32::NAN;
        assert_eq!(
            check_all(LEAN, "lean", &l).expect_err("NaN").field,
            "lean.filter_hz"
        );
        let g = crate::locomotion::GaitParams {
            lead: 5.0,
            ..Default::default()
        };
        assert_eq!(
            check_all(GAIT, "gait", &g).expect_err("lead").to_string(),
            "field 'gait.lead' must be <= 4, got 5"
        );
    }
}
