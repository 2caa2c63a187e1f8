//! A chain of points on damped springs — a tail, an antenna, an abdomen: its first point
//! rides on what carries it, and each further point chases where its rest shape would put it
//! on the point before it *as simulated* (so a lag at the root becomes a whip at the tip),
//! with gravity, drag and a floor it never passes through. Integrated in fixed sub-steps of
//! at most [`SUBSTEP`] seconds with the rest shape interpolated across a tick, so the motion
//! does not depend on the tick rate (30, 60 and 144 Hz agree within 5 mm: the tests).

use glam::{Quat, Vec3, Vec3A};

/// The longest sub-step (s).
pub(crate) const SUBSTEP: f32 = 1.0 / 60.0;
/// Below this speed (m/s) at every point, on a rest shape that has not moved, a chain is
/// settled and left as it is.
const SETTLED: f32 = 1e-3;
/// Most chains [`SpringChain::step_together`] steps side by side (more go in turns).
pub(crate) const AT_ONCE: usize = 4;
/// Most points a chain simulates (more are left riding on the last).
pub(crate) const MAX: usize = 32;
/// Gravity (m/s²) that `gravity = 1` means.
const G: f32 = 9.81;

/// How a chain moves.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SpringParams {
    /// Pull toward the rest shape (1/s²: its natural frequency squared).
    pub stiffness: f32,
    /// Damping of motion relative to the rest shape (1/s).
    pub damping: f32,
    /// Share of world gravity that weighs on it (0: none).
    pub gravity: f32,
    /// Damping of motion through the air (1/s): a cape's, a wing's.
    pub drag: f32,
}

impl Default for SpringParams {
    fn default() -> SpringParams {
        SpringParams {
            stiffness: 220.0,
            damping: 20.0,
            gravity: 0.2,
            drag: 0.3,
        }
    }
}

/// One point's rest shape for a sub-step: its bone and its parent's (the rest shape's), how
/// fast the rest shape carries it, its bone's length.
struct Step {
    bone: Vec3A,
    /// The parent's rest bone and the inverse of its length (0: none).
    parent_bone: Option<(Vec3A, f32)>,
    target_v: Vec3A,
    len: f32,
    /// 1 / the sub-step's length.
    inv_h: f32,
    /// The ground's height under the point, if any.
    floor: Option<f32>,
}

/// A chain's simulated state: its points (root first) and their velocities, and the rest
/// shape it was last given — in one buffer (`[points | velocities | rest]`), so a crowd's
/// chains cost one memory block each, not three; SIMD vectors (`Vec3A`), four lanes a
/// point: a crowd's chains are arithmetic-bound.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct SpringChain {
    data: Vec<Vec3A>,
    /// Its last step left it still (see [`SETTLED`]).
    settled: bool,
}

impl SpringChain {
    /// A chain at rest in `rest`.
    pub(crate) fn at_rest(rest: &[Vec3]) -> SpringChain {
        let n = rest.len();
        let mut data = Vec::with_capacity(3 * n);
        data.extend(rest.iter().map(|p| Vec3A::from(*p)));
        data.resize(2 * n, Vec3A::ZERO);
        data.extend(rest.iter().map(|p| Vec3A::from(*p)));
        SpringChain {
            data,
            settled: false,
        }
    }

