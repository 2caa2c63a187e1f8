//! Gait styles: `gait.styles = { walk = {…}, trot = {…}, gallop = {…} }`. Each style is a set
//! of the gait's fields and its own way of grouping the legs, taking over at a speed (or a
//! Froude number v²/(g·leg length), the measure by which animals of any size change gait:
//! ≈ 0.5 walk → trot, ≈ 2–3 trot → gallop). The locomotor picks the style for its speed with
//! hysteresis, switches only when the new style's support rule already holds, and blends the
//! step's numbers over [`STYLE_BLEND`] so the stride never jumps.

use super::def::ValidLeg;
use super::def::{
    alternate_groups, named_groups, non_negative, positive, sides, wave_groups, DefError,
};
use super::gait::GaitParams;
use crate::math::ballistic::GRAVITY;

/// Seconds over which a new style's step numbers blend in.
pub(crate) const STYLE_BLEND: f32 = 0.4;
/// A style gives way to the slower one only below this fraction of its own speed, so a
/// creature at the boundary does not flicker between two.
pub(crate) const HYSTERESIS: f32 = 0.15;

/// How a style's legs take turns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StylePattern {
    /// Two alternating groups (diagonal pairs: tripod, tetrapod, trot).
    Alternate,
    /// A metachronal wave (every fourth leg on a side together; see `gait.pattern`).
    Wave,
    /// One leg at a time: each side back to front, the left side, then the right (a
    /// quadruped's lateral-sequence walk).
    Sequence,
    /// Left and right together, the back pair, then the next toward the front (a bound; a
    /// quadruped's gallop).
    Bound,
}

impl StylePattern {
    /// The name a script writes.
    pub fn name(self) -> &'static str {
        match self {
            StylePattern::Alternate => "alternate",
            StylePattern::Wave => "wave",
            StylePattern::Sequence => "sequence",
            StylePattern::Bound => "bound",
        }
    }

    /// The pattern named `s`.
    pub fn from_name(s: &str) -> Option<StylePattern> {
        [
            StylePattern::Alternate,
            StylePattern::Wave,
            StylePattern::Sequence,
            StylePattern::Bound,
        ]
        .into_iter()
        .find(|p| p.name() == s)
    }
}

/// One style as a script writes it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StyleDef {
    /// The style's name (the key in `gait.styles`).
    pub name: String,
    /// Body speed (m/s) from which it takes over.
    pub speed: Option<f32>,
    /// Or the Froude number from which it takes over.
    pub froude: Option<f32>,
    /// Overrides of the gait's fields while it is in use.
    pub step_trigger: Option<f32>,
    /// See [`GaitParams::step_duration`].
    pub step_duration: Option<f32>,
    /// See [`GaitParams::step_height`].
    pub step_height: Option<f32>,
    /// See [`GaitParams::lead`].
    pub lead: Option<f32>,
    /// Feet that must stay planted in this style.
    pub min_grounded: Option<f32>,
    /// Legs that lift together (as `gait.groups`).
    pub groups: Option<Vec<Vec<String>>>,
    /// Or a pattern that groups them.
    pub pattern: Option<StylePattern>,
}

/// A checked style, legs grouped.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GaitStyle {
    /// Its name, as in the trace's `style`.
    pub name: String,
    /// Body speed (m/s) from which it takes over; it gives way below
    /// `speed · (1 − HYSTERESIS)`.
    pub speed: f32,
    /// Step trigger override (m).
    pub step_trigger: Option<f32>,
    /// Step duration override (s).
    pub step_duration: Option<f32>,
    /// Step height override (m).
    pub step_height: Option<f32>,
    /// Landing prediction override.
    pub lead: Option<f32>,
    /// Feet that must stay planted (the gait's own when `None`).
    pub min_grounded: Option<usize>,
    /// Each leg's group in this style.
    pub groups: Vec<usize>,
    /// How many groups.
    pub group_count: usize,
    /// Groups take turns in index order.
    pub ordered: bool,
}

impl GaitStyle {
    /// Feet this style keeps planted, the gait's `base` when it does not say.
    pub fn min_grounded(&self, base: &GaitParams) -> usize {
        self.min_grounded.unwrap_or(base.min_grounded)
    }
}

