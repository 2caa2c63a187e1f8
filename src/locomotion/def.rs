//! Creature definitions: the plain [`CreatureDef`] a script fills in, and the one way to turn
//! it into something the core runs, [`CreatureDef::validate`] → [`ValidCreatureDef`].
//! Every default lives here (lua-api.md: every field has a documented default).

use glam::Vec3;
use std::fmt;

pub(crate) use super::nav_def::NavDef;
pub use super::nav_def::{Heading, JumpLimits};

use super::arms::ArmDef;
pub use super::climb_def::ClimbDef;
use super::gait::GaitParams;
use super::physics::PhysicsDef;
use crate::math::ik::EvenBend;
use crate::math::Curve;

/// A rejected definition: which field (`gait.step_height`, `legs[2].rest`) and why.
#[derive(Clone, Debug, PartialEq)]
pub struct DefError {
    /// Dotted path of the offending field, Lua-style 1-based indices.
    pub field: String,
    /// What is wrong, phrased to follow "field 'x' ".
    pub message: String,
}

impl DefError {
    /// A new error for `field`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        DefError {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for DefError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "field '{}' {}", self.field, self.message)
    }
}

impl std::error::Error for DefError {}

pub use super::body_def::{BreatheDef, HeadDef, LookDef};

/// The body: an ellipsoid of `size` riding `height` above the ground.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BodyDef {
    /// Full extents (x = width, y = height, z = length), metres. Default (0.5, 0.2, 0.7).
    pub size: Vec3,
    /// Ride height of the body centre above the ground under it, metres. Default 0.35.
    pub height: f32,
    /// Mass in kg (used by physics issues later). Default 2.
    pub mass: f32,
    /// Legless flyers: metres kept above the ground. Default none.
    pub hover: Option<f32>,
    /// An explicit head (default: a small sphere at the front).
    pub head: Option<HeadDef>,
    /// A tail its generated model draws and swings (`tail = { … }`).
    #[serde(default)]
    pub tail: Option<super::ChainDef>,
    /// Antennae its generated model draws and swings (`antennae = { … }`).
    #[serde(default)]
    pub antennae: Option<super::ChainDef>,
    /// A breath at rest (`body.breathe = { rate, depth }`).
    #[serde(default)]
    pub breathe: Option<BreatheDef>,
}

impl Default for BodyDef {
    fn default() -> Self {
        BodyDef {
            size: Vec3::new(0.5, 0.2, 0.7),
            height: 0.35,
            mass: 2.0,
            hover: None,
            head: None,
            tail: None,
            antennae: None,
            breathe: None,
        }
    }
}

/// One leg as written in a script (body space).
#[derive(Clone, Debug, PartialEq)]
pub struct LegDef {
    /// Unique name inside the creature, used by `gait.groups`.
    pub name: String,
    /// Where the leg attaches, body space.
    pub hip: Vec3,
    /// Neutral foot spot, body space, on the ground plane (y = −height for a level body).
    pub rest: Vec3,
    /// Segment lengths, hip to foot (two or more).
    pub segments: Vec<f32>,
    /// Knee (pole) direction, body space. Default: up and outward from the body centre.
    pub knee: Option<Vec3>,
    /// Where in the gait cycle this leg steps, 0..1: legs of one phase step together, the
    /// phases in turn (for authors who want their own pattern). Default: none.
    pub phase: Option<f32>,
}

/// How a type's legs take turns when its `gait.groups` and legs' phases do not say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GaitPattern {
    /// Two alternating groups, by where legs are: on each side, front to back, every other
    /// leg; the two sides opposite (tripod, tetrapod, trot).
    #[default]
    Alternate,
    /// Metachronal: on each side a wave runs back to front, every fourth leg together, the
    /// two sides half a cycle apart (centipedes, millipedes).
    Wave,
}

