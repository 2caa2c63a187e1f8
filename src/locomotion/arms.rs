//! Arms: limbs that hang from a shoulder and never step. Animated, an arm swings against
//! the legs (forward as the other side's front foot reaches forward); in physics it is a
//! chain of rigid parts like a leg's, its muscles holding the hanging pose.

use glam::Vec3;

use super::def::{finite_vec, DefError};
use glam::Quat;

use super::def::ValidCreatureDef;
use super::locomotor::Locomotor;

/// An arm as a script writes it: `arms = { { name = "LA", shoulder = vec3(0.22, 0.2, 0),
/// segments = { 0.3, 0.28 } } }` (body space; 1 to [`MAX_ARM_SEGMENTS`] segments).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ArmDef {
    /// Name, unique among the creature's legs and arms.
    pub name: String,
    /// Where the arm joins the body, body space.
    pub shoulder: Vec3,
    /// Segment lengths, shoulder first.
    pub segments: Vec<f32>,
    /// Where the hand is held at rest, body space (`None`: it hangs and swings).
    pub rest: Option<Vec3>,
    /// Which way the elbow bends, body space (`None`: down and out).
    pub pole: Option<Vec3>,
    /// What a generated body draws at the arm's end (`hand = "claw"` or `"fist"`).
    pub hand: Hand,
}

/// The shape a generated body draws at an arm's end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Hand {
    /// A small knob (the default).
    #[default]
    Plain,
    /// A crab's or a scorpion's pincer: a palm and two fingers open in a V.
    Claw,
    /// A fist: a ball a little thicker than the arm.
    Fist,
}

/// An arm reaching (`c:reach`): toward `point` (world) by `weight` (0: at rest, 1: its
/// hand on the point), easing toward `want` at `speed` a second.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ArmReach {
    /// What it reaches for, world space (kept while it lets go, so it eases back).
    pub point: Option<Vec3>,
    /// How far its hand has gone from rest toward the point, 0..1.
    pub weight: f32,
    /// How far it is to go.
    pub want: f32,
    /// Weight a second.
    pub speed: f32,
}

impl ArmReach {
    /// Eases the weight toward `want`.
    pub fn ease(&mut self, dt: f32) {
        let step = self.speed * dt;
        self.weight += (self.want - self.weight).clamp(-step, step);
    }
}

/// Most arms a creature may have.
pub(crate) const MAX_ARMS: usize = 8;
/// Most segments an arm may have (a model's arm chains: clavicle, upper arm, forearm,
/// wrist, hand, fingers...).
pub(crate) const MAX_ARM_SEGMENTS: usize = 8;
/// How far an arm swings, radians at full stride.
const SWING: f32 = 0.5;
/// A legless creature's speed (m/s) at which its arms trail three quarters of the full swing.
const TRAIL_SPEED: f32 = 1.0;
/// Each joint below the shoulder bends forward this much when hanging, radians.
const BEND: f32 = 0.35;

/// Checks `arms` (names unique with `legs`' too).
pub(crate) fn validate(arms: &[ArmDef], legs: &[&str]) -> Result<(), DefError> {
    if arms.len() > MAX_ARMS {
        return Err(DefError::new(
            "arms",
            format!("at most {MAX_ARMS} arms, got {}", arms.len()),
        ));
    }
    for (i, a) in arms.iter().enumerate() {
        let at = |f: &str| format!("arms[{}].{f}", i + 1);
        super::def::valid_name(&at("name"), &a.name)?;
        if legs.contains(&a.name.as_str()) || arms[..i].iter().any(|b| b.name == a.name) {
            return Err(DefError::new(
                at("name"),
                format!("\"{}\" is already the name of a leg or arm", a.name),
            ));
        }
        finite_vec(&at("shoulder"), a.shoulder)?;
        if !(1..=MAX_ARM_SEGMENTS).contains(&a.segments.len()) {
            return Err(DefError::new(
                at("segments"),
                format!(
                    "needs 1 to {MAX_ARM_SEGMENTS} lengths, got {}",
                    a.segments.len()
                ),
            ));
        }
        for (k, s) in a.segments.iter().enumerate() {
            super::def::positive(&format!("arms[{}].segments[{}]", i + 1, k + 1), *s)?;
        }
        if let Some(r) = a.rest {
            finite_vec(&at("rest"), r)?;
            let (d, len) = (r.distance(a.shoulder), a.segments.iter().sum::<f32>());
            if d > len {
                return Err(DefError::new(
                    at("rest"),
                    format!("is out of reach: {d:.3} m from the shoulder, but the arm is {len:.3} m long"),
                ));
            }
        }
        if let Some(p) = a.pole {
            finite_vec(&at("pole"), p)?;
            if p.length_squared() < 1e-12 {
                return Err(DefError::new(at("pole"), "must not be zero"));
            }
        }
    }
    Ok(())
}