/// The Froude number a style takes over at when its name is a known gait's and it says
/// neither `speed` nor `froude`.
fn default_froude(name: &str) -> Option<f32> {
    match name {
        "walk" => Some(0.0),
        "trot" | "run" => Some(0.5),
        "canter" => Some(1.5),
        "gallop" | "sprint" => Some(2.5),
        _ => None,
    }
}

/// The pattern a style uses when it names neither groups nor a pattern: a walk steps one
/// leg at a time (a wave for more than four legs), a gallop bounds, anything else alternates.
fn default_pattern(name: &str, legs: usize) -> StylePattern {
    match name {
        "walk" if legs <= 4 => StylePattern::Sequence,
        "walk" => StylePattern::Wave,
        "gallop" | "bound" => StylePattern::Bound,
        _ => StylePattern::Alternate,
    }
}

/// Leg length for the Froude number: the mean hip height over the ground when standing
/// (`height` the body's ride height), at least 5 cm.
pub(crate) fn leg_length(legs: &[ValidLeg], height: f32) -> f32 {
    if legs.is_empty() {
        return height.max(0.05);
    }
    let sum: f32 = legs.iter().map(|l| (l.hip.y + height).min(l.length)).sum();
    (sum / legs.len() as f32).max(0.05)
}

/// Body speed (m/s) at Froude number `fr` for a leg `length` m long.
pub(crate) fn froude_speed(fr: f32, length: f32) -> f32 {
    (fr * GRAVITY * length).sqrt()
}

/// Checks `styles` for `legs` (standing at `height`); returns
/// them sorted by the speed they take over at.
pub(crate) fn validate(
    styles: &[StyleDef],
    legs: &[ValidLeg],
    height: f32,
) -> Result<Vec<GaitStyle>, DefError> {
    let length = leg_length(legs, height);
    let mut out: Vec<GaitStyle> = Vec::with_capacity(styles.len());
    for s in styles {
        out.push(valid_style(s, legs, length)?);
    }
    out.sort_by(|a, b| a.speed.total_cmp(&b.speed).then(a.name.cmp(&b.name)));
    for w in out.windows(2) {
        if w[1].speed - w[0].speed < 0.05 {
            return Err(DefError::new(
                format!("gait.styles.{}", w[1].name),
                format!(
                    "takes over at {:.2} m/s, too close to \"{}\" at {:.2} (keep them 0.05 m/s apart)",
                    w[1].speed, w[0].name, w[0].speed
                ),
            ));
        }
    }
    Ok(out)
}

fn valid_style(s: &StyleDef, legs: &[ValidLeg], length: f32) -> Result<GaitStyle, DefError> {
    let at = |f: &str| format!("gait.styles.{}.{f}", s.name);
    super::def::valid_name(&format!("gait.styles[\"{}\"]", s.name), &s.name)?;
    let speed = match (s.speed, s.froude) {
        (Some(_), Some(_)) => {
            return Err(DefError::new(
                at("froude"),
                "cannot be given with speed (say where the style takes over one way)",
            ))
        }
        (Some(v), None) => non_negative(&at("speed"), v)?,
        (None, Some(f)) => froude_speed(non_negative(&at("froude"), f)?, length),
        (None, None) => match default_froude(&s.name) {
            Some(f) => froude_speed(f, length),
            None => {
                return Err(DefError::new(
                    at("speed"),
                    "is required (the body speed in m/s, or froude = v²/(g·leg length), from which this style takes over); only walk, trot, run, canter, gallop and sprint have defaults",
                ))
            }
        },
    };
    for (k, v) in [
        ("step_trigger", s.step_trigger),
        ("step_duration", s.step_duration),
        ("step_height", s.step_height),
        ("lead", s.lead),
    ] {
        if let Some(v) = v {
            if k == "lead" {
                non_negative(&at(k), v)?;
            } else {
                positive(&at(k), v)?;
            }
        }
    }
    let min_grounded = match s.min_grounded {
        None => None,
        Some(m) if m >= 0.0 && m.fract() == 0.0 && (m as usize) < legs.len().max(1) => {
            Some(m as usize)
        }
        Some(m) => {
            return Err(DefError::new(
                at("min_grounded"),
                format!(
                    "must be a whole number from 0 to {} (fewer than the legs), got {m}",
                    legs.len().saturating_sub(1)
                ),
            ))
        }
    };
    let mut grouped: Vec<ValidLeg> = legs.to_vec();
    for l in &mut grouped {
        l.group = usize::MAX;
    }
    let (group_count, ordered) = match (&s.groups, s.pattern) {
        (Some(_), Some(_)) => {
            return Err(DefError::new(
                at("pattern"),
                "cannot be given with groups (say the pattern one way)",
            ))
        }
        (Some(g), None) => (named_groups(g, &mut grouped, &at("groups"))?, false),
        (None, p) => group_by(
            p.unwrap_or_else(|| default_pattern(&s.name, legs.len())),
            &mut grouped,
        ),
    };
    Ok(GaitStyle {
        name: s.name.clone(),
        speed,
        step_trigger: s.step_trigger,
        step_duration: s.step_duration,
        step_height: s.step_height,
        lead: s.lead,
        min_grounded,
        groups: grouped.iter().map(|l| l.group).collect(),
        group_count,
        ordered,
    })
}