/// Gait settings as written in a script: the per-instance parameters (defaults in
/// [`GaitParams::default`]) plus what only a type fixes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GaitDef {
    /// `step_trigger`, `step_duration`, `step_height`, `step_arc`, `speed_scale`, `lead`
    /// (see [`super::tuning::GAIT`]); its `min_grounded` is replaced by the one below.
    pub params: GaitParams,
    /// Legs that may lift together. Default: two alternating groups (tripod/tetrapod order).
    pub groups: Option<Vec<Vec<String>>>,
    /// Feet that must stay planted. Default: half the legs, rounded down.
    pub min_grounded: Option<f32>,
    /// How legs take turns when neither groups nor phases are given.
    pub pattern: GaitPattern,
    /// Styles by speed (`gait.styles`); none: one style at every speed.
    pub styles: Vec<super::style::StyleDef>,
}

/// Lean settings (applied by the lean layer; validated and kept now).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LeanDef {
    /// Roll degrees per deg/s of yaw rate.
    pub turn_gain: f32,
    /// Largest turn roll, degrees.
    pub turn_max: f32,
    /// Turn-roll factor over speed.
    pub turn_speed: Curve,
    /// Pitch degrees per m/s² of forward acceleration.
    pub accel_gain: f32,
    /// Acceleration-pitch factor over speed (default 1 everywhere).
    pub accel_speed: Curve,
    /// Largest acceleration pitch, degrees.
    pub accel_max: f32,
    /// Pitch while rising, degrees.
    pub rise: f32,
    /// Pitch while falling, degrees.
    pub fall: f32,
    /// Pitch peak on landing, degrees.
    pub land: f32,
    /// Degrees per unit of hit strength.
    pub hit_gain: f32,
    /// Largest hit lean, degrees.
    pub hit_max: f32,
    /// Push speed per unit of hit strength, m/s (the body is moved, not only tilted).
    pub hit_push: f32,
    /// Spring time constant, seconds.
    pub response: f32,
    /// Damping ratio (1 = no overshoot).
    pub damping: f32,
    /// Low-pass cutoff on the yaw rate, Hz.
    pub filter_hz: f32,
}

impl Default for LeanDef {
    fn default() -> Self {
        LeanDef {
            turn_gain: 0.1,
            turn_max: 20.0,
            turn_speed: Curve::Smoothstep { x0: 0.2, x1: 1.5 },
            accel_gain: 2.0,
            accel_speed: Curve::Constant(1.0),
            accel_max: 10.0,
            rise: -5.0,
            fall: 10.0,
            land: 15.0,
            hit_gain: 15.0,
            hit_max: 35.0,
            hit_push: 1.0,
            response: 0.1,
            damping: 0.8,
            filter_hz: 8.0,
        }
    }
}

impl LeanDef {
    /// Checks every field (the same rules for a type's `lean` table and for `c.lean` edits).
    pub fn validate(&self) -> Result<(), DefError> {
        super::tuning::check_all(super::tuning::LEAN, "lean", self)
    }
}

/// A creature type as a script wrote it. Turn it into a [`ValidCreatureDef`] with `validate`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CreatureDef {
    /// Type name, unique inside its mod.
    pub name: String,
    /// Body.
    pub body: BodyDef,
    /// Legs (may be empty for a flyer).
    pub legs: Vec<LegDef>,
    /// Arms (hang and swing; rigid parts in physics).
    pub arms: Vec<ArmDef>,
    /// Gait.
    pub gait: GaitDef,
    /// Lean.
    pub lean: LeanDef,
    /// Navigation and steering.
    pub nav: NavDef,
    /// Active ragdoll tuning.
    pub physics: PhysicsDef,
    /// Climbing (`None`: a walker, on floors only).
    pub climb: Option<ClimbDef>,
}

/// A validated leg with derived quantities.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ValidLeg {
    /// Name.
    pub name: String,
    /// Hip, body space.
    pub hip: Vec3,
    /// Rest spot, body space.
    pub rest: Vec3,
    /// Segment lengths (≥ 2, all > 0).
    pub segments: Vec<f32>,
    /// Sum of the segments.
    pub length: f32,
    /// Unit knee direction, body space.
    pub knee: Vec3,
    /// Index of the gait group this leg belongs to.
    pub group: usize,
    /// Legs of three or more segments: their even bend, tabulated (see [`EvenBend`]).
    /// Not sent over the network: a viewer tabulates it again ([`ValidCreatureDef::from_bytes`]).
    #[serde(skip)]
    pub(crate) bend: Option<std::sync::Arc<EvenBend>>,
}