/// The swing of an arm on the side of `shoulder_x` (radians, positive forward): how far
/// the other side's front foot reaches forward of its hip, over its leg's length.
/// With no legs (a flyer's dangling ones hang as arms), the arms trail the body's motion:
/// back as it flies forward, more the faster, up to the full swing.
fn swing(shoulder_x: f32, def: &ValidCreatureDef, loco: &Locomotor, back: Quat, body: Vec3) -> f32 {
    if def.legs.is_empty() {
        let ahead = (back * loco.velocity).z;
        return -SWING * (ahead / TRAIL_SPEED).tanh();
    }
    let other = def
        .legs
        .iter()
        .enumerate()
        .filter(|(_, l)| (l.hip.x < 0.0) != (shoulder_x < 0.0))
        .max_by(|a, b| a.1.hip.z.total_cmp(&b.1.hip.z));
    let Some((i, leg)) = other else { return 0.0 };
    let foot = back * (loco.legs[i].foot - body);
    (SWING * (foot.z - leg.hip.z) / leg.length.max(1e-3)).clamp(-SWING, SWING)
}

/// Each arm's joint points in world space as the creature stands now (shoulder first).
pub fn arm_chains(def: &ValidCreatureDef, loco: &Locomotor) -> Vec<Vec<Vec3>> {
    if def.arms.is_empty() {
        return Vec::new();
    }
    let (body, rot) = (loco.body_position(), loco.rotation());
    let back = rot.inverse();
    // Arms hang by their weight: from the shoulder, where the body's tilt and lean carry
    // it, they hang in the upright frame of the heading (a climber's: its surface's), so a
    // lean never swings them out with the chest (seed 002 §7.2).
    let hang = if loco.is_climbing() {
        loco.base_rotation()
    } else {
        crate::math::frame::yaw_rotation(loco.yaw)
    };
    def.arms
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let sw = swing(a.shoulder.x, def, loco, back, body);
            let reach = loco.arm_reach.get(i).filter(|r| r.weight > 0.0);
            let shoulder = body + rot * a.shoulder;
            let hung = |p: Vec3| shoulder + hang * (p - a.shoulder);
            let pts: Vec<Vec3> = match (a.rest, reach) {
                (None, None) => return arm_points(a, sw).into_iter().map(hung).collect(),
                (Some(rest), _) => vec![shoulder, body + rot * rest],
                (None, Some(_)) => {
                    let h = arm_points(a, sw);
                    vec![shoulder, hung(h[h.len() - 1])]
                }
            };
            let goal = match reach.and_then(|r| r.point.map(|p| (p, r.weight))) {
                Some((p, w)) => pts[1].lerp(p, w),
                None => pts[1],
            };
            let out = if a.shoulder.x >= 0.0 { 1.0 } else { -1.0 };
            let frame = if a.rest.is_some() { rot } else { hang };
            let pole = frame
                * a.pole
                    .unwrap_or(Vec3::new(0.5 * out, -1.0, -0.3))
                    .normalize();
            solve_arm(pts[0], goal, &a.segments, pole)
        })
        .collect()
}

