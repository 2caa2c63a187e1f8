//! Drawn feet: a leg whose third bone is a foot (its name says `foot`, `ankle`, `hand` or
//! `paw`), with at most a toe bone after it, is drawn with its foot and toes lying on the
//! ground as they lie in the bind pose — turned onto the slope under the foot — and its hip
//! to ankle solved as a two-bone leg. Where the ankle cannot be reached so (the leg trails
//! behind the body, a foot about to lift), the heel peels up about the ball of the foot as
//! far as the leg needs, and past that the toes rise about their tips: heel first, as a foot
//! leaves the ground. Drawing only; the foot's end stays where the sim put it.

use glam::{Mat3, Quat, Vec3};

use super::{Binding, Model};
use crate::math::ik::two_bone;

/// A leg's foot as the sim has it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FootInput {
    /// The ground's normal under it (world, unit): where it stands, or where it will land.
    pub slope: Vec3,
    /// Standing (else swinging: its foot lies level).
    pub grounded: bool,
}

/// A leg's foot and toes as the bind pose shapes them, body space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct FootShape {
    /// Ankle to the ball of the foot (or to the foot's end when it has no toe bone).
    foot: Vec3,
    /// Ball to the toes' end.
    toes: Option<Vec3>,
    /// Thigh and shin lengths, world units.
    upper: (f32, f32),
}

/// How far the heel may peel, and then the toes rise, radians (each).
const MAX_PEEL: f32 = 1.2;

/// Whether a bone's name marks a foot.
fn is_foot(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    ["foot", "ankle", "hand", "paw"]
        .iter()
        .any(|w| n.contains(w))
}

/// Each leg's foot shape (`None`: a leg without a foot bone third from its hip).
pub(crate) fn find_feet(model: &Model, binding: &Binding) -> Vec<Option<FootShape>> {
    let fix = glam::Affine3A::from_mat4(binding.fix);
    let at = |j: usize| fix.transform_point3(model.joints[j].head());
    binding
        .legs
        .iter()
        .map(|chain| {
            let b = &chain.bones;
            if b.len() < 3 || b.len() > 4 || !is_foot(&model.joints[b[2]].name) {
                return None;
            }
            let (hip, knee, ankle) = (at(b[0]), at(b[1]), at(b[2]));
            let tip = fix.transform_point3(chain.tip);
            let ball = b.get(3).map_or(tip, |t| at(*t));
            let shape = FootShape {
                foot: ball - ankle,
                toes: b.get(3).map(|_| tip - ball),
                upper: (hip.distance(knee), knee.distance(ankle)),
            };
            let ok = shape.foot.length() > 1e-4
                && shape.toes.is_none_or(|t| t.length() > 1e-4)
                && shape.upper.0 > 1e-4
                && shape.upper.1 > 1e-4;
            ok.then_some(shape)
        })
        .collect()
}

/// The points of a leg drawn with its foot `shape` from `hip` to the end of `pts` (hip
/// first, one point per joint and the end): the foot and toes on the ground under `foot`,
/// facing `heading` (the body's heading; its yaw is what counts), peeled as far as the leg
/// needs, the knee on the side the sim's chain bends to. False (nothing changed) when the
/// points are not this leg's or even a fully peeled foot is out of reach.
pub(crate) fn shape_foot(
    pts: &mut [Vec3],
    hip: Vec3,
    shape: &FootShape,
    foot: &FootInput,
    heading: Quat,
) -> bool {
    let n = pts.len();
    if n != 4 + usize::from(shape.toes.is_some()) {
        return false;
    }
    let up = if foot.grounded && foot.slope.is_finite() {
        foot.slope.normalize_or(Vec3::Y)
    } else {
        Vec3::Y
    };
    let ahead = heading * Vec3::Z;
    let Some(fwd) = (ahead - up * ahead.dot(up)).try_normalize() else {
        return false;
    };
    let side = up.cross(fwd);
    let ground = Mat3::from_cols(side, up, fwd);
    let tip = pts[n - 1];
    let toes = shape.toes.map(|t| ground * t);
    let foot_w = ground * shape.foot;
    let (l1, l2) = shape.upper;
    let reach = 0.999 * (l1 + l2);
    // The heel about the ball, then the toes about their end: the least turn that reaches.
    let ball0 = tip - toes.unwrap_or(Vec3::ZERO);
    let heel_at = |ball: Vec3, a: f32| ball - Quat::from_axis_angle(side, a) * foot_w;
    let Some((ball, ankle)) = peel(hip, reach, |a| {
        let ball = ball0;
        (ball, heel_at(ball, a))
    })
    .or_else(|| {
        let t = toes?;
        peel(hip, reach, |a| {
            let ball = tip - Quat::from_axis_angle(side, a) * t;
            (ball, heel_at(ball, MAX_PEEL + a))
        })
    }) else {
        return false;
    };
    let bend = pts[1] - hip;
    let along = (ankle - hip).normalize_or_zero();
    let pole = (bend - along * bend.dot(along)).normalize_or(fwd);
    let knee = two_bone(hip, ankle, l1, l2, pole).knee;
    pts[0] = hip;
    pts[1] = knee;
    pts[2] = ankle;
    if toes.is_some() {
        pts[3] = ball;
    }
    true
}