/// The knee direction of a leg that states none: up and out toward its rest spot.
pub fn default_knee(rest: Vec3) -> Vec3 {
    let out = Vec3::new(rest.x, 0.0, rest.z).normalize_or_zero();
    (Vec3::Y + out).normalize()
}

/// A creature type the core can run: every number finite and in range, every name resolved.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ValidCreatureDef {
    /// Type name (unqualified).
    pub name: String,
    /// Body.
    pub body: BodyDef,
    /// Legs.
    pub legs: Vec<ValidLeg>,
    /// Arms.
    pub arms: Vec<ArmDef>,
    /// Number of gait groups (legs named in no group get one each).
    pub group_count: usize,
    /// Groups take turns in index order (a wave, or phases), not only by urgency.
    pub ordered_groups: bool,
    /// Default gait parameters for instances (each instance may override them).
    pub gait: GaitParams,
    /// Gait styles, slowest first (empty: the gait above at every speed).
    #[serde(default)]
    pub styles: Vec<super::style::GaitStyle>,
    /// Lean settings.
    pub lean: LeanDef,
    /// Navigation and steering.
    pub nav: NavDef,
    /// Active ragdoll tuning.
    pub physics: PhysicsDef,
    /// Climbing (`None`: a walker).
    pub climb: Option<ClimbDef>,
}

impl ValidCreatureDef {
    /// The definition as bytes (postcard): what a server sends a viewer, a type as data.
    pub fn to_bytes(&self) -> Vec<u8> {
        postcard::to_allocvec(self).unwrap_or_default()
    }

    /// A definition sent as [`ValidCreatureDef::to_bytes`], with what is derived from it
    /// (a long leg's tabulated bend) made again. `None` when the bytes are not one.
    pub fn from_bytes(bytes: &[u8]) -> Option<ValidCreatureDef> {
        let mut def: ValidCreatureDef = postcard::from_bytes(bytes).ok()?;
        for leg in &mut def.legs {
            if leg.segments.len() < 2 || leg.segments.iter().any(|s| !(*s > 0.0)) {
                return None;
            }
            leg.bend =
                (leg.segments.len() > 2).then(|| std::sync::Arc::new(EvenBend::new(&leg.segments)));
        }
        Some(def)
    }
}

/// The legs of each side (x ≥ 0 is the left), each side front to back: by their hips, and
/// where hips coincide (on the centre line, or all at one point as in rigs whose legs all
/// start at the body bone) by their rest spots.
pub(crate) fn sides(legs: &[ValidLeg]) -> [Vec<usize>; 2] {
    let mut sides: [Vec<usize>; 2] = [Vec::new(), Vec::new()];
    for (i, l) in legs.iter().enumerate() {
        let x = if l.hip.x.abs() < 1e-3 {
            l.rest.x
        } else {
            l.hip.x
        };
        sides[usize::from(x < 0.0)].push(i);
    }
    for side in sides.iter_mut() {
        side.sort_by(|a, b| {
            let (la, lb) = (&legs[*a], &legs[*b]);
            let z = |l: &ValidLeg, o: &ValidLeg| {
                if (l.hip.z - o.hip.z).abs() < 1e-3 {
                    l.rest.z
                } else {
                    l.hip.z
                }
            };
            z(lb, la).total_cmp(&z(la, lb)).then(a.cmp(b))
        });
    }
    sides
}

/// Two alternating groups by where the legs are, whatever order they are listed in: on each
/// side front to back every other leg, the right side opposite the left. Returns 2 (1 for a
/// single leg).
pub(crate) fn alternate_groups(legs: &mut [ValidLeg]) -> usize {
    let sides = sides(legs);
    for (s, side) in sides.iter().enumerate() {
        for (rank, &i) in side.iter().enumerate() {
            legs[i].group = (rank + s) % 2;
        }
    }
    legs.iter().map(|l| l.group + 1).max().unwrap_or(0)
}

