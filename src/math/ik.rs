//! Analytic two-bone IK (law of cosines) with a knee (pole) direction, and FABRIK for
//! chains of three or more segments. All positions share one space; the caller names it.

use glam::Vec3;

/// Result of a two-bone solve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoBone {
    /// Where the knee (the joint between the segments) ends up.
    pub knee: Vec3,
    /// Where the end of the chain ends up (the target, or the closest reachable point).
    pub foot: Vec3,
    /// `|target − hip| / (l1 + l2)` before clamping: above 1 means the target was out of reach.
    pub reach: f32,
}

/// Solves a two-segment leg from `hip` toward `target`, bending the knee toward `pole`.
///
/// The knee always lies on the pole's side of the hip–foot line, so it never flips while the
/// target moves (as long as the target does not pass through the pole axis itself). Reach is
/// clamped to just under full extension and just over full fold, so the result is always finite
/// for finite input with positive segment lengths.
#[inline]
pub fn two_bone(hip: Vec3, target: Vec3, l1: f32, l2: f32, pole: Vec3) -> TwoBone {
    let total = l1 + l2;
    let to = target - hip;
    let dist = to.length();
    let reach = if total > 0.0 { dist / total } else { 0.0 };
    let dir = if dist > 1e-6 {
        to * dist.recip()
    } else {
        // Target on the hip: fold away from the pole.
        let p = pole.normalize_or_zero();
        if p == Vec3::ZERO {
            Vec3::NEG_Y
        } else {
            -p
        }
    };
    let min = (l1 - l2).abs() + 1e-4 * total;
    let max = total * 0.9999;
    let d = dist.clamp(min, max.max(min));
    let along = pole - dir * pole.dot(dir);
    let along2 = along.length_squared();
    let cos_a = ((l1 * l1 + d * d - l2 * l2) / (2.0 * l1 * d)).clamp(-1.0, 1.0);
    // The knee's offset from the hip–foot line, scaled straight off the unnormalised pole part.
    let off = if along2 > 1e-10 {
        along * (l1 * ((1.0 - cos_a * cos_a).max(0.0) / along2).sqrt())
    } else {
        dir.any_orthonormal_vector() * (l1 * (1.0 - cos_a * cos_a).max(0.0).sqrt())
    };
    TwoBone {
        knee: hip + dir * (l1 * cos_a) + off,
        foot: hip + dir * d,
        reach,
    }
}

