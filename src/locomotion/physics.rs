//! The `physics = { … }` section of a creature type: how its active ragdoll is built and
//! driven (seed 003). Plain data and its validation; the sim layer builds the rigid bodies.
//!
//! Muscles are implicit springs per joint (rapier's force-based motors, N·m/rad): at live
//! strength `s` a joint pulls toward the standing pose with `s × stiffness`,
//! `s × damping` and at most `s × max_torque`. Unset numbers are sized from the weight
//! each leg carries (see [`PhysicsDef::muscle_for`]).

use glam::Vec3;

use super::def::{finite, non_negative, positive, DefError};

/// Gravity the rigs fall under, m/s² (the same as the locomotor's fall).
pub(crate) const GRAVITY: f32 = crate::math::ballistic::GRAVITY;

/// One joint's muscle: stiffness (N·m/rad), damping (N·m·s/rad), max torque (N·m).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Muscle {
    /// Spring stiffness at strength 1.
    pub stiffness: f32,
    /// Spring damping at strength 1.
    pub damping: f32,
    /// Torque cap at strength 1.
    pub max_torque: f32,
}

/// A per-joint override: `joints = { hip = {…}, knee = {…}, ["L1.knee"] = {…} }`.
/// Absent numbers keep the section's values.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct JointOverride {
    /// `hip`, `knee`, or `LEG.hip` / `LEG.knee` (a knee override covers every joint
    /// below the hip of a leg of three or more segments).
    pub key: String,
    /// Stiffness override.
    pub stiffness: Option<f32>,
    /// Damping override.
    pub damping: Option<f32>,
    /// Max torque override.
    pub max_torque: Option<f32>,
}

/// The `physics` section, as written (every field optional) and after validation.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PhysicsDef {
    /// Muscle stiffness at strength 1 (N·m/rad); `None`: sized from the weight.
    pub stiffness: Option<f32>,
    /// Muscle damping at strength 1 (N·m·s/rad); `None`: `0.1 × stiffness`.
    pub damping: Option<f32>,
    /// Muscle torque cap at strength 1 (N·m); `None`: `3 × weight per leg × leg length`.
    pub max_torque: Option<f32>,
    /// Per-joint overrides.
    pub joints: Vec<JointOverride>,
    /// Hip swing limit either way from the standing pose, degrees.
    pub hip_swing: f32,
    /// Hip twist limit either way, degrees.
    pub hip_twist: f32,
    /// Knee bend range (0 = straight, positive = the way it bends standing), degrees.
    pub knee: [f32; 2],
    /// A hit at or above this strength (`c:hit`) throws the creature into physics.
    pub hit_threshold: f32,
    /// Impulse per unit of hit strength, N·s (`None`: `body.mass × lean.hit.push`, the push
    /// an animated creature gets, so a hit moves a ragdoll as it moves a walker).
    pub hit_impulse: Option<f32>,
    /// Seconds limp before the first try to get up (and between tries).
    pub getup_delay: f32,
    /// Seconds a try to get up takes before it is judged.
    pub recovery_time: f32,
    /// Tries before the creature gives up and stays limp.
    pub recovery_tries: u32,
    /// Strength of the muscles while limp after a hit (0..1).
    pub limp_strength: f32,
    /// Friction of every part.
    pub friction: f32,
    /// Balance help (0..1): lift and upright drive on the body while its muscles are at
    /// least half strength, for stances that cannot stand alone. `None`: 1 for creatures
    /// of fewer than three legs, 0 otherwise.
    pub balance: Option<f32>,
    /// The radius of the limbs' capsules in physics (m). Default: from the longest leg; a
    /// model's type gets its limbs' own thickness (from the vertices on its leg bones).
    pub limb_radius: Option<f32>,
    /// Each leg segment's own capsule radius (leg by leg; a model's bones' thickness). Empty:
    /// every segment `limb_radius`.
    pub limb_radii: Vec<Vec<f32>>,
}