/// Groups `legs` by `pattern`; the number of groups and whether they take turns in order.
fn group_by(pattern: StylePattern, legs: &mut [ValidLeg]) -> (usize, bool) {
    match pattern {
        StylePattern::Alternate => (alternate_groups(legs), false),
        StylePattern::Wave => (wave_groups(legs), true),
        StylePattern::Sequence => {
            let sides = sides(legs);
            let mut next = 0;
            for side in &sides {
                for &i in side.iter().rev() {
                    legs[i].group = next;
                    next += 1;
                }
            }
            (next.max(1), true)
        }
        StylePattern::Bound => {
            let sides = sides(legs);
            let rows = sides.iter().map(Vec::len).max().unwrap_or(0);
            for side in &sides {
                for (from_front, &i) in side.iter().enumerate() {
                    // Rows counted from the back on every side, so uneven sides still pair
                    // their hindmost legs.
                    legs[i].group = rows - side.len() + (side.len() - 1 - from_front);
                }
            }
            (rows.max(1), true)
        }
    }
}

/// Which style a creature moving at `speed` m/s uses, `current` in use now: up to each faster
/// style whose speed it has reached, down below `HYSTERESIS` under the current one's.
pub(crate) fn wanted(styles: &[GaitStyle], current: usize, speed: f32) -> usize {
    if styles.is_empty() {
        return 0;
    }
    let mut s = current.min(styles.len() - 1);
    while s + 1 < styles.len() && speed >= styles[s + 1].speed {
        s += 1;
    }
    while s > 0 && speed < styles[s].speed * (1.0 - HYSTERESIS) {
        s -= 1;
    }
    s
}