/// Solves a chain of any number of segments with FABRIK, seeded from a pole-bent pose so
/// the joints bend toward `pole`. `joints` receives `lengths.len() + 1` points (hip first).
/// Returns the reach ratio (as [`TwoBone::reach`]).
pub(crate) fn fabrik(
    hip: Vec3,
    target: Vec3,
    lengths: &[f32],
    pole: Vec3,
    joints: &mut Vec<Vec3>,
) -> f32 {
    joints.clear();
    let total: f32 = lengths.iter().sum();
    let to = target - hip;
    let dist = to.length();
    let reach = if total > 0.0 { dist / total } else { 0.0 };
    let dir = if dist > 1e-6 { to / dist } else { Vec3::NEG_Y };
    let along = pole - dir * pole.dot(dir);
    let bend = if along.length_squared() > 1e-10 {
        along.normalize()
    } else {
        dir.any_orthonormal_vector()
    };
    // Seed: an arc bowing toward the pole.
    joints.push(hip);
    let n = lengths.len();
    let mut acc = 0.0;
    for (i, l) in lengths.iter().enumerate() {
        acc += l;
        let s = acc / total.max(1e-6);
        let bow = (std::f32::consts::PI * s).sin() * total * 0.3 * (i + 1 < n) as u8 as f32;
        let p = hip + dir * (s * dist.min(total)) + bend * bow;
        let prev = joints[i];
        let seg = (p - prev).normalize_or(dir);
        joints.push(prev + seg * *l);
    }
    let goal = hip + dir * dist.min(total * 0.9999);
    for _ in 0..12 {
        // Backward pass.
        joints[n] = goal;
        for i in (0..n).rev() {
            let d = (joints[i] - joints[i + 1]).normalize_or(-dir);
            joints[i] = joints[i + 1] + d * lengths[i];
        }
        // Forward pass.
        joints[0] = hip;
        for i in 0..n {
            let d = (joints[i + 1] - joints[i]).normalize_or(dir);
            joints[i + 1] = joints[i] + d * lengths[i];
        }
        if joints[n].distance_squared(goal) < 1e-8 {
            break;
        }
    }
    reach
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(hip: Vec3, target: Vec3, l1: f32, l2: f32, pole: Vec3) -> TwoBone {
        let s = two_bone(hip, target, l1, l2, pole);
        assert!(
            s.knee.is_finite() && s.foot.is_finite(),
            "non-finite for {target}"
        );
        assert!(
            (s.knee.distance(hip) - l1).abs() < 1e-4,
            "upper bone length"
        );
        assert!(
            (s.foot.distance(s.knee) - l2).abs() < 1e-4,
            "lower bone length"
        );
        s
    }

    #[test]
    fn reaches_targets_inside_range_exactly() {
        let cases = [
            (Vec3::new(0.5, -0.3, 0.2), 0.45, 0.55),
            (Vec3::new(0.1, -0.6, 0.0), 0.45, 0.55),
            (Vec3::new(-0.3, -0.2, 0.4), 0.4, 0.4),
        ];
        for (t, l1, l2) in cases {
            let s = check(Vec3::ZERO, t, l1, l2, Vec3::Y);
            assert!(s.foot.distance(t) < 1e-4, "missed {t}: {}", s.foot);
            assert!(s.reach < 1.0);
        }
    }

    #[test]
    fn clamps_out_of_reach_and_too_close() {
        let s = check(Vec3::ZERO, Vec3::new(3.0, 0.0, 0.0), 0.45, 0.55, Vec3::Y);
        assert!((s.reach - 3.0).abs() < 1e-5);
        assert!(
            s.foot.distance(Vec3::new(1.0, 0.0, 0.0)) < 1e-3,
            "{}",
            s.foot
        );
        let s = check(Vec3::ZERO, Vec3::new(0.0, -0.01, 0.0), 0.45, 0.55, Vec3::Y);
        assert!(s.foot.length() >= 0.1 - 1e-3, "folded too far: {}", s.foot);
        let s = check(Vec3::ZERO, Vec3::ZERO, 0.5, 0.5, Vec3::Y);
        assert!(s.reach == 0.0);
    }

    #[test]
    fn knee_bends_toward_pole() {
        for pole in [Vec3::Y, Vec3::X, Vec3::new(0.3, 1.0, -0.2)] {
            let t = Vec3::new(0.2, -0.5, 0.5);
            let s = check(Vec3::ZERO, t, 0.45, 0.55, pole);
            let dir = t.normalize();
            let bend = (pole - dir * pole.dot(dir)).normalize();
            let off = s.knee - dir * s.knee.dot(dir);
            assert!(off.dot(bend) > 0.05, "knee not on pole side for {pole}");
        }
    }

    #[test]
    fn knee_never_flips_while_target_sweeps_around_hip() {
        let hip = Vec3::new(0.0, 0.4, 0.0);
        let pole = Vec3::new(0.0, 1.0, 0.0);
        let mut prev: Option<Vec3> = None;
        for ring_y in [-0.2f32, 0.0, 0.2] {
            prev = None;
            for i in 0..=720 {
                let a = i as f32 / 720.0 * std::f32::consts::TAU;
                let t = hip + Vec3::new(0.7 * a.cos(), ring_y, 0.7 * a.sin());
                let s = check(hip, t, 0.45, 0.55, pole);
                // Knee above the hip–foot line: on the pole side.
                let dir = (s.foot - hip).normalize();
                let bend = (pole - dir * pole.dot(dir)).normalize();
                assert!((s.knee - hip).dot(bend) > 0.0, "flipped at {i}");
                if let Some(p) = prev {
                    // 0.5° of sweep moves the knee by a few mm, never a jump to the other side.
                    assert!(
                        p.distance(s.knee) < 0.02,
                        "knee jumped at {i}: {}",
                        p.distance(s.knee)
                    );
                }
                prev = Some(s.knee);
            }
        }
        assert!(prev.is_some());
    }

    #[test]
    fn fabrik_reaches_with_three_segments_and_keeps_lengths() {
        let lengths = [0.3, 0.4, 0.3];
        let mut joints = Vec::new();
        let t = Vec3::new(0.5, -0.4, 0.3);
        let reach = fabrik(Vec3::ZERO, t, &lengths, Vec3::Y, &mut joints);
        assert_eq!(joints.len(), 4);
        assert!(reach < 1.0);
        assert!(joints[3].distance(t) < 1e-3, "{}", joints[3]);
        for i in 0..3 {
            assert!((joints[i + 1].distance(joints[i]) - lengths[i]).abs() < 1e-4);
        }
        let reach = fabrik(
            Vec3::ZERO,
            Vec3::new(5.0, 0.0, 0.0),
            &lengths,
            Vec3::Y,
            &mut joints,
        );
        assert!(reach > 4.9);
        assert!(joints.iter().all(|j| j.is_finite()));
    }
}