/// The least angle in `0..=MAX_PEEL` at which `at(angle)`'s ankle is within `reach` of
/// `hip` (bisection), with what `at` gives there; `None` when even the most is too far.
fn peel(hip: Vec3, reach: f32, at: impl Fn(f32) -> (Vec3, Vec3)) -> Option<(Vec3, Vec3)> {
    let fits = |a: f32| at(a).1.distance(hip) <= reach;
    if fits(0.0) {
        return Some(at(0.0));
    }
    if !fits(MAX_PEEL) {
        return None;
    }
    let (mut lo, mut hi) = (0.0f32, MAX_PEEL);
    for _ in 0..14 {
        let mid = 0.5 * (lo + hi);
        if fits(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(at(hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape() -> FootShape {
        // An ankle 10 cm up, the ball 12 cm ahead of it on the ground, toes 6 cm on.
        FootShape {
            foot: Vec3::new(0.0, -0.1, 0.12),
            toes: Some(Vec3::new(0.0, 0.0, 0.06)),
            upper: (0.45, 0.45),
        }
    }

    fn leg(hip: Vec3, tip: Vec3) -> Vec<Vec3> {
        // A chain as the sim might bend it: any inner points, the end on the tip.
        vec![
            hip,
            hip.lerp(tip, 0.3) + Vec3::Z * 0.1,
            hip.lerp(tip, 0.6),
            hip.lerp(tip, 0.8),
            tip,
        ]
    }

    #[test]
    fn a_planted_foot_lies_flat_on_its_slope_and_keeps_its_end() {
        let tip = Vec3::new(0.0, 0.0, 0.1);
        let hip = Vec3::new(0.0, 0.8, 0.0);
        let mut pts = leg(hip, tip);
        let slope = Quat::from_rotation_x(-0.3) * Vec3::Y; // rising ahead, 17°
        let foot = FootInput {
            slope,
            grounded: true,
        };
        assert!(shape_foot(&mut pts, hip, &shape(), &foot, Quat::IDENTITY));
        assert!(pts[4].distance(tip) < 1e-6 && pts[0].distance(hip) < 1e-6);
        // The toes along the slope (perpendicular to its normal), the ankle above the ball.
        let toes = (pts[4] - pts[3]).normalize();
        assert!(toes.dot(slope).abs() < 1e-4, "{toes}");
        assert!((pts[2] - pts[3]).dot(slope) > 0.09);
        // Thigh and shin keep their lengths.
        assert!((pts[0].distance(pts[1]) - 0.45).abs() < 1e-3);
        assert!((pts[1].distance(pts[2]) - 0.45).abs() < 1e-3);
        // The knee bends where the sim's chain bent (forward).
        assert!(pts[1].z > 0.0);
    }

    #[test]
    fn a_trailing_foot_peels_heel_first_then_rises_on_its_toes() {
        let hip = Vec3::new(0.0, 0.8, 0.0);
        let flat = FootInput {
            slope: Vec3::Y,
            grounded: true,
        };
        let heel = |tip: Vec3| {
            let mut pts = leg(hip, tip);
            assert!(
                shape_foot(&mut pts, hip, &shape(), &flat, Quat::IDENTITY),
                "tip {tip}"
            );
            (pts[2].y, pts[3].y, pts[2].distance(hip))
        };
        let (under, _, _) = heel(Vec3::new(0.0, 0.0, 0.1));
        assert!(
            (under - 0.1).abs() < 1e-4,
            "flat: the ankle 10 cm up ({under})"
        );
        let (behind, ball, d) = heel(Vec3::new(0.0, 0.0, -0.42));
        assert!(behind > under + 0.01, "trailing: the heel peels ({behind})");
        assert!(ball.abs() < 1e-4, "the ball still down ({ball})");
        assert!(d <= 0.9 * 0.999 + 1e-4);
        let (farther, ball, _) = heel(Vec3::new(0.0, 0.0, -0.48));
        assert!(farther > behind + 0.02, "more the farther back ({farther})");
        assert!(ball.abs() < 1e-4, "the ball still down ({ball})");
        // Farther back still: the ball comes up too, the toes' end stays.
        let (_, ball, _) = heel(Vec3::new(0.0, 0.0, -0.63));
        assert!(ball > 0.005, "on its toes ({ball})");
        // Out of reach even on its toes: left as the sim solved it.
        let mut pts = leg(hip, Vec3::new(0.0, 0.0, -1.2));
        let before = pts.clone();
        assert!(!shape_foot(&mut pts, hip, &shape(), &flat, Quat::IDENTITY));
        assert_eq!(pts, before);
    }
}