/// An arm's joints from `shoulder` toward `goal` (world), bending toward `pole`: one
/// segment points at it, two bend at the elbow, more bend as two halves (each half's joints
/// along its line). The end is on the goal when it is within reach, else as near as the
/// arm stretches.
fn solve_arm(shoulder: Vec3, goal: Vec3, segments: &[f32], pole: Vec3) -> Vec<Vec3> {
    let total: f32 = segments.iter().sum();
    if segments.len() == 1 {
        let d = (goal - shoulder).normalize_or(Vec3::NEG_Y);
        return vec![shoulder, shoulder + d * total];
    }
    let half = segments.len() / 2;
    let (upper, lower) = segments.split_at(half);
    let (l1, l2) = (upper.iter().sum::<f32>(), lower.iter().sum::<f32>());
    let s = crate::math::ik::two_bone(shoulder, goal, l1, l2, pole);
    let mut pts = vec![shoulder];
    let mut along = |from: Vec3, to: Vec3, lens: &[f32], sum: f32| {
        let d = (to - from).normalize_or(Vec3::NEG_Y);
        let mut at = from;
        for l in lens {
            at += d * (*l * (to - from).length() / sum.max(1e-6));
            pts.push(at);
        }
    };
    along(shoulder, s.knee, upper, l1);
    along(s.knee, s.foot, lower, l2);
    pts
}

/// An arm's joint points in body space, shoulder first, hand last, swung by `swing`.
pub fn arm_points(arm: &ArmDef, swing: f32) -> Vec<Vec3> {
    let out = if arm.shoulder.x >= 0.0 { 1.0 } else { -1.0 };
    // Down, a little outward, swung about the body's left axis.
    let mut dir =
        glam::Quat::from_rotation_x(-swing) * Vec3::new(0.12 * out, -1.0, 0.0).normalize();
    let mut at = arm.shoulder;
    let mut pts = vec![at];
    for len in &arm.segments {
        at += dir * *len;
        pts.push(at);
        dir = glam::Quat::from_rotation_x(-BEND) * dir;
    }
    pts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arm(name: &str, x: f32, segments: Vec<f32>) -> ArmDef {
        ArmDef {
            hand: Hand::Plain,
            name: name.into(),
            shoulder: Vec3::new(x, 0.2, 0.0),
            segments,
            rest: None,
            pole: None,
        }
    }

    #[test]
    fn arms_hang_below_their_shoulders_and_swing_forward() {
        let a = arm("LA", 0.2, vec![0.3, 0.3]);
        let still = arm_points(&a, 0.0);
        assert_eq!(still.len(), 3);
        assert!(
            still[1].y < a.shoulder.y - 0.25 && still[1].x > a.shoulder.x,
            "down, a little out"
        );
        assert!(still[2].z > still[1].z, "the elbow bends forward");
        let seg = still[1].distance(still[0]);
        assert!((seg - 0.3).abs() < 1e-5);
        let fwd = arm_points(&a, 0.4);
        assert!(
            fwd[2].z > still[2].z + 0.1,
            "a forward swing moves the hand forward"
        );
        let right = arm_points(&arm("RA", -0.2, vec![0.5]), 0.0);
        assert!(right[1].x < -0.2);
    }

    #[test]
    fn bad_arms_are_named() {
        let legs = ["L1", "R1"];
        let err = |arms: Vec<ArmDef>| validate(&arms, &legs).expect_err("invalid").to_string();
        assert!(err(vec![arm("L1", 0.2, vec![0.3])]).contains("arms[1].name"));
        assert!(
            err(vec![arm("A", 0.2, vec![0.3]), arm("A", -0.2, vec![0.3])]).contains("arms[2].name")
        );
        assert!(err(vec![arm("A", 0.2, vec![])]).contains("arms[1].segments"));
        assert!(err(vec![arm("A", 0.2, vec![0.3, -1.0])]).contains("arms[1].segments[2]"));
        // A model's four-bone arm is an arm; nine segments are too many.
        assert!(validate(&[arm("A", 0.2, vec![0.1, 0.3, 0.25, 0.1])], &legs).is_ok());
        assert!(err(vec![arm("A", 0.2, vec![0.1; 9])]).contains("needs 1 to 8 lengths, got 9"));
        assert!(err((0..9)
            .map(|i| arm(&format!("a{i}"), 0.1, vec![0.2]))
            .collect())
        .contains("at most 8"));
        validate(&[arm("LA", 0.2, vec![0.3, 0.3])], &legs).expect("valid");
    }
}