/// A metachronal wave: on each side, ranked from the back, leg `r` steps in turn `r mod K`
/// (K = 4, fewer for short sides), the right side half a cycle after the left. Returns K.
pub(crate) fn wave_groups(legs: &mut [ValidLeg]) -> usize {
    let sides = sides(legs);
    let per_side = sides.iter().map(Vec::len).max().unwrap_or(0);
    let k = per_side.clamp(2, 4);
    for (s, side) in sides.iter().enumerate() {
        for (from_front, &i) in side.iter().enumerate() {
            let from_back = side.len() - 1 - from_front;
            legs[i].group = (from_back + s * k / 2) % k;
        }
    }
    k
}

/// Puts the legs `groups` names in those groups (`field` names the list in errors); legs
/// named in none get a group each. Returns the number of groups.
pub(crate) fn named_groups(
    groups: &[Vec<String>],
    legs: &mut [ValidLeg],
    field: &str,
) -> Result<usize, DefError> {
    for (g, names) in groups.iter().enumerate() {
        for (k, name) in names.iter().enumerate() {
            let at = format!("{field}[{}][{}]", g + 1, k + 1);
            let Some(li) = legs.iter().position(|l| &l.name == name) else {
                let known: Vec<&str> = legs.iter().map(|l| l.name.as_str()).collect();
                return Err(DefError::new(
                    at,
                    format!("names no leg: \"{name}\" (legs are {})", known.join(", ")),
                ));
            };
            if legs[li].group != usize::MAX && legs[li].group != g {
                return Err(DefError::new(
                    at,
                    format!("leg \"{name}\" is already in group {}", legs[li].group + 1),
                ));
            }
            legs[li].group = g;
        }
    }
    let mut count = groups.len();
    for leg in legs.iter_mut() {
        if leg.group == usize::MAX {
            leg.group = count;
            count += 1;
        }
    }
    Ok(count)
}

/// `v` finite.
pub(crate) fn finite(field: &str, v: f32) -> Result<f32, DefError> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(DefError::new(
            field,
            format!("must be a finite number, got {v}"),
        ))
    }
}

/// `v > 0` and finite.
pub(crate) fn positive(field: &str, v: f32) -> Result<f32, DefError> {
    finite(field, v)?;
    if v > 0.0 {
        Ok(v)
    } else {
        Err(DefError::new(field, format!("must be > 0, got {v}")))
    }
}

/// `v >= 0` and finite.
pub(crate) fn non_negative(field: &str, v: f32) -> Result<f32, DefError> {
    finite(field, v)?;
    if v >= 0.0 {
        Ok(v)
    } else {
        Err(DefError::new(field, format!("must be >= 0, got {v}")))
    }
}

/// Every component finite.
pub(crate) fn finite_vec(field: &str, v: Vec3) -> Result<Vec3, DefError> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(DefError::new(
            field,
            format!(
                "must have finite components, got ({}, {}, {})",
                v.x, v.y, v.z
            ),
        ))
    }
}

pub(crate) fn valid_name(field: &str, name: &str) -> Result<(), DefError> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(DefError::new(
            field,
            format!("must be a non-empty name of letters, digits, '_' or '-', got \"{name}\""),
        ));
    }
    Ok(())
}