impl Default for PhysicsDef {
    fn default() -> Self {
        PhysicsDef {
            stiffness: None,
            damping: None,
            max_torque: None,
            joints: Vec::new(),
            hip_swing: 80.0,
            hip_twist: 30.0,
            knee: [-10.0, 165.0],
            hit_threshold: 3.0,
            hit_impulse: None,
            getup_delay: 1.0,
            recovery_time: 1.2,
            recovery_tries: 3,
            limp_strength: 0.05,
            friction: 0.8,
            balance: None,
            limb_radius: None,
            limb_radii: Vec::new(),
        }
    }
}

/// Which joint of a leg a muscle drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum JointKind {
    /// Where the leg meets the body (spherical).
    Hip,
    /// Any joint below the hip (revolute about the leg's bend axis).
    Knee,
    /// Where an arm meets the body (spherical).
    Shoulder,
    /// Any joint below the shoulder (revolute).
    Elbow,
}

impl JointKind {
    fn name(self) -> &'static str {
        match self {
            JointKind::Hip => "hip",
            JointKind::Knee => "knee",
            JointKind::Shoulder => "shoulder",
            JointKind::Elbow => "elbow",
        }
    }
}

const MAX_STIFFNESS: f32 = 1e6;
const MAX_TORQUE: f32 = 1e6;

fn muscle_number(field: &str, v: Option<f32>, max: f32) -> Result<(), DefError> {
    if let Some(v) = v {
        non_negative(field, v)?;
        if v > max {
            return Err(DefError::new(
                field,
                format!("must be <= {max:e}, got {v:e}"),
            ));
        }
    }
    Ok(())
}

fn within(field: &str, v: f32, lo: f32, hi: f32) -> Result<(), DefError> {
    finite(field, v)?;
    if !(lo..=hi).contains(&v) {
        return Err(DefError::new(
            field,
            format!("must be between {lo} and {hi}, got {v}"),
        ));
    }
    Ok(())
}

impl PhysicsDef {
    /// Checks every field; `legs` are the creature's leg names (override keys must match).
    pub fn validate(&self, legs: &[&str]) -> Result<(), DefError> {
        muscle_number("physics.stiffness", self.stiffness, MAX_STIFFNESS)?;
        muscle_number("physics.damping", self.damping, MAX_STIFFNESS)?;
        muscle_number("physics.max_torque", self.max_torque, MAX_TORQUE)?;
        for o in &self.joints {
            let f = |k: &str| format!("physics.joints.{}.{k}", o.key);
            let (leg, joint) = match o.key.split_once('.') {
                Some((l, j)) => (Some(l), j),
                None => (None, o.key.as_str()),
            };
            if !["hip", "knee", "shoulder", "elbow"].contains(&joint) {
                return Err(DefError::new(
                    format!("physics.joints.{}", o.key),
                    "must name a joint: 'hip', 'knee', 'shoulder', 'elbow', or 'LIMB.hip' / 'LIMB.knee' / 'ARM.shoulder' / 'ARM.elbow'",
                ));
            }
            if let Some(l) = leg {
                if !legs.contains(&l) {
                    return Err(DefError::new(
                        format!("physics.joints.{}", o.key),
                        format!("names no leg (legs: {})", legs.join(", ")),
                    ));
                }
            }
            muscle_number(&f("stiffness"), o.stiffness, MAX_STIFFNESS)?;
            muscle_number(&f("damping"), o.damping, MAX_STIFFNESS)?;
            muscle_number(&f("max_torque"), o.max_torque, MAX_TORQUE)?;
        }
        within("physics.limits.hip", self.hip_swing, 0.0, 170.0)?;
        within("physics.limits.twist", self.hip_twist, 0.0, 170.0)?;
        within("physics.limits.knee[1]", self.knee[0], -180.0, 180.0)?;
        within("physics.limits.knee[2]", self.knee[1], -180.0, 180.0)?;
        if self.knee[0] > self.knee[1] {
            return Err(DefError::new(
                "physics.limits.knee",
                format!(
                    "must be {{min, max}} with min <= max, got {{{}, {}}}",
                    self.knee[0], self.knee[1]
                ),
            ));
        }
        positive("physics.hit_threshold", self.hit_threshold)?;
        if let Some(j) = self.hit_impulse {
            positive("physics.hit_impulse", j)?;
        }
        within("physics.getup_delay", self.getup_delay, 0.0, 60.0)?;
        within("physics.recovery_time", self.recovery_time, 0.2, 30.0)?;
        if self.recovery_tries > 100 {
            return Err(DefError::new(
                "physics.recovery_tries",
                format!("must be between 0 and 100, got {}", self.recovery_tries),
            ));
        }
        within("physics.limp_strength", self.limp_strength, 0.0, 1.0)?;
        within("physics.friction", self.friction, 0.0, 10.0)?;
        if let Some(b) = self.balance {
            within("physics.balance", b, 0.0, 1.0)?;
        }
        Ok(())
    }

