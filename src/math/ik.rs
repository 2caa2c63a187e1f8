//! Analytic two-bone IK (law of cosines) with a knee (pole) direction, and FABRIK for
//! chains of three or more segments. All positions share one space; the caller names it.

use glam::{Vec2, Vec3};

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

/// Solves a chain of any number of segments with FABRIK, bending its joints toward `pole`.
/// `joints` receives `lengths.len() + 1` points (hip first). Returns the reach ratio (as
/// [`TwoBone::reach`]).
///
/// FABRIK starts from the chain bent evenly (every joint turned by the same angle, toward
/// the pole) so far that its end lies on the target: a shape found analytically (Newton on
/// that one angle), which already keeps every length and reaches, so FABRIK's passes run
/// only where that bend cannot reach (a target nearer the hip than the chain can curl).
///
/// `turn` is that angle as a unit complex number `(cos, sin)`: the last solve's, kept by
/// the caller (`Vec2::ZERO` when there is none), is where Newton starts — a tick later it
/// is a step or two from the answer, with no trigonometry. The joints depend on it only
/// within the tolerance (10 µm per metre of chain): the shape is the same function of hip,
/// target and pole whatever came before, so it cannot drift.
pub(crate) fn fabrik(
    hip: Vec3,
    target: Vec3,
    lengths: &[f32],
    pole: Vec3,
    turn: &mut Vec2,
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
    let n = lengths.len();
    let dist = dist.min(total * 0.9999);
    let (w, chord) = even_turn(lengths, total, dist, *turn);
    *turn = w;
    lay_out(hip, dir, bend, lengths, w, chord, joints);
    let goal = hip + dir * dist;
    // Done within a tenth of a millimetre per metre of chain.
    let tolerance = (total * 1e-4).powi(2);
    for _ in 0..12 {
        if joints[n].distance_squared(goal) < tolerance {
            break;
        }
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
    }
    reach
}

/// The chord of a chain whose segment `k` turns `k·θ` from the first, in its own plane
/// (first segment along +x, turning toward −y; `w` = `(cos θ, sin θ)`), and the derivative
/// in θ of the chord.
fn chord(lengths: &[f32], w: Vec2) -> (Vec2, Vec2) {
    let step = Vec2::new(w.x, -w.y);
    let (mut z, mut s, mut ds) = (Vec2::X, Vec2::ZERO, Vec2::ZERO);
    for (k, l) in lengths.iter().enumerate() {
        s += *l * z;
        // d/dθ of e^{−i·k·θ} is −i·k·e^{−i·k·θ}.
        ds += *l * k as f32 * Vec2::new(z.y, -z.x);
        z = z.rotate(step);
    }
    (s, ds)
}

/// `(cos d, sin d)` from their series to the fourth and fifth power: within 4e-7 for
/// |d| ≤ 0.25 (a Newton step of [`even_turn`]); the cosine's never falls below cos d.
fn small_turn(d: f32) -> Vec2 {
    let d2 = d * d;
    Vec2::new(
        1.0 - d2 / 2.0 + d2 * d2 / 24.0,
        d * (1.0 - d2 / 6.0 + d2 * d2 / 120.0),
    )
}

/// `(cos θ, sin θ)`.
fn unit(theta: f32) -> Vec2 {
    let (sin, cos) = theta.sin_cos();
    Vec2::new(cos, sin)
}

/// The even turn `(cos θ, sin θ)` that puts the chain's end `dist` from its start (or, for
/// a target nearer than the chain curls, the most it turns: 2π/n in all), from `guess`,
/// and the chord it gives.
fn even_turn(lengths: &[f32], total: f32, dist: f32, guess: Vec2) -> (Vec2, Vec2) {
    let n = lengths.len();
    let want = dist * dist;
    let max = (std::f32::consts::TAU / n as f32).min(0.95 * std::f32::consts::PI);
    // Within 10 µm per metre of chain.
    let close = 2.0 * dist.max(total * 0.01) * total * 1e-5;
    // Warm: Newton from the guess, each step a small turn of it (a few products, no
    // trigonometry); anything odd falls back to the cold search.
    if (guess.length_squared() - 1.0).abs() < 1e-3 && guess.y >= 0.0 {
        let mut w = guess;
        // θ within [0, max]: cos's quartic series, never below cos, settles it without
        // trigonometry but for a turn within a hair of the limit.
        let above = small_turn(max).x;
        let inside = |w: Vec2| w.y >= 0.0 && (w.x >= above || w.x >= max.cos());
        for _ in 0..6 {
            let (c, dc) = chord(lengths, w);
            let err = c.length_squared() - want;
            if err.abs() < close {
                return (w, c);
            }
            let slope = 2.0 * c.dot(dc);
            let d = -err / slope;
            if slope >= 0.0 || d.abs() > 0.25 || !d.is_finite() {
                break;
            }
            w = w.rotate(small_turn(d)).normalize();
            if !inside(w) {
                break;
            }
            // A step this small lands within the tolerance (Newton's error goes as its
            // square): take it, and the chord it gives to first order, unchecked.
            if d.abs() < 2e-3 {
                return (w, c + d * dc);
            }
        }
    }
    // Cold: safeguarded Newton in [0, max] (θ = 0 is straight: the chord is the whole
    // chain), from the even arc's small-bend guess; a target nearer than the chain curls
    // ends at `max`.
    let (mut lo, mut hi) = (0.0f32, max);
    let mut theta = (24.0 * (1.0 - dist / total.max(1e-6)) / (n * n - 1).max(1) as f32)
        .sqrt()
        .min(max * 0.5);
    let mut s = Vec2::X;
    for _ in 0..16 {
        let (c, dc) = chord(lengths, unit(theta));
        s = c;
        let err = c.length_squared() - want;
        if err.abs() < close {
            break;
        }
        if err > 0.0 {
            lo = theta;
        } else {
            hi = theta;
        }
        let slope = 2.0 * c.dot(dc);
        let step = theta - err / slope;
        theta = if slope < 0.0 && step > lo && step < hi {
            step
        } else {
            0.5 * (lo + hi)
        };
    }
    (unit(theta), s)
}

