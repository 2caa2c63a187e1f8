//! Analytic two-bone IK (law of cosines) with a knee (pole) direction, and chains of three
//! or more segments bent evenly (a tabulated shape; FABRIK where it cannot reach). All
//! positions share one space; the caller names it.

use glam::{Vec2, Vec3, Vec4};

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

/// Four [`two_bone`] solves at once, lane by lane: the same arithmetic in the same order on
/// four legs side by side (each lane's result is bit for bit [`two_bone`]'s), so their
/// square roots and divisions overlap instead of waiting on each other. A lane whose target
/// sits on its hip or whose pole lies along its hip–foot line (rare) is solved alone.
pub(crate) fn two_bone4(
    hip: [Vec3; 4],
    target: [Vec3; 4],
    l1: [f32; 4],
    l2: [f32; 4],
    pole: [Vec3; 4],
) -> [TwoBone; 4] {
    let lane =
        |v: &[Vec3; 4], f: fn(&Vec3) -> f32| Vec4::new(f(&v[0]), f(&v[1]), f(&v[2]), f(&v[3]));
    let (hx, hy, hz) = (
        lane(&hip, |v| v.x),
        lane(&hip, |v| v.y),
        lane(&hip, |v| v.z),
    );
    let (px, py, pz) = (
        lane(&pole, |v| v.x),
        lane(&pole, |v| v.y),
        lane(&pole, |v| v.z),
    );
    let (l1, l2) = (Vec4::from_array(l1), Vec4::from_array(l2));
    let total = l1 + l2;
    let tx = lane(&target, |v| v.x) - hx;
    let ty = lane(&target, |v| v.y) - hy;
    let tz = lane(&target, |v| v.z) - hz;
    let dist = (tx * tx + ty * ty + tz * tz).sqrt();
    let reach = Vec4::select(total.cmpgt(Vec4::ZERO), dist / total, Vec4::ZERO);
    let r = dist.recip();
    let (dx, dy, dz) = (tx * r, ty * r, tz * r);
    let min = (l1 - l2).abs() + Vec4::splat(1e-4) * total;
    let max = (total * Vec4::splat(0.9999)).max(min);
    let d = dist.max(min).min(max);
    let pd = px * dx + py * dy + pz * dz;
    let (ax, ay, az) = (px - dx * pd, py - dy * pd, pz - dz * pd);
    let along2 = ax * ax + ay * ay + az * az;
    let cos_a = ((l1 * l1 + d * d - l2 * l2) / (Vec4::splat(2.0) * l1 * d))
        .max(Vec4::splat(-1.0))
        .min(Vec4::ONE);
    let k = l1 * ((Vec4::ONE - cos_a * cos_a).max(Vec4::ZERO) / along2).sqrt();
    let lc = l1 * cos_a;
    let knee = [
        hx + dx * lc + ax * k,
        hy + dy * lc + ay * k,
        hz + dz * lc + az * k,
    ];
    let foot = [hx + dx * d, hy + dy * d, hz + dz * d];
    let [kx, ky, kz] = knee.map(|v| v.to_array());
    let [fx, fy, fz] = foot.map(|v| v.to_array());
    let reach = reach.to_array();
    let mut out = [0, 1, 2, 3].map(|i| TwoBone {
        knee: Vec3::new(kx[i], ky[i], kz[i]),
        foot: Vec3::new(fx[i], fy[i], fz[i]),
        reach: reach[i],
    });
    let plain = (dist.cmpgt(Vec4::splat(1e-6)) & along2.cmpgt(Vec4::splat(1e-10))).bitmask();
    if plain != 0b1111 {
        for (i, o) in out.iter_mut().enumerate() {
            if plain & (1 << i) == 0 {
                *o = two_bone(hip[i], target[i], l1[i], l2[i], pole[i]);
            }
        }
    }
    out
}

/// Samples of a chain's even bend (see [`EvenBend`]).
const CELLS: usize = 48;