/// Writes into `out` (a copy of the instance's `base` gait) the gait in use `mix` (0..1,
/// eased) of the way from style `from` to style `to` over `base`: each step number blended,
/// `min_grounded` the new style's. The curves are left as copied: styles do not change
/// them, and a copy is made again when the instance's gait changes
/// ([`crate::locomotion::Locomotor::gait_changed`]).
pub(crate) fn blend(
    base: &GaitParams,
    from: &GaitStyle,
    to: &GaitStyle,
    mix: f32,
    out: &mut GaitParams,
) {
    let t = mix * mix * (3.0 - 2.0 * mix);
    let pick = |a: Option<f32>, b: Option<f32>, v: f32| {
        let (a, b) = (a.unwrap_or(v), b.unwrap_or(v));
        a + (b - a) * t
    };
    out.step_trigger = pick(from.step_trigger, to.step_trigger, base.step_trigger);
    out.step_duration = pick(from.step_duration, to.step_duration, base.step_duration);
    out.step_height = pick(from.step_height, to.step_height, base.step_height);
    out.lead = pick(from.lead, to.lead, base.lead);
    out.min_grounded = to.min_grounded(base);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locomotion::def::{CreatureDef, LegDef};
    use glam::Vec3;

    fn quadruped() -> Vec<ValidLeg> {
        let mut legs = Vec::new();
        for (name, x, z) in [
            ("FL", 0.14, 0.33),
            ("FR", -0.14, 0.33),
            ("BL", 0.14, -0.33),
            ("BR", -0.14, -0.33),
        ] {
            legs.push(LegDef {
                name: name.into(),
                hip: Vec3::new(x, 0.0, z),
                rest: Vec3::new(x * 1.3, -0.5, z),
                segments: vec![0.3, 0.3],
                knee: None,
                phase: None,
            });
        }
        let def = CreatureDef {
            name: "q".into(),
            legs,
            ..Default::default()
        };
        def.validate().expect("valid").legs
    }

    fn style(name: &str) -> StyleDef {
        StyleDef {
            name: name.into(),
            ..Default::default()
        }
    }

    #[test]
    fn named_gaits_take_over_at_their_froude_numbers_with_their_patterns() {
        let legs = quadruped();
        let s = validate(&[style("gallop"), style("walk"), style("trot")], &legs, 0.5).unwrap();
        let names: Vec<&str> = s.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["walk", "trot", "gallop"]);
        let l = leg_length(&legs, 0.5);
        assert!((l - 0.5).abs() < 1e-4, "{l}");
        assert_eq!(s[0].speed, 0.0);
        assert!((s[1].speed - (0.5f32 * 9.81 * 0.5).sqrt()).abs() < 1e-3);
        assert!((s[2].speed - (2.5f32 * 9.81 * 0.5).sqrt()).abs() < 1e-3);
        // Walk: one leg at a time, left hind, left fore, right hind, right fore.
        assert_eq!(s[0].group_count, 4);
        assert_eq!(s[0].groups, [1, 3, 0, 2]);
        // Trot: diagonal pairs. Gallop: hinds, then fores.
        assert_eq!(s[1].groups[0], s[1].groups[3]);
        assert_eq!(s[1].groups[1], s[1].groups[2]);
        assert_ne!(s[1].groups[0], s[1].groups[1]);
        assert_eq!(s[2].groups, [1, 1, 0, 0]);
    }

    #[test]
    fn hysteresis_holds_a_style_near_its_boundary() {
        let legs = quadruped();
        let s = validate(&[style("walk"), style("trot")], &legs, 0.5).unwrap();
        let v = s[1].speed;
        assert_eq!(wanted(&s, 0, v * 0.99), 0);
        assert_eq!(wanted(&s, 0, v), 1);
        assert_eq!(wanted(&s, 1, v * 0.9), 1, "held inside the hysteresis");
        assert_eq!(wanted(&s, 1, v * 0.8), 0);
    }

    #[test]
    fn bad_styles_say_which_field() {
        let legs = quadruped();
        let err = |d: StyleDef| validate(&[d], &legs, 0.5).unwrap_err().field;
        assert_eq!(err(style("amble")), "gait.styles.amble.speed");
        assert_eq!(
            err(StyleDef {
                step_height: Some(0.0),
                ..style("trot")
            }),
            "gait.styles.trot.step_height"
        );
        assert_eq!(
            err(StyleDef {
                min_grounded: Some(4.0),
                ..style("trot")
            }),
            "gait.styles.trot.min_grounded"
        );
        assert_eq!(
            err(StyleDef {
                groups: Some(vec![vec!["XX".into()]]),
                ..style("trot")
            }),
            "gait.styles.trot.groups[1][1]"
        );
        let two = validate(
            &[
                StyleDef {
                    speed: Some(1.0),
                    ..style("a")
                },
                StyleDef {
                    speed: Some(1.01),
                    ..style("b")
                },
            ],
            &legs,
            0.5,
        );
        assert_eq!(two.unwrap_err().field, "gait.styles.b");
    }

    #[test]
    fn blend_eases_between_styles_and_takes_the_new_support_rule() {
        let legs = quadruped();
        let base = GaitParams {
            min_grounded: 2,
            ..GaitParams::default()
        };
        let s = validate(
            &[
                StyleDef {
                    step_duration: Some(0.4),
                    min_grounded: Some(3.0),
                    ..style("walk")
                },
                StyleDef {
                    step_duration: Some(0.2),
                    ..style("trot")
                },
            ],
            &legs,
            0.5,
        )
        .unwrap();
        let mut out = base.clone();
        blend(&base, &s[0], &s[1], 0.0, &mut out);
        assert_eq!(out.step_duration, 0.4);
        assert_eq!(out.min_grounded, 2);
        blend(&base, &s[0], &s[1], 0.5, &mut out);
        assert!((out.step_duration - 0.3).abs() < 1e-6);
        blend(&base, &s[1], &s[0], 1.0, &mut out);
        assert_eq!(out.step_duration, 0.4);
        assert_eq!(out.min_grounded, 3);
        assert_eq!(out.step_height, base.step_height, "unset: the base's");
    }
}