impl CreatureDef {
    /// Checks every field and resolves names; the only way to a [`ValidCreatureDef`].
    pub fn validate(&self) -> Result<ValidCreatureDef, DefError> {
        valid_name("name", &self.name)?;
        self.validate_body()?;
        let mut legs = Vec::with_capacity(self.legs.len());
        for i in 0..self.legs.len() {
            legs.push(self.valid_leg(i)?);
        }
        let (group_count, ordered_groups) = self.assign_groups(&mut legs)?;
        let gait = self.valid_gait(legs.len())?;
        let styles = super::style::validate(&self.gait.styles, &legs, self.body.height)?;
        self.lean.validate()?;
        self.nav.validate()?;
        self.validate_hover()?;
        let names: Vec<&str> = self.legs.iter().map(|l| l.name.as_str()).collect();
        self.physics.validate(&names)?;
        super::arms::validate(&self.arms, &names)?;
        if let Some(c) = &self.climb {
            c.validate()?;
            if self.legs.is_empty() {
                return Err(DefError::new(
                    "climb",
                    "is for creatures with legs (a climber holds on with its feet)",
                ));
            }
        }
        Ok(ValidCreatureDef {
            name: self.name.clone(),
            body: self.body.clone(),
            legs,
            group_count,
            ordered_groups,
            gait,
            styles,
            lean: self.lean.clone(),
            nav: self.walkable_nav(),
            physics: self.physics.clone(),
            arms: self.arms.clone(),
            climb: self.climb.clone(),
        })
    }

    /// The `nav` settings the core runs: a climber of slopes (`climb.max_angle` under 90°)
    /// walks, and is routed on, slopes up to its `max_angle` whatever `nav.max_slope` says.
    fn walkable_nav(&self) -> NavDef {
        let mut nav = self.nav.clone();
        if let Some(c) = self.climb.as_ref().filter(|c| c.max_angle < 90.0) {
            nav.max_slope = nav.max_slope.max(c.max_angle);
        }
        nav
    }

    /// A legless creature keeps `body.hover` above the ground; a legged one rides at
    /// `body.height` on its legs (hover would be ignored): both said, never silent.
    fn validate_hover(&self) -> Result<(), DefError> {
        match (self.legs.is_empty(), self.body.hover) {
            (true, None) => Err(DefError::new(
                "body.hover",
                "is required for a creature with no legs (metres it keeps above the ground, e.g. hover = 1)",
            )),
            (false, Some(_)) => Err(DefError::new(
                "body.hover",
                "is for creatures with no legs; a legged one rides at body.height on its feet",
            )),
            _ => Ok(()),
        }
    }

    fn validate_body(&self) -> Result<(), DefError> {
        let b = &self.body;
        let size = finite_vec("body.size", b.size)?;
        if size.min_element() <= 0.0 {
            return Err(DefError::new("body.size", "must have every component > 0"));
        }
        positive("body.height", b.height)?;
        positive("body.mass", b.mass)?;
        if let Some(h) = b.hover {
            positive("body.hover", h)?;
        }
        if let Some(h) = &b.head {
            finite_vec("body.head.offset", h.offset)?;
            let hs = finite_vec("body.head.size", h.size)?;
            if hs.min_element() <= 0.0 {
                return Err(DefError::new(
                    "body.head.size",
                    "must have every component > 0",
                ));
            }
            if !(0.0..=1.0).contains(&h.counter_yaw) {
                return Err(DefError::new(
                    "body.head.counter_yaw",
                    format!("must be between 0 and 1, got {}", h.counter_yaw),
                ));
            }
            let l = &h.look;
            let deg = |r: f32| r.to_degrees().round();
            if !(0.0..=std::f32::consts::PI + 1e-4).contains(&l.max_yaw) {
                return Err(DefError::new(
                    "body.head.look.max_yaw",
                    format!("must be between 0 and 180 degrees, got {}", deg(l.max_yaw)),
                ));
            }
            if !(0.0..=std::f32::consts::FRAC_PI_2 + 1e-4).contains(&l.max_pitch) {
                return Err(DefError::new(
                    "body.head.look.max_pitch",
                    format!("must be between 0 and 90 degrees, got {}", deg(l.max_pitch)),
                ));
            }
            if !(l.speed > 0.0 && l.speed.is_finite()) {
                return Err(DefError::new(
                    "body.head.look.speed",
                    format!("must be > 0 degrees a second, got {}", deg(l.speed)),
                ));
            }
        }

        if let Some(b) = &self.body.breathe {
            if !(b.rate > 0.0 && b.rate <= 5.0) {
                return Err(DefError::new(
                    "body.breathe.rate",
                    format!("must be > 0 and ≤ 5 (breaths a second), got {}", b.rate),
                ));
            }
            if !(b.depth >= 0.0 && b.depth <= 0.5 * self.body.size.y) {
                return Err(DefError::new(
                    "body.breathe.depth",
                    format!(
                        "must be between 0 and half the body's height ({} m), got {}",
                        0.5 * self.body.size.y,
                        b.depth
                    ),
                ));
            }
        }
        if let Some(t) = &self.body.tail {
            t.check("tail")?;
        }
        if let Some(a) = &self.body.antennae {
            a.check("antennae")?;
        }
        Ok(())
    }