/// A chain's even bend, tabulated once for its segment lengths: every joint turned by the
/// same angle θ, the chain in its own plane (first segment along +x, turning toward −y),
/// as a function of how far its end is from its start. θ goes as the square root of the
/// chain's slack near full extension, so the table is uniform in `u = √(total − dist)`,
/// where θ is smooth: [`CELLS`] cells of cubic Hermite pieces, each sample the turn
/// `(cos θ, sin θ)` and the chord's direction with their slopes in `u`, solved in f64 when
/// the leg is defined. A solve is then a lookup and one cubic per vector: no Newton, no
/// trigonometry, no state carried from the last tick (so it cannot drift, and a
/// checkpoint need not keep it), its end within 2 µm per metre of chain of where the
/// exact bend puts it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct EvenBend {
    lengths: Vec<f32>,
    total: f32,
    /// The nearest its end comes to its start (turned the most).
    nearest: f32,
    /// Cells per unit of `u` (0 for a chain that cannot bend).
    cells_per_u: f32,
    /// Per sample: the turn, its slope times the cell's width, the chord's direction, its
    /// slope times the cell's width.
    samples: Vec<[Vec2; 4]>,
}

impl EvenBend {
    /// The table of the chain of `lengths` (three or more, all > 0).
    pub(crate) fn new(lengths: &[f32]) -> EvenBend {
        let l: Vec<f64> = lengths.iter().map(|x| f64::from(*x)).collect();
        let total: f64 = l.iter().sum();
        // Chord and its slope in θ: Σ l_k e^{−ikθ}.
        let chord = |theta: f64| -> ([f64; 2], [f64; 2]) {
            let (mut c, mut dc) = ([0.0; 2], [0.0; 2]);
            for (k, lk) in l.iter().enumerate() {
                let a = -(k as f64) * theta;
                let (sin, cos) = a.sin_cos();
                c[0] += lk * cos;
                c[1] += lk * sin;
                dc[0] += lk * k as f64 * sin;
                dc[1] -= lk * k as f64 * cos;
            }
            (c, dc)
        };
        let len = |theta: f64| {
            let (c, _) = chord(theta);
            c[0].hypot(c[1])
        };
        // The most it turns: 2π/n in all, or less where the chord stops shortening (uneven
        // lengths), so the chord's length falls all the way and θ is a function of it; and
        // no further than a chord a tenth of the chain (nearer, the chord's direction turns
        // too fast for the table, and FABRIK's passes take over).
        let n = l.len().max(1) as f64;
        let mut max = (std::f64::consts::TAU / n).min(0.95 * std::f64::consts::PI);
        let scan = 2000;
        let dt = max / f64::from(scan);
        for i in 1..=scan {
            let t = dt * f64::from(i);
            if len(t) >= len(t - dt) || len(t) < 0.1 * total {
                max = t - dt;
                break;
            }
        }
        let u_max = (total - len(max)).max(0.0).sqrt();
        // Near straight, |chord| ≈ total − K·θ², so θ ≈ u/√K.
        let (s1, s2) = l.iter().enumerate().fold((0.0, 0.0), |(a, b), (k, lk)| {
            (a + lk * k as f64, b + lk * (k * k) as f64)
        });
        let k_straight = ((total * s2 - s1 * s1) / (2.0 * total)).max(1e-12);
        let h = u_max / CELLS as f64;
        let samples = (0..=CELLS)
            .map(|j| {
                let u = h * j as f64;
                let want = total - u * u;
                // Bisection on the falling chord length.
                let (mut lo, mut hi) = (0.0f64, max);
                for _ in 0..80 {
                    let mid = 0.5 * (lo + hi);
                    if len(mid) > want {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                let theta = if j == 0 { 0.0 } else { 0.5 * (lo + hi) };
                let (c, dc) = chord(theta);
                let c2 = c[0] * c[0] + c[1] * c[1];
                let dlen = (c[0] * dc[0] + c[1] * dc[1]) / c2.sqrt();
                let dtheta = if j == 0 || dlen > -1e-12 {
                    1.0 / k_straight.sqrt()
                } else {
                    -2.0 * u / dlen
                };
                let dphi = (c[0] * dc[1] - c[1] * dc[0]) / c2 * dtheta;
                let phi = c[1].atan2(c[0]);
                let (st, ct) = theta.sin_cos();
                let (sp, cp) = phi.sin_cos();
                let v = |x: f64, y: f64| Vec2::new(x as f32, y as f32);
                [
                    v(ct, st),
                    v(-st * dtheta * h, ct * dtheta * h),
                    v(cp, sp),
                    v(-sp * dphi * h, cp * dphi * h),
                ]
            })
            .collect();
        EvenBend {
            lengths: lengths.to_vec(),
            total: total as f32,
            nearest: (total - u_max * u_max) as f32,
            cells_per_u: if u_max > 1e-9 {
                (CELLS as f64 / u_max) as f32
            } else {
                0.0
            },
            samples,
        }
    }

    /// The segment lengths.
    pub(crate) fn lengths(&self) -> &[f32] {
        &self.lengths
    }

    /// The turn `(cos θ, sin θ)` and the chord's direction for an end `dist` from the start
    /// (nearer than the chain curls: the most it turns).
    #[inline]
    fn at(&self, dist: f32) -> (Vec2, Vec2) {
        let u = (self.total - dist).max(0.0).sqrt();
        let x = (u * self.cells_per_u).min(CELLS as f32);
        let i = (x as usize).min(CELLS - 1);
        let t = x - i as f32;
        let (a, b) = (&self.samples[i], &self.samples[i + 1]);
        let t2 = t * t;
        let t3 = t2 * t;
        let (h00, h10, h01, h11) = (
            2.0 * t3 - 3.0 * t2 + 1.0,
            t3 - 2.0 * t2 + t,
            3.0 * t2 - 2.0 * t3,
            t3 - t2,
        );
        let w = a[0] * h00 + a[1] * h10 + b[0] * h01 + b[1] * h11;
        let c = a[2] * h00 + a[3] * h10 + b[2] * h01 + b[3] * h11;
        // Cubic Hermite pieces this short follow the unit circle to within a few f32
        // roundings (tested: 4e-6): no normalising.
        (w, c)
    }
}

/// Solves a chain of any number of segments, bending its joints toward `pole`. `joints`
/// receives `lengths.len() + 1` points (hip first). Returns the reach ratio (as
/// [`TwoBone::reach`]).
///
/// The chain bends evenly (every joint turned by the same angle, toward the pole) so far
/// that its end lies on the target: [`EvenBend`]'s shape, which keeps every length and
/// reaches, so FABRIK's passes run only where that bend cannot reach (a target nearer the
/// hip than the chain can curl). The shape is the same function of hip, target and pole
/// whatever came before.
pub(crate) fn fabrik(
    hip: Vec3,
    target: Vec3,
    chain: &EvenBend,
    pole: Vec3,
    joints: &mut Vec<Vec3>,
) -> f32 {
    joints.clear();
    let lengths = chain.lengths();
    let total = chain.total;
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
    let (w, chord) = chain.at(dist);
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

/// Lays the chain into `joints` from `hip`, bent evenly by `w` toward `bend`, its chord
/// along `dir` (`chord`: the chord's direction in the chain's own plane): segment k's
/// direction is the chord's conjugate times e^{−i·k·θ}.
#[inline]
fn lay_out(
    hip: Vec3,
    dir: Vec3,
    bend: Vec3,
    lengths: &[f32],
    w: Vec2,
    chord: Vec2,
    joints: &mut Vec<Vec3>,
) {
    let mut z = Vec2::new(chord.x, -chord.y);
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

    #[test]
    fn four_at_once_are_each_bit_for_bit_the_single_solve() {
        // Legs in reach, out of reach, folded past their shortest, with uneven bones, a
        // target on the hip, a pole along the hip–foot line and a zero pole: every lane
        // as `two_bone` gives it, wherever it sits among the four.
        let mut cases = Vec::new();
        let mut seed = 0x2545_f491u32;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            (seed as f32 / u32::MAX as f32) * 2.0 - 1.0
        };
        for _ in 0..400 {
            let hip = Vec3::new(next(), next(), next()) * 3.0;
            let target = hip + Vec3::new(next(), next(), next()) * 1.2;
            let (l1, l2) = (0.2 + next().abs() * 0.6, 0.2 + next().abs() * 0.6);
            let pole = Vec3::new(next(), next(), next());
            cases.push((hip, target, l1, l2, pole));
        }
        let hip = Vec3::new(0.5, 1.0, -0.25);
        cases.push((hip, hip, 0.4, 0.5, Vec3::Y));
        cases.push((hip, hip + Vec3::X * 0.6, 0.4, 0.5, Vec3::X));
        cases.push((hip, hip + Vec3::Z * 0.6, 0.4, 0.5, Vec3::ZERO));
        cases.push((hip, hip + Vec3::NEG_Y * 2.0, 0.4, 0.5, Vec3::Z));
        cases.push((hip, hip + Vec3::NEG_Y * 0.01, 0.3, 0.6, Vec3::Z));
        for start in 0..cases.len() {
            let four: [_; 4] = std::array::from_fn(|k| cases[(start + k * 97) % cases.len()]);
            let got = two_bone4(
                four.map(|c| c.0),
                four.map(|c| c.1),
                four.map(|c| c.2),
                four.map(|c| c.3),
                four.map(|c| c.4),
            );
            for (k, (hip, target, l1, l2, pole)) in four.into_iter().enumerate() {
                let want = two_bone(hip, target, l1, l2, pole);
                let bits = |t: TwoBone| {
                    [t.knee.to_array(), t.foot.to_array(), [t.reach; 3]]
                        .map(|a| a.map(f32::to_bits))
                };
                assert_eq!(
                    bits(got[k]),
                    bits(want),
                    "lane {k} of case {start}: {want:?}"
                );
            }
        }
    }

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
        let chain = EvenBend::new(&lengths);
        let reach = fabrik(Vec3::ZERO, t, &chain, Vec3::Y, &mut joints);
        assert_eq!(joints.len(), 4);
        assert!(reach < 1.0);
        assert!(joints[3].distance(t) < 1e-3, "{}", joints[3]);
        for i in 0..3 {
            assert!((joints[i + 1].distance(joints[i]) - lengths[i]).abs() < 1e-4);
        }
        let reach = fabrik(
            Vec3::ZERO,
            Vec3::new(5.0, 0.0, 0.0),
            &chain,
            Vec3::Y,
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
        let chain = EvenBend::new(&lengths);
        let mut joints = Vec::new();
        let mut last: Vec<Vec3> = Vec::new();
        for k in 0..2000 {
            let t = k as f32 / 60.0;
            let hip = Vec3::new(0.1 * t.sin(), 0.05 * (3.0 * t).sin(), 0.2 * t.cos());
            let target = Vec3::new(
                0.7 + 0.3 * (2.0 * t).cos(),
                -0.6 + 0.2 * (2.0 * t).sin().max(0.0),
                0.3 * (2.0 * t).sin(),
            );
            let pole = Vec3::new(0.2 * (0.5 * t).sin(), 1.0, 0.0).normalize();
            fabrik(hip, target, &chain, pole, &mut joints);
            // Every joint turns by the same angle.
            let turns: Vec<f32> = joints
                .windows(3)
                .map(|w| {
                    (w[1] - w[0])
                        .normalize()
                        .angle_between((w[2] - w[1]).normalize())
                })
                .collect();
            for a in &turns {
                assert!(
                    (a - turns[0]).abs() < 1e-3,
                    "tick {k}: uneven turns {turns:?}"
                );
            }
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
            &chain,
            Vec3::X,
            &mut joints,
        );
        assert!(reach < 0.01 && joints.iter().all(|j| j.is_finite()));
        for i in 0..5 {
            assert!((joints[i + 1].distance(joints[i]) - lengths[i]).abs() < 1e-3);
        }
    }

    #[test]
    fn the_tabulated_bend_lands_within_micrometres_everywhere() {
        // Even and uneven chains of 3 to 6 segments, every distance from as near as they
        // curl to straight: the end on the target (the table's turn and chord agree) and
        // every joint where the exact even bend puts it, with no FABRIK pass to help.
        for lengths in [
            vec![0.3, 0.4, 0.3],
            vec![0.1, 0.35, 0.4, 0.3, 0.2],
            vec![0.25; 6],
            vec![0.02, 0.5, 0.05, 0.5],
        ] {
            let chain = EvenBend::new(&lengths);
            let total: f32 = lengths.iter().sum();
            let mut joints = Vec::new();
            let mut worst = 0.0f32;
            for i in 0..=4000 {
                let dist = total * (0.9999 - 0.9 * i as f32 / 4000.0);
                let (w, c) = chain.at(dist);
                assert!(
                    (w.length() - 1.0).abs() < 4e-6 && (c.length() - 1.0).abs() < 4e-6,
                    "{lengths:?} at {dist}: the turn and chord are not unit ({w}, {c})"
                );
                if dist < chain.nearest {
                    continue; // nearer than it curls
                }
                lay_out(Vec3::ZERO, Vec3::X, Vec3::Y, &lengths, w, c, &mut joints);
                let end = joints[lengths.len()];
                worst = worst.max(end.distance(Vec3::new(dist, 0.0, 0.0)));
                joints.clear();
            }
            assert!(
                worst < 2e-6 * total.max(1.0) + 1e-6,
                "{lengths:?}: ends {worst} m off"
            );
        }
    }
}