    /// The muscle of `leg`'s `kind` joint at strength 1. Defaults, sized from the weight a
    /// leg carries standing (`w = body.mass × g / legs`) and the leg's length `l`:
    /// stiffness `20 × w × l` (a 5 % sag under the leg's share of the weight), damping
    /// `0.1 × stiffness`, max torque `3 × w × l`. Then the section's numbers, then the
    /// joint's kind override (`knee`), then the leg's own (`L1.knee`).
    /// An arm's joints are sized the same way from the arm's own weight (`carried` = the
    /// arm's mass, `count` = 1).
    pub fn muscle_for(
        &self,
        carried: f32,
        count: usize,
        leg_name: &str,
        leg_length: f32,
        kind: JointKind,
    ) -> Muscle {
        let w = carried * GRAVITY / count.max(1) as f32;
        let stiffness = self.stiffness.unwrap_or(60.0 * w * leg_length);
        let mut m = Muscle {
            stiffness,
            damping: self.damping.unwrap_or(0.1 * stiffness),
            max_torque: self.max_torque.unwrap_or(3.0 * w * leg_length),
        };
        let own = format!("{leg_name}.{}", kind.name());
        for key in [kind.name(), own.as_str()] {
            if let Some(o) = self.joints.iter().find(|o| o.key == key) {
                m.stiffness = o.stiffness.unwrap_or(m.stiffness);
                m.damping = o.damping.unwrap_or(m.damping);
                m.max_torque = o.max_torque.unwrap_or(m.max_torque);
            }
        }
        m
    }

    /// Balance help for a creature of `legs` legs (0..1).
    pub fn balance_for(&self, legs: usize) -> f32 {
        self.balance.unwrap_or(if legs < 3 { 1.0 } else { 0.0 })
    }

    /// Impulse of a hit of `strength`, N·s.
    pub fn impulse_of(&self, strength: f32, body_mass: f32, hit_push: f32) -> f32 {
        strength * self.hit_impulse.unwrap_or(body_mass * hit_push)
    }
}

/// A part's shape radius for a leg of `length` (as drawn).
pub(crate) fn limb_radius(longest: f32) -> f32 {
    (longest * 0.035).clamp(0.01, 0.08)
}

/// The mass rule: the legs together take `n / (n + 4)` of `body.mass` (a quarter per leg
/// against the body, so a biped's body holds 2/3, a spider's 1/3), each leg an equal
/// share split over its segments by length; each arm takes [`ARM_SHARE`] of `body.mass`
/// from the body's share; then each part is raised so no parent is more than
/// [`MAX_MASS_RATIO`] times its child, and all are scaled back to `body.mass`. Returns the
/// body's mass and, limb by limb (legs, then arms), its segments' masses.
pub(crate) fn split_mass(
    body_mass: f32,
    segments: &[Vec<f32>],
    arms: &[Vec<f32>],
) -> (f32, Vec<Vec<f32>>) {
    let n = segments.len() as f32;
    let legs_share = if segments.is_empty() {
        0.0
    } else {
        n / (n + 4.0)
    };
    let arms_share = ARM_SHARE * arms.len() as f32;
    let mut body = body_mass * (1.0 - legs_share - arms_share);
    let split = |segs: &Vec<f32>, limb: f32| -> Vec<f32> {
        let total: f32 = segs.iter().sum::<f32>().max(1e-6);
        segs.iter().map(|s| limb * s / total).collect()
    };
    let mut legs: Vec<Vec<f32>> = segments
        .iter()
        .map(|segs| split(segs, body_mass * legs_share / n))
        .chain(arms.iter().map(|segs| split(segs, body_mass * ARM_SHARE)))
        .collect();
    for leg in legs.iter_mut() {
        let mut parent = body;
        for m in leg.iter_mut() {
            *m = m.max(parent / MAX_MASS_RATIO);
            parent = *m;
        }
    }
    let sum = body + legs.iter().flatten().sum::<f32>();
    let k = body_mass / sum;
    body *= k;
    for m in legs.iter_mut().flatten() {
        *m *= k;
    }
    (body, legs)
}