    /// Leg `i`, checked (its name unique, its rest within reach) with its knee direction.
    fn valid_leg(&self, i: usize) -> Result<ValidLeg, DefError> {
        let leg = &self.legs[i];
        let at = |f: &str| format!("legs[{}].{f}", i + 1);
        valid_name(&at("name"), &leg.name)?;
        if let Some(j) = self.legs[..i].iter().position(|l| l.name == leg.name) {
            return Err(DefError::new(
                at("name"),
                format!("\"{}\" is already the name of legs[{}]", leg.name, j + 1),
            ));
        }
        let hip = finite_vec(&at("hip"), leg.hip)?;
        let rest = finite_vec(&at("rest"), leg.rest)?;
        if leg.segments.len() < 2 {
            return Err(DefError::new(
                at("segments"),
                format!("needs at least 2 lengths, got {}", leg.segments.len()),
            ));
        }
        for (k, s) in leg.segments.iter().enumerate() {
            positive(&format!("legs[{}].segments[{}]", i + 1, k + 1), *s)?;
        }
        let length: f32 = leg.segments.iter().sum();
        let longest = leg.segments.iter().cloned().fold(0.0f32, f32::max);
        let shortest_reach = (2.0 * longest - length).max(0.0);
        let d = hip.distance(rest);
        if d > 0.98 * length {
            return Err(DefError::new(
                at("rest"),
                format!("is out of reach: {d:.3} m from the hip, but the leg is {length:.3} m long (keep it under 98%)"),
            ));
        }
        if d < shortest_reach + 0.01 * length {
            return Err(DefError::new(
                at("rest"),
                format!("is too close to the hip ({d:.3} m): the leg cannot fold that far"),
            ));
        }
        // Where the foot really stands: under its rest spot, on the ground `body.height`
        // below the body.
        let standing = Vec3::new(rest.x, -self.body.height, rest.z);
        let ds = hip.distance(standing);
        if ds > 0.98 * length {
            return Err(DefError::new(
                at("rest"),
                format!("is out of reach once the creature stands at body.height ({}): the foot on the ground is {ds:.3} m from the hip, the leg {length:.3} m long (keep it under 98%)", self.body.height),
            ));
        }
        let knee = match leg.knee {
            Some(k) => {
                let k = finite_vec(&at("knee"), k)?;
                if k.length_squared() < 1e-8 {
                    return Err(DefError::new(at("knee"), "must not be the zero vector"));
                }
                k.normalize()
            }
            None => default_knee(rest),
        };
        Ok(ValidLeg {
            name: leg.name.clone(),
            hip,
            rest,
            segments: leg.segments.clone(),
            length,
            knee,
            group: usize::MAX,
            bend: (leg.segments.len() > 2)
                .then(|| std::sync::Arc::new(EvenBend::new(&leg.segments))),
        })
    }

    /// Puts each leg in its gait group: the named groups (legs not named get one each), or
    /// two alternating groups in the order legs are listed. Returns the number of groups.
    fn assign_groups(&self, legs: &mut [ValidLeg]) -> Result<(usize, bool), DefError> {
        let phased = self.legs.iter().position(|l| l.phase.is_some());
        if let (Some(_), Some(i)) = (&self.gait.groups, phased) {
            return Err(DefError::new(
                format!("legs[{}].phase", i + 1),
                "cannot be given with gait.groups (say the pattern one way)",
            ));
        }
        if phased.is_some() {
            return self.groups_by_phase(legs).map(|n| (n, true));
        }
        if self.gait.groups.is_none() && self.gait.pattern == GaitPattern::Wave {
            return Ok((wave_groups(legs), true));
        }
        let group_count = match &self.gait.groups {
            Some(groups) => named_groups(groups, legs, "gait.groups")?,
            None => alternate_groups(legs),
        };
        Ok((group_count, false))
    }