/// Lays the chain into `joints` from `hip`, bent evenly by `w` toward `bend`, its chord
/// along `dir` (`chord`: the chain's, in its own plane): segment k's direction is the
/// chord's conjugate times e^{−i·k·θ}.
fn lay_out(
    hip: Vec3,
    dir: Vec3,
    bend: Vec3,
    lengths: &[f32],
    w: Vec2,
    chord: Vec2,
    joints: &mut Vec<Vec3>,
) {
    let c = chord.normalize_or(Vec2::X);
    let mut z = Vec2::new(c.x, -c.y);
    let step = Vec2::new(w.x, -w.y);
    let mut p = hip;
    joints.push(p);
    for l in lengths {
        p += *l * (z.x * dir + z.y * bend);
        joints.push(p);
        z = z.rotate(step);
    }
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
        let reach = fabrik(
            Vec3::ZERO,
            t,
            &lengths,
            Vec3::Y,
            &mut Vec2::default(),
            &mut joints,
        );
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
            &mut Vec2::default(),
            &mut joints,
        );
        assert!(reach > 4.9);
        assert!(joints.iter().all(|j| j.is_finite()));
    }

    #[test]
    fn chains_bend_evenly_toward_the_pole_reach_and_move_smoothly() {
        // A five-bone leg (as the shared spider model's) whose hip and foot sweep through a
        // step cycle while the pole wobbles.
        let lengths = [0.1, 0.35, 0.4, 0.3, 0.2];
        let mut joints = Vec::new();
        let mut last: Vec<Vec3> = Vec::new();
        let mut turn = Vec2::ZERO;
        let mut cold = Vec::new();
        for k in 0..2000 {
            let t = k as f32 / 60.0;
            let hip = Vec3::new(0.1 * t.sin(), 0.05 * (3.0 * t).sin(), 0.2 * t.cos());
            let target = Vec3::new(
                0.7 + 0.3 * (2.0 * t).cos(),
                -0.6 + 0.2 * (2.0 * t).sin().max(0.0),
                0.3 * (2.0 * t).sin(),
            );
            let pole = Vec3::new(0.2 * (0.5 * t).sin(), 1.0, 0.0).normalize();
            fabrik(hip, target, &lengths, pole, &mut turn, &mut joints);
            // Started from the last tick's turn or from nothing: the same shape.
            fabrik(hip, target, &lengths, pole, &mut Vec2::default(), &mut cold);
            let apart = joints
                .iter()
                .zip(&cold)
                .map(|(a, b)| a.distance(*b))
                .fold(0.0, f32::max);
            assert!(
                apart < 1e-4,
                "tick {k}: warm and cold solves {apart} m apart"
            );
            // Reaches the target and keeps every length.
            assert!(joints[5].distance(target) < 1e-4, "tick {k}");
            for i in 0..5 {
                assert!((joints[i + 1].distance(joints[i]) - lengths[i]).abs() < 1e-4);
            }
            // Every joint between bows to the pole's side of the hip-target line, and the
            // chain turns the same way at each (no S-bends).
            let dir = (target - hip).normalize();
            for j in &joints[1..5] {
                let off = (*j - hip) - dir * (*j - hip).dot(dir);
                assert!(
                    off.dot(pole) > 0.0,
                    "tick {k}: a joint folds away from the pole"
                );
            }
            let axis = dir.cross(pole);
            for w in joints.windows(3) {
                let turn = (w[1] - w[0]).cross(w[2] - w[1]).dot(axis);
                assert!(turn <= 1e-6, "tick {k}: the chain turns back");
            }
            // Smooth: no joint jumps between ticks more than the hip and target move.
            if !last.is_empty() {
                let jump = joints
                    .iter()
                    .zip(&last)
                    .map(|(a, b)| a.distance(*b))
                    .fold(0.0, f32::max);
                assert!(jump < 0.05, "tick {k}: a joint jumps {jump} m");
            }
            last.clone_from(&joints);
        }
        // Nearer than the chain curls: as near as it goes, finite, lengths kept.
        let reach = fabrik(
            Vec3::ZERO,
            Vec3::new(0.0, -0.01, 0.0),
            &lengths,
            Vec3::X,
            &mut Vec2::default(),
            &mut joints,
        );
        assert!(reach < 0.01 && joints.iter().all(|j| j.is_finite()));
        for i in 0..5 {
            assert!((joints[i + 1].distance(joints[i]) - lengths[i]).abs() < 1e-3);
        }
    }
}