    /// Its points, root first, as simulated.
    pub(crate) fn points(&self) -> impl ExactSizeIterator<Item = Vec3> + '_ {
        self.data[..self.data.len() / 3]
            .iter()
            .map(|p| Vec3::from(*p))
    }

    /// Its last point (the tip), as simulated.
    pub(crate) fn tip(&self) -> Option<Vec3> {
        self.points().last()
    }

    /// Whether it holds `n` points, all finite.
    #[cfg(test)]
    pub(crate) fn fits(&self, n: usize) -> bool {
        self.data.len() == 3 * n && self.points().all(|p| p.is_finite())
    }

    /// One tick of `dt` seconds toward the rest shape `rest` (where the points would be if
    /// the chain were rigid on what carries it, this tick). `floor(p)`: the ground's height
    /// under `p`, if any; `radius`: how far each point keeps above it.
    #[cfg(test)]
    pub(crate) fn step(
        &mut self,
        rest: &[Vec3],
        params: &SpringParams,
        dt: f32,
        radius: f32,
        floor: &mut dyn FnMut(Vec3) -> Option<f32>,
    ) {
        SpringChain::step_together(
            std::slice::from_mut(self),
            &[rest],
            &[params],
            dt,
            radius,
            floor,
        );
    }

    /// Steps several chains by one tick ([`SpringChain::step`] for each, `rests[k]` and
    /// `params[k]` for chain `k`), point by point across the chains: each point's work
    /// waits on its parent's, so a chain alone keeps the processor waiting, and the
    /// chains side by side fill it. Most four chains at a time.
    pub(crate) fn step_together(
        chains: &mut [SpringChain],
        rests: &[&[Vec3]],
        params: &[&SpringParams],
        dt: f32,
        radius: f32,
        floor: &mut dyn FnMut(Vec3) -> Option<f32>,
    ) {
        let mut rests = rests.iter().zip(params);
        for group in chains.chunks_mut(AT_ONCE) {
            let mut going: [Option<Going<'_>>; AT_ONCE] = Default::default();
            let (mut subs, mut longest, mut same) = (None, 0, true);
            for (chain, slot) in group.iter_mut().zip(going.iter_mut()) {
                let Some((rest, p)) = rests.next() else { break };
                *slot = chain.begin(rest, p, dt);
                if let Some(g) = slot {
                    same &= *subs.get_or_insert(g.subs) == g.subs;
                    longest = longest.max(g.rest.len());
                }
            }
            let Some(subs) = subs else { continue };
            if !same {
                // Different sub-steps: one after another.
                for g in going.iter_mut().flatten() {
                    for s in 1..=g.subs {
                        g.root(s);
                        for i in 1..g.rest.len() {
                            g.point(i, radius, floor);
                        }
                    }
                }
            } else {
                for s in 1..=subs {
                    going.iter_mut().flatten().for_each(|g| g.root(s));
                    for i in 1..longest {
                        for g in going.iter_mut().flatten() {
                            if i < g.rest.len() {
                                g.point(i, radius, floor);
                            }
                        }
                    }
                }
            }
            going.into_iter().flatten().for_each(Going::end);
        }
    }

    /// Starts a tick of `dt` toward `rest`; `None` when there is nothing more to do (a
    /// chain reset to `rest`, riding it rigidly, or settled on a rest shape that has not
    /// moved).
    fn begin<'a>(
        &'a mut self,
        rest: &'a [Vec3],
        params: &'a SpringParams,
        dt: f32,
    ) -> Option<Going<'a>> {
        let n = rest.len();
        if self.data.len() != 3 * n {
            *self = SpringChain::at_rest(rest);
            return None;
        }
        let (points, tail) = self.data.split_at_mut(n);
        let (velocities, last) = tail.split_at_mut(n);
        if !(dt > 0.0) || !(2..=MAX).contains(&n) {
            // (Longer than [`MAX`]: it rides along rigidly.)
            copy(points, rest);
            copy(last, rest);
            return None;
        }
        // At rest on a body that has not moved: nothing to do (a crowd standing about).
        if self.settled && last.iter().zip(rest).all(|(a, b)| Vec3::from(*a) == *b) {
            return None;
        }
        // Sub-steps no longer than SUBSTEP, nor than a stiff or heavily damped chain stays
        // steady over (ω·h and c·h at most a half).
        let fastest = params.stiffness.sqrt().max(params.damping + params.drag);
        let subs = (dt / SUBSTEP)
            .max(dt * fastest / 0.5)
            .ceil()
            .clamp(1.0, 64.0) as usize;
        Some(Going {
            chain: Chain { points, velocities },
            last,
            rest,
            params,
            settled: &mut self.settled,
            subs,
            h: dt / subs as f32,
            inv_h: subs as f32 / dt,
            gravity: Vec3A::NEG_Y * (G * params.gravity),
            parent: Vec3A::ZERO,
            grand: Vec3A::ZERO,
            parent_inv: 0.0,
            k: (0.0, 0.0),
        })
    }
}

/// A chain's tick in progress: sub-step by sub-step, each starting at its root
/// ([`Going::root`]) and going down its points in order ([`Going::point`]).
struct Going<'a> {
    chain: Chain<'a>,
    /// The rest shape it was given last tick, and this tick's.
    last: &'a mut [Vec3A],
    rest: &'a [Vec3],
    params: &'a SpringParams,
    settled: &'a mut bool,
    subs: usize,
    /// The sub-step's length (s), and its inverse.
    h: f32,
    inv_h: f32,
    gravity: Vec3A,
    /// The rest shape's points before the next one this sub-step (walked down the chain),
    /// and the inverse of the length of the bone between them.
    parent: Vec3A,
    grand: Vec3A,
    parent_inv: f32,
    /// How far through the tick the sub-step starts and ends (0..1).
    k: (f32, f32),
}