    /// Groups from `legs[i].phase` (every leg needs one): equal phases step together, the
    /// phases in ascending order.
    fn groups_by_phase(&self, legs: &mut [ValidLeg]) -> Result<usize, DefError> {
        let mut phases: Vec<u32> = Vec::new();
        let mut keys = Vec::with_capacity(legs.len());
        for (i, l) in self.legs.iter().enumerate() {
            let field = format!("legs[{}].phase", i + 1);
            let p = l.phase.ok_or_else(|| {
                DefError::new(&field, "is required on every leg once one leg has a phase")
            })?;
            if !(0.0..1.0).contains(&p) {
                return Err(DefError::new(field, format!("must be in [0, 1), got {p}")));
            }
            let key = (p * 1000.0).round() as u32;
            keys.push(key);
            if !phases.contains(&key) {
                phases.push(key);
            }
        }
        phases.sort_unstable();
        for (leg, key) in legs.iter_mut().zip(keys) {
            leg.group = phases.iter().position(|p| *p == key).unwrap_or(0);
        }
        Ok(phases.len())
    }

    /// The gait parameters for `n` legs (`min_grounded` defaults to half of them).
    fn valid_gait(&self, n: usize) -> Result<GaitParams, DefError> {
        let min_grounded = match self.gait.min_grounded {
            None => n / 2,
            Some(m) => {
                finite("gait.min_grounded", m)?;
                if m < 0.0 || m.fract() != 0.0 {
                    return Err(DefError::new(
                        "gait.min_grounded",
                        format!("must be a whole number >= 0, got {m}"),
                    ));
                }
                m as usize
            }
        };
        let gait = GaitParams {
            min_grounded,
            ..self.gait.params.clone()
        };
        gait.validate(n)?;

        Ok(gait)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The contract's 8-legged spider.
    pub(crate) fn spider() -> CreatureDef {
        let mut legs = Vec::new();
        for (i, z) in [0.25f32, 0.08, -0.08, -0.25].iter().enumerate() {
            let rz = [0.6f32, 0.2, -0.2, -0.6][i];
            for (side, sx) in [("L", 1.0f32), ("R", -1.0)] {
                legs.push(LegDef {
                    name: format!("{side}{}", i + 1),
                    hip: Vec3::new(0.15 * sx, 0.0, *z),
                    rest: Vec3::new(0.65 * sx, -0.35, rz),
                    segments: vec![0.45, 0.55],
                    knee: None,
                    phase: None,
                });
            }
        }
        CreatureDef {
            name: "spider".into(),
            legs,
            ..Default::default()
        }
    }

    fn err_field(def: &CreatureDef) -> String {
        match def.validate() {
            Ok(_) => panic!("expected an error"),
            Err(e) => e.field,
        }
    }

    #[test]
    fn default_groups_follow_where_legs_are_not_how_they_are_listed() {
        let mut d = spider();
        let listed = d.validate().expect("valid");
        d.legs.reverse();
        let reversed = d.validate().expect("valid");
        let group_of = |v: &ValidCreatureDef, name: &str| {
            v.legs.iter().find(|l| l.name == name).map(|l| l.group)
        };
        for l in &listed.legs {
            assert_eq!(group_of(&reversed, &l.name), Some(l.group), "{}", l.name);
        }
        // Tetrapod: on each side every other leg, the two sides opposite.
        assert_ne!(group_of(&listed, "L1"), group_of(&listed, "L2"));
        assert_ne!(group_of(&listed, "L1"), group_of(&listed, "R1"));
        assert!(!listed.ordered_groups);
    }

    #[test]
    fn legs_that_all_start_at_one_point_are_grouped_by_where_their_feet_stand() {
        // A rig whose leg chains all start at the body bone (the shared spider model).
        let mut d = spider();
        for l in d.legs.iter_mut() {
            l.hip = Vec3::ZERO;
        }
        let v = d.validate().expect("valid");
        let g = |name: &str| v.legs.iter().find(|l| l.name == name).map(|l| l.group);
        assert_ne!(g("L1"), g("L2"));
        assert_eq!(g("L1"), g("L3"));
        assert_ne!(g("L1"), g("R1"));
        assert_eq!(g("L1"), g("R2"));
    }

    #[test]
    fn a_wave_runs_back_to_front_and_phases_make_ordered_groups() {
        let mut d = spider();
        d.gait.pattern = GaitPattern::Wave;
        let v = d.validate().expect("valid");
        assert!(v.ordered_groups);
        assert_eq!(v.group_count, 4);
        let g = |name: &str| v.legs.iter().find(|l| l.name == name).map(|l| l.group);
        // Left legs from the back: L4 turn 0, L3 turn 1, L2 turn 2, L1 turn 3; the right
        // side half a cycle later.
        assert_eq!(
            [g("L4"), g("L3"), g("L2"), g("L1")],
            [Some(0), Some(1), Some(2), Some(3)]
        );
        assert_eq!(g("R4"), Some(2));
        let mut p = spider();
        for (i, l) in p.legs.iter_mut().enumerate() {
            l.phase = Some(if i % 2 == 0 { 0.5 } else { 0.0 });
        }
        let v = p.validate().expect("valid");
        assert_eq!(v.group_count, 2);
        assert_eq!(v.legs[1].group, 0, "the smaller phase goes first");
        p.legs[3].phase = None;
        assert_eq!(err_field(&p), "legs[4].phase");
        p.legs[3].phase = Some(1.5);
        assert_eq!(err_field(&p), "legs[4].phase");
        p.legs[3].phase = Some(0.5);
        p.gait.groups = Some(vec![vec!["L1".into()]]);
        assert_eq!(err_field(&p), "legs[1].phase");
    }

    #[test]
    fn default_spider_is_valid_with_alternating_groups() {
        let v = spider().validate().expect("valid");
        assert_eq!(v.group_count, 2);
        let g: Vec<usize> = v.legs.iter().map(|l| l.group).collect();
        assert_eq!(g, vec![0, 1, 1, 0, 0, 1, 1, 0]);
        assert_eq!(v.gait.min_grounded, 4);
        assert!(v
            .legs
            .iter()
            .all(|l| (l.knee.length() - 1.0).abs() < 1e-5 && l.knee.y > 0.0));
    }

    #[test]
    fn bad_fields_are_named() {
        let mut d = spider();
        d.legs[1].segments[0] = -0.4;
        assert_eq!(err_field(&d), "legs[2].segments[1]");
        let mut d = spider();
        d.legs[0].rest = Vec3::new(3.0, -0.35, 0.0);
        assert_eq!(err_field(&d), "legs[1].rest");
        let mut d = spider();
        d.gait.groups = Some(vec![vec!["L1".into(), "X9".into()]]);
        assert_eq!(err_field(&d), "gait.groups[1][2]");
        let mut d = spider();
        d.gait.params.step_height = f32::NAN;
        assert_eq!(err_field(&d), "gait.step_height");
        let mut d = spider();
        d.gait.min_grounded = Some(8.0);
        assert_eq!(err_field(&d), "gait.min_grounded");
        let mut d = spider();
        d.legs[3].name = "L1".into();
        assert_eq!(err_field(&d), "legs[4].name");
        let mut d = spider();
        d.body.size = Vec3::new(0.5, 0.0, 0.7);
        assert_eq!(err_field(&d), "body.size");
        let mut d = spider();
        d.nav.max_slope = 95.0;
        assert_eq!(err_field(&d), "nav.max_slope");
        let e = {
            let mut d = spider();
            d.gait.params.step_height = 0.0;
            d.validate().err().map(|e| e.to_string())
        };
        assert_eq!(
            e.as_deref(),
            Some("field 'gait.step_height' must be > 0, got 0")
        );
    }
}