/// Share of `body.mass` each arm takes.
pub(crate) const ARM_SHARE: f32 = 0.04;

/// The largest parent/child mass ratio the rule allows (seed 003 §9.1: under 10×).
pub(crate) const MAX_MASS_RATIO: f32 = 8.0;

/// A unit vector the leg bends about, from its hip, first joint and foot (`fallback` when
/// the leg is straight).
pub(crate) fn bend_axis(hip: Vec3, knee: Vec3, foot: Vec3, fallback: Vec3) -> Vec3 {
    (knee - hip)
        .cross(foot - knee)
        .try_normalize()
        .unwrap_or(fallback)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masses_add_up_with_the_body_heaviest_and_ratios_bounded() {
        for legs in [2usize, 4, 6, 8, 12] {
            let segs = vec![vec![0.45, 0.55]; legs];
            let arms = vec![vec![0.3, 0.3]; legs % 3];
            let (body, parts) = split_mass(4.4, &segs, &arms);
            let total = body + parts.iter().flatten().sum::<f32>();
            assert!((total - 4.4).abs() < 1e-4, "{legs} legs: total {total}");
            for leg in &parts {
                let mut parent = body;
                for m in leg {
                    assert!(*m <= body, "{legs} legs: a part heavier than the body");
                    assert!(
                        parent / m <= MAX_MASS_RATIO + 1e-3,
                        "{legs}: {parent} / {m}"
                    );
                    parent = *m;
                }
            }
        }
    }

    #[test]
    fn absurd_numbers_are_named() {
        let legs = ["L1", "R1"];
        let bad = |f: &dyn Fn(&mut PhysicsDef)| {
            let mut d = PhysicsDef::default();
            f(&mut d);
            d.validate(&legs).expect_err("invalid").to_string()
        };
        assert!(bad(&|d| d.stiffness = Some(-1.0)).contains("physics.stiffness"));
        assert!(bad(&|d| d.max_torque = Some(1e30)).contains("physics.max_torque"));
        assert!(bad(&|d| d.damping = Some(f32::NAN)).contains("physics.damping"));
        assert!(bad(&|d| d.limp_strength = 2.0).contains("physics.limp_strength"));
        assert!(bad(&|d| d.knee = [90.0, 10.0]).contains("physics.limits.knee"));
        let e = bad(&|d| {
            d.joints.push(JointOverride {
                key: "L9.knee".into(),
                stiffness: Some(1.0),
                ..Default::default()
            })
        });
        assert!(
            e.contains("physics.joints.L9.knee") && e.contains("names no leg"),
            "{e}"
        );
        PhysicsDef::default()
            .validate(&legs)
            .expect("defaults are valid");
    }

    #[test]
    fn overrides_apply_kind_then_leg() {
        let mut d = PhysicsDef {
            stiffness: Some(100.0),
            ..Default::default()
        };
        d.joints.push(JointOverride {
            key: "knee".into(),
            stiffness: Some(50.0),
            ..Default::default()
        });
        d.joints.push(JointOverride {
            key: "L1.knee".into(),
            damping: Some(7.0),
            ..Default::default()
        });
        let hip = d.muscle_for(2.0, 2, "L1", 1.0, JointKind::Hip);
        let k1 = d.muscle_for(2.0, 2, "L1", 1.0, JointKind::Knee);
        let k2 = d.muscle_for(2.0, 2, "R1", 1.0, JointKind::Knee);
        assert_eq!(hip.stiffness, 100.0);
        assert_eq!((k1.stiffness, k1.damping), (50.0, 7.0));
        assert_eq!((k2.stiffness, k2.damping), (50.0, 10.0));
    }
}