impl Going<'_> {
    /// Point `i` of the rest shape a fraction `k` of the way through the tick.
    #[inline]
    fn at(&self, i: usize, k: f32) -> Vec3A {
        self.last[i].lerp(Vec3A::from(self.rest[i]), k)
    }

    /// Sub-step `s` (from 1) begins: the root moves to where the rest shape has it.
    fn root(&mut self, s: usize) {
        self.k = (
            (s - 1) as f32 / self.subs as f32,
            s as f32 / self.subs as f32,
        );
        let root = self.at(0, self.k.1);
        self.chain.velocities[0] = (root - self.chain.points[0]) * self.inv_h;
        self.chain.points[0] = root;
        (self.parent, self.grand) = (root, root);
    }

    /// Point `i`'s part of the sub-step (after its parent's).
    #[inline(always)]
    fn point(&mut self, i: usize, radius: f32, floor: &mut dyn FnMut(Vec3) -> Option<f32>) {
        let (k0, k) = self.k;
        let here = self.at(i, k);
        // The bone's length, and its inverse (0 for a bone of no length): the rest shape's
        // alone, off the path each point's work waits on; the next point's bone turns by
        // a product with it, not a square root and a division.
        let len = self.rest[i].distance(self.rest[i - 1]);
        let inv = if len > 1e-6 { 1.0 / len } else { 0.0 };
        let step = Step {
            bone: here - self.parent,
            parent_bone: (i >= 2).then(|| (self.parent - self.grand, self.parent_inv)),
            target_v: (here - self.at(i, k0)) * self.inv_h,
            len,
            inv_h: self.inv_h,
            floor: floor(self.chain.points[i].into()),
        };
        self.chain
            .sub_step(i, &step, self.params, self.gravity, self.h, radius);
        (self.grand, self.parent, self.parent_inv) = (self.parent, here, inv);
    }

    /// The tick ends: this rest shape is the last, and the chain settled or not (or reset
    /// to rest, if a point went bad).
    fn end(self) {
        copy(self.last, self.rest);
        let (mut settled, mut finite) = (true, true);
        for (p, v) in self.chain.points.iter().zip(self.chain.velocities.iter()) {
            settled &= v.length_squared() < SETTLED * SETTLED;
            finite &= p.is_finite();
        }
        *self.settled = settled && finite;
        if !finite {
            copy(self.chain.points, self.rest);
            self.chain.velocities.fill(Vec3A::ZERO);
        }
    }
}

/// `to` set to `from`, point by point.
fn copy(to: &mut [Vec3A], from: &[Vec3]) {
    for (t, f) in to.iter_mut().zip(from) {
        *t = Vec3A::from(*f);
    }
}

/// A chain's points and velocities, borrowed for a step.
struct Chain<'a> {
    points: &'a mut [Vec3A],
    velocities: &'a mut [Vec3A],
}

impl Chain<'_> {
    /// Point `i`'s sub-step of `h` seconds: toward where the rest shape puts it on the point
    /// before it as simulated, its bone kept its length, over the floor (plus `radius`).
    #[inline(always)]
    fn sub_step(
        &mut self,
        i: usize,
        step: &Step,
        params: &SpringParams,
        gravity: Vec3A,
        h: f32,
        radius: f32,
    ) {
        // Where the rest shape puts this point on its parent as simulated.
        let target = match step.parent_bone {
            // (The simulated parent bone keeps the rest bone's length: the same inverse
            // makes both unit.)
            Some((rest_parent, inv)) if inv > 0.0 => {
                let from = rest_parent * inv;
                let to = (self.points[i - 1] - self.points[i - 2]) * inv;
                self.points[i - 1] + turn_by_arc(from, to, step.bone)
            }
            _ => self.points[i - 1] + step.bone,
        };
        let (target_v, len) = (step.target_v, step.len);
        let v = self.velocities[i];
        let a = (target - self.points[i]) * params.stiffness
            - (v - target_v) * params.damping
            - v * params.drag
            + gravity;
        let v = v + a * h;
        let start = self.points[i];
        let parent = self.points[i - 1];
        // Each bone keeps its length.
        let mut p = parent + (start + v * h - parent).normalize_or(Vec3A::Y) * len;
        let mut v = (p - start) * step.inv_h;
        if let Some(g) = step.floor.filter(|g| p.y < g + radius) {
            // On the ground, its bone's length kept along the ground.
            p.y = g + radius;
            let dy = p.y - parent.y;
            let flat = Vec3A::new(p.x - parent.x, 0.0, p.z - parent.z).normalize_or(Vec3A::X);
            if dy.abs() < len {
                let r = (len * len - dy * dy).sqrt();
                p.x = parent.x + flat.x * r;
                p.z = parent.z + flat.z * r;
            }
            v = (p - start) * step.inv_h;
            v.y = v.y.max(0.0);
        }
        self.points[i] = p;
        self.velocities[i] = v;
    }
}

/// `v` turned by the least rotation taking unit `from` to unit `to` (Rodrigues' formula with
/// the half-angle folded in: no square root, no quaternion); opposite directions turn it
/// half a turn about an axis across `from`.
#[inline]
fn turn_by_arc(from: Vec3A, to: Vec3A, v: Vec3A) -> Vec3A {
    let c = from.dot(to);
    if c < -0.9999 {
        return Quat::from_rotation_arc(from.into(), to.into()) * v;
    }
    let k = from.cross(to);
    v * c + k.cross(v) + k * (k.dot(v) / (1.0 + c))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 4-point tail trailing 0.45 m behind a body that walks +x at 1.5 m/s for a second
    /// and stops dead, stepped at `hz`: the tip's x sampled every 1/6 s, and its offset from
    /// its rest place every tick.
    fn stop_dead(hz: f32) -> (Vec<f32>, Vec<Vec3>) {
        let dt = 1.0 / hz;
        let rest_at = |x: f32| -> Vec<Vec3> {
            (0..4)
                .map(|k| Vec3::new(x - 0.15 * k as f32, 0.5, 0.0))
                .collect()
        };
        let mut chain = SpringChain::at_rest(&rest_at(0.0));
        let mut samples = Vec::new();
        let mut tip_minus_rest = Vec::new();
        let ticks = (4.0 * hz).round() as usize;
        for t in 1..=ticks {
            let time = t as f32 * dt;
            let x = 1.5 * time.min(1.0);
            let rest = rest_at(x);
            chain.step(&rest, &SpringParams::default(), dt, 0.02, &mut |_| {
                Some(0.0)
            });
            tip_minus_rest.push(chain.tip().expect("tip") - rest[3]);
            if (time * 6.0 - (time * 6.0).round()).abs() < 1e-3 {
                samples.push(chain.tip().expect("tip").x);
            }
        }
        (samples, tip_minus_rest)
    }

    #[test]
    fn turning_by_an_arc_is_the_quaternions_turn() {
        let dirs = [
            Vec3::new(0.3, -0.9, 0.2),
            Vec3::new(-0.8, 0.1, 0.5),
            Vec3::Y,
            Vec3::NEG_Y,
            Vec3::new(0.0, 0.0, 1.0),
        ];
        for a in dirs {
            for b in dirs {
                let (a, b) = (a.normalize(), b.normalize());
                let v = Vec3::new(0.4, -1.3, 0.7);
                let want = Quat::from_rotation_arc(a, b) * v;
                assert!(
                    (Vec3::from(turn_by_arc(a.into(), b.into(), v.into())) - want).length() < 1e-4,
                    "{a} {b}"
                );
            }
        }
    }

    #[test]
    fn a_tail_on_a_walker_that_stops_dead_swings_past_rest_and_settles() {
        let hz = 60.0;
        let (_, d) = stop_dead(hz);
        // Against where it rests in the end (gravity sags it a little off its rest shape).
        let settled = *d.last().expect("ticks");
        let d: Vec<f32> = d.iter().map(|v| v.distance(settled)).collect();
        // (The tick it stops.)
        let stop = hz as usize;
        // Walking steadily, the tail is carried: the tip stays within 2 cm of where it rests
        // (the air's drag pulls on it); stopped dead, it swings on past it (forward)…
        let trail = d[stop - 1];
        assert!(trail < 0.02, "the walking tail's tip is {trail} m off");
        let over = d[stop..].iter().fold(f32::MIN, |m, v| m.max(*v));
        assert!(
            (0.01..0.15).contains(&over),
            // (1.5 m/s stopped dead: the tail's own momentum carries it.)
            "the tip swung {over} m off its rest after the stop (wanted 1–15 cm)"
        );
        // … and settles: within 5 mm of rest from 1.5 s after the stop.
        let settle = stop + (1.5 * hz) as usize;
        let worst = d[settle..].iter().fold(0.0f32, |m, v| m.max(*v));
        assert!(
            worst < 0.005,
            "still {worst} m off rest 1.5 s after stopping"
        );
    }

    #[test]
    fn the_swing_is_the_same_at_30_60_and_144_hz() {
        let (a, _) = stop_dead(30.0);
        let (b, _) = stop_dead(60.0);
        let (c, _) = stop_dead(144.0);
        assert_eq!(a.len(), 24);
        assert_eq!(b.len(), 24);
        assert_eq!(c.len(), 24);
        for k in 0..24 {
            let spread = [a[k], b[k], c[k]]
                .iter()
                .fold((f32::MAX, f32::MIN), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
            assert!(
                spread.1 - spread.0 < 0.005,
                "at {:.2} s the tip is at {} / {} / {} (30/60/144 Hz)",
                (k + 1) as f32 / 6.0,
                a[k],
                b[k],
                c[k]
            );
        }
    }

    #[test]
    fn chains_stepped_side_by_side_move_as_each_alone() {
        // Three chains of 2, 4 and 3 points swung by a body that circles (all alike, then
        // one stiffer: more sub-steps): stepped together and one by one, the same to the bit.
        let shape = |n: usize, t: f32, k: f32| -> Vec<Vec3> {
            let at = Vec3::new(t.sin(), 0.4 + 0.05 * (3.0 * t).sin(), t.cos());
            (0..n)
                .map(|j| at + Vec3::new(0.02 * k, -0.1 * j as f32, -0.12 * j as f32))
                .collect()
        };
        let stiff = SpringParams {
            stiffness: 2000.0,
            ..SpringParams::default()
        };
        let soft = SpringParams::default();
        for middle in [&soft, &stiff] {
            let params = [&soft, middle, &soft];
            let sizes = [2usize, 4, 3];
            let mut together: Vec<SpringChain> = sizes
                .iter()
                .map(|n| SpringChain::at_rest(&shape(*n, 0.0, 0.0)))
                .collect();
            let mut alone = together.clone();
            let mut floor = |p: Vec3| (p.y < 0.4).then_some(0.1 * p.x);
            for tick in 1..=120 {
                let t = tick as f32 / 60.0 * 2.0;
                let rests: Vec<Vec<Vec3>> = sizes
                    .iter()
                    .enumerate()
                    .map(|(k, n)| shape(*n, t, k as f32))
                    .collect();
                let refs: Vec<&[Vec3]> = rests.iter().map(|r| &r[..]).collect();
                let dt = 1.0 / 60.0;
                SpringChain::step_together(&mut together, &refs, &params, dt, 0.02, &mut floor);
                for k in 0..3 {
                    alone[k].step(&rests[k], params[k], dt, 0.02, &mut floor);
                }
            }
            assert_eq!(together, alone);
            let tip = together[1].tip().expect("tip");
            assert!(tip.distance(shape(4, 4.0, 1.0)[3]) > 1e-3, "it swings");
        }
    }

    #[test]
    fn a_hanging_chain_stays_on_the_floor_and_a_bad_rest_resets_it() {
        // Rest shape straight down through the floor: the chain lies on it, never under.
        let rest: Vec<Vec3> = (0..5)
            .map(|k| Vec3::new(0.0, 0.3 - 0.15 * k as f32, 0.0))
            .collect();
        let mut chain = SpringChain::at_rest(&rest);
        let params = SpringParams {
            gravity: 1.0,
            ..SpringParams::default()
        };
        for _ in 0..240 {
            chain.step(&rest, &params, 1.0 / 60.0, 0.02, &mut |_| Some(0.0));
            for p in chain.points().skip(1) {
                assert!(p.y >= 0.02 - 1e-5, "a point under the floor: {p}");
            }
        }
        // Lengths kept.
        for w in chain.points().collect::<Vec<_>>().windows(2) {
            assert!((w[0].distance(w[1]) - 0.15).abs() < 1e-4);
        }
        let bad = vec![Vec3::NAN; 5];
        chain.step(&bad, &params, 1.0 / 60.0, 0.02, &mut |_| None);
        chain.step(&rest, &params, 1.0 / 60.0, 0.02, &mut |_| None);
        assert!(chain.fits(5), "{:?}", chain.points().collect::<Vec<_>>());
    }
}
