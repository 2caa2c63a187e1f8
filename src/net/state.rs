//! A creature's root state on the wire: quantised on the server, delta-coded against a
//! state the viewer acknowledged (predicted forward by that state's own velocity and turn,
//! so a body walking steadily costs a few bits a field), and turned back into a
//! [`PuppetRoot`] on the viewer. Both sides quantise and predict with the same integer
//! arithmetic, so a decoded state is the encoded one exactly.

use glam::{Quat, Vec3};

use super::bits::{BitReader, BitWriter, Malformed};
use crate::locomotion::{Locomotor, PuppetRoot};
use crate::math::frame::wrap_angle;

/// Position unit: 1/512 m (2 mm).
const POS: f32 = 512.0;
/// Velocity unit: 1/64 m/s (what the lean reads, and tangents where no neighbour is).
const VEL: f32 = 64.0;
/// Heading units in a turn (0.022°).
const YAW: f32 = 16384.0;
/// Yaw rate unit: 1/128 rad/s (0.45°/s).
const RATE: f32 = 128.0;
/// Unit of an up vector's or a quaternion's component: 1/16384.
const UNIT: f32 = 16384.0;

/// In the air (falling, jumping).
pub(crate) const AIRBORNE: u32 = 1;
/// Moving apart from its facing.
pub(crate) const STRAFING: u32 = 2;
/// A climber on its surface: `frame` and `align` are sent.
pub(crate) const CLIMBING: u32 = 4;
/// Bits of `flags` that travel.
const FLAG_BITS: u32 = 3;

/// One creature's root, quantised.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct RootQ {
    pub(crate) pos: [i32; 3],
    pub(crate) vel: [i32; 3],
    /// Heading, 0..16384 a turn.
    pub(crate) yaw: i32,
    /// Yaw rate (rad/s × 1024).
    pub(crate) rate: i32,
    /// The support plane's up, x and z (its y is what makes it a unit vector).
    pub(crate) up: [i32; 2],
    pub(crate) flags: u32,
    /// A climber's surface frame and its turns' composition (quaternions, w ≥ 0).
    pub(crate) frame: [i32; 4],
    pub(crate) align: [i32; 4],
}

fn q(x: f32, unit: f32) -> i32 {
    (x * unit).round().clamp(-2.0e9, 2.0e9) as i32
}

fn quat_q(r: Quat) -> [i32; 4] {
    let r = if r.w < 0.0 { -r } else { r };
    [q(r.x, UNIT), q(r.y, UNIT), q(r.z, UNIT), q(r.w, UNIT)]
}

fn quat_f(v: [i32; 4]) -> Quat {
    Quat::from_xyzw(
        v[0] as f32 / UNIT,
        v[1] as f32 / UNIT,
        v[2] as f32 / UNIT,
        v[3] as f32 / UNIT,
    )
    .normalize()
}

/// Heading residual wrapped to half a turn either way.
fn wrap_yaw(d: i32) -> i32 {
    (d + 8192).rem_euclid(16384) - 8192
}

impl RootQ {
    /// A body's root as the server has it after a tick: `rate` is its heading's change
    /// over the tick (rad/s).
    pub(crate) fn of(loco: &Locomotor, rate: f32) -> RootQ {
        let mut flags = 0;
        if loco.airborne {
            flags |= AIRBORNE;
        }
        if loco.strafing {
            flags |= STRAFING;
        }
        let (frame, align) = match loco.climb.as_ref().filter(|_| !loco.airborne) {
            Some(c) => {
                flags |= CLIMBING;
                (quat_q(c.frame), quat_q(c.align))
            }
            None => ([0; 4], [0; 4]),
        };
        let turn = wrap_angle(loco.yaw) / std::f32::consts::TAU;
        RootQ {
            pos: loco.position.to_array().map(|x| q(x, POS)),
            vel: loco.velocity.to_array().map(|x| q(x, VEL)),
            yaw: q(turn, YAW).rem_euclid(16384),
            rate: q(rate, RATE),
            up: [q(loco.up.x, UNIT), q(loco.up.z, UNIT)],
            flags,
            frame,
            align,
        }
    }

    /// The root it stands for.
    pub(crate) fn root(&self) -> PuppetRoot {
        let (ux, uz) = (self.up[0] as f32 / UNIT, self.up[1] as f32 / UNIT);
        let uy = (1.0 - ux * ux - uz * uz).max(0.0).sqrt();
        PuppetRoot {
            position: self.position(),
            yaw: self.yaw_radians(),
            up: Vec3::new(ux, uy, uz).normalize_or(Vec3::Y),
            climb: (self.flags & CLIMBING != 0).then(|| (quat_f(self.frame), quat_f(self.align))),
            velocity: self.velocity(),
            airborne: self.flags & AIRBORNE != 0,
            strafing: self.flags & STRAFING != 0,
        }
    }

    pub(crate) fn position(&self) -> Vec3 {
        Vec3::from_array(self.pos.map(|x| x as f32 / POS))
    }

    pub(crate) fn velocity(&self) -> Vec3 {
        Vec3::from_array(self.vel.map(|x| x as f32 / VEL))
    }

    pub(crate) fn yaw_radians(&self) -> f32 {
        wrap_angle(self.yaw as f32 / YAW * std::f32::consts::TAU)
    }

    pub(crate) fn rate(&self) -> f32 {
        self.rate as f32 / RATE
    }

    /// Still: no speed and no turn (a creature at rest sends nothing while it stays so).
    pub(crate) fn still(&self) -> bool {
        self.vel == [0; 3] && self.rate == 0
    }

    /// This state carried `ticks` ticks forward by its own velocity and turn (integers, the
    /// same on both sides).
    fn predict(&self, ticks: u32) -> RootQ {
        let t = ticks as i64;
        let mut p = *self;
        for i in 0..3 {
            // pos units per tick = vel × (512/64) / 60 = vel × 2 / 15.
            p.pos[i] = (self.pos[i] as i64 + (self.vel[i] as i64 * t * 2).div_euclid(15)) as i32;
        }
        // yaw units per tick = rate / 128 / 60 × 16384 / 2π.
        let turn = (self.rate as i64 * t * 16_384_000).div_euclid(7_680 * 6_283);
        p.yaw = (self.yaw as i64 + turn).rem_euclid(16384) as i32;
        p
    }

    /// Writes this state as residuals against `base` (`None`: against zero) carried
    /// `ticks` forward.
    pub(crate) fn write(&self, w: &mut BitWriter, base: Option<(&RootQ, u32)>) {
        let p = base.map_or_else(RootQ::default, |(b, t)| b.predict(t));
        let b = base.map_or_else(RootQ::default, |(b, _)| *b);
        for i in 0..3 {
            w.sgvar(self.pos[i].wrapping_sub(p.pos[i]));
        }
        w.sgvar(wrap_yaw(self.yaw.wrapping_sub(p.yaw)));
        for i in 0..3 {
            w.sgvar(self.vel[i].wrapping_sub(b.vel[i]));
        }
        w.sgvar(self.rate.wrapping_sub(b.rate));
        for i in 0..2 {
            w.sgvar(self.up[i].wrapping_sub(b.up[i]));
        }
        w.flag(self.flags != b.flags);
        if self.flags != b.flags {
            w.put(self.flags, FLAG_BITS);
        }
        if self.flags & CLIMBING != 0 {
            for i in 0..4 {
                w.sgvar(self.frame[i].wrapping_sub(b.frame[i]));
                w.sgvar(self.align[i].wrapping_sub(b.align[i]));
            }
        }
    }

    /// Reads what [`RootQ::write`] wrote against the same base.
    pub(crate) fn read(r: &mut BitReader, base: Option<(&RootQ, u32)>) -> Result<RootQ, Malformed> {
        let p = base.map_or_else(RootQ::default, |(b, t)| b.predict(t));
        let b = base.map_or_else(RootQ::default, |(b, _)| *b);
        let mut s = RootQ::default();
        for i in 0..3 {
            s.pos[i] = p.pos[i].wrapping_add(r.sgvar()?);
        }
        s.yaw = (p.yaw.wrapping_add(r.sgvar()?)).rem_euclid(16384);
        for i in 0..3 {
            s.vel[i] = b.vel[i].wrapping_add(r.sgvar()?);
        }
        s.rate = b.rate.wrapping_add(r.sgvar()?);
        for i in 0..2 {
            s.up[i] = b.up[i].wrapping_add(r.sgvar()?);
        }
        s.flags = if r.flag()? {
            r.get(FLAG_BITS)?
        } else {
            b.flags
        };
        if s.flags & CLIMBING != 0 {
            for i in 0..4 {
                s.frame[i] = b.frame[i].wrapping_add(r.sgvar()?);
                s.align[i] = b.align[i].wrapping_add(r.sgvar()?);
            }
        }
        Ok(s)
    }
}

/// Hermite interpolation of two roots `h` seconds apart at share `s` (0..1): position with
/// the tangents given (`None`: each end's own velocity), heading from both ends' turn rates,
/// the rest blended.
pub(crate) fn interpolate(
    a: &RootQ,
    b: &RootQ,
    h: f32,
    s: f32,
    tangents: (Option<Vec3>, Option<Vec3>),
) -> PuppetRoot {
    let (ra, rb) = (a.root(), b.root());
    let s = s.clamp(0.0, 1.0);
    let (s2, s3) = (s * s, s * s * s);
    let (h00, h10, h01, h11) = (
        2.0 * s3 - 3.0 * s2 + 1.0,
        s3 - 2.0 * s2 + s,
        -2.0 * s3 + 3.0 * s2,
        s3 - s2,
    );
    let (ta, tb) = (
        tangents.0.unwrap_or(ra.velocity),
        tangents.1.unwrap_or(rb.velocity),
    );
    let position = ra.position * h00 + ta * (h10 * h) + rb.position * h01 + tb * (h11 * h);
    let dyaw = wrap_angle(rb.yaw - ra.yaw);
    let yaw = wrap_angle(ra.yaw + dyaw * h01 + (a.rate() * h10 + b.rate() * h11) * h);
    let climb = match (ra.climb, rb.climb) {
        (Some((fa, aa)), Some((fb, ab))) => Some((fa.slerp(fb, s), aa.slerp(ab, s))),
        (_, c) => c,
    };
    PuppetRoot {
        position,
        yaw,
        up: ra.up.lerp(rb.up, s).normalize_or(Vec3::Y),
        climb,
        velocity: ra.velocity.lerp(rb.velocity, s),
        airborne: if s < 0.5 { ra.airborne } else { rb.airborne },
        strafing: if s < 0.5 { ra.strafing } else { rb.strafing },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walking(x: i32) -> RootQ {
        RootQ {
            pos: [x, 180, -x / 2],
            vel: [75, 1, -37],
            yaw: 16300,
            rate: 5,
            up: [0, 0],
            ..Default::default()
        }
    }

    #[test]
    fn a_delta_decodes_to_the_state_and_a_steady_walk_is_short() {
        let base = walking(1000);
        // Three ticks later, moving on at the same speed and turn.
        let mut now = base.predict(3);
        now.pos[1] += 3;
        now.vel[1] = -4;
        let mut w = BitWriter::default();
        now.write(&mut w, Some((&base, 3)));
        let delta_bits = w.bit_len();
        now.write(&mut w, None);
        let bytes = w.finish();
        let mut r = BitReader::new(&bytes);
        assert_eq!(RootQ::read(&mut r, Some((&base, 3))), Ok(now));
        assert_eq!(RootQ::read(&mut r, None), Ok(now));
        assert!(delta_bits <= 40, "a steady walk's delta: {delta_bits} bits");
        // Heading wraps through the turn's end.
        let mut turned = now;
        turned.yaw = 30;
        let mut w = BitWriter::default();
        turned.write(&mut w, Some((&now, 3)));
        let b = w.finish();
        assert_eq!(
            RootQ::read(&mut BitReader::new(&b), Some((&now, 3))),
            Ok(turned)
        );
    }

    #[test]
    fn a_rigs_rotations_travel_as_their_smallest_three_within_a_tenth_of_a_degree() {
        let mut w = BitWriter::default();
        let turns: Vec<Quat> = (0..40)
            .map(|k| {
                let a = k as f32 * 0.37;
                Quat::from_euler(glam::EulerRot::YXZ, a, a * 1.7 - 2.0, (a * 3.1).sin() * 3.0)
            })
            .collect();
        let q3: Vec<Q3> = turns.iter().map(|r| Q3::of(*r)).collect();
        for (k, q) in q3.iter().enumerate() {
            q.write(&mut w, k.checked_sub(1).map(|p| &q3[p]));
        }
        let b = w.finish();
        let mut r = BitReader::new(&b);
        let mut prev: Option<Q3> = None;
        for (k, t) in turns.iter().enumerate() {
            let got = Q3::read(&mut r, prev.as_ref()).expect("reads");
            assert_eq!(got, q3[k]);
            assert!(got.quat().angle_between(*t).to_degrees() < 0.1, "{k}");
            prev = Some(got);
        }
    }

    #[test]
    fn quantised_roots_are_within_their_units_and_interpolation_meets_both_ends() {
        let a = walking(0);
        let b = a.predict(3);
        let h = 3.0 / 60.0;
        let (ra, rb) = (
            interpolate(&a, &b, h, 0.0, (None, None)),
            interpolate(&a, &b, h, 1.0, (None, None)),
        );
        assert!(ra.position.distance(a.position()) < 1e-5);
        assert!(rb.position.distance(b.position()) < 1e-5);
        assert!(wrap_angle(rb.yaw - b.yaw_radians()).abs() < 1e-4);
        let mid = interpolate(&a, &b, h, 0.5, (None, None));
        let lin = a.position().lerp(b.position(), 0.5);
        assert!(
            mid.position.distance(lin) < 0.01,
            "{} vs {lin}",
            mid.position
        );
    }
}

/// Rig rotations' unit: 1/2048 of a quaternion component (smallest three: a segment's
/// end within a millimetre).
const RIG: f32 = 2048.0;

/// A rotation as its smallest three components (the largest's index and sign dropped:
/// made positive), quantised.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Q3 {
    pub(crate) largest: u8,
    pub(crate) rest: [i32; 3],
}

impl Q3 {
    fn of(r: Quat) -> Q3 {
        let c = r.to_array();
        let largest = (0..4)
            .max_by(|a, b| c[*a].abs().total_cmp(&c[*b].abs()))
            .unwrap_or(3);
        let sign = if c[largest] < 0.0 { -1.0 } else { 1.0 };
        let mut rest = [0; 3];
        let mut k = 0;
        for (i, x) in c.iter().enumerate() {
            if i != largest {
                rest[k] = q(x * sign, RIG);
                k += 1;
            }
        }
        Q3 {
            largest: largest as u8,
            rest,
        }
    }

    fn quat(&self) -> Quat {
        let rest = self.rest.map(|x| x as f32 / RIG);
        let big = (1.0 - rest.iter().map(|x| x * x).sum::<f32>())
            .max(0.0)
            .sqrt();
        let mut c = [0.0f32; 4];
        let mut k = 0;
        for (i, v) in c.iter_mut().enumerate() {
            if i == self.largest as usize % 4 {
                *v = big;
            } else {
                *v = rest[k];
                k += 1;
            }
        }
        Quat::from_array(c).normalize()
    }

    /// Against `base`: its components' changes when the same one is largest, else whole.
    fn write(&self, w: &mut BitWriter, base: Option<&Q3>) {
        let b = base.filter(|b| b.largest == self.largest);
        w.flag(b.is_some());
        if b.is_none() {
            w.put(u32::from(self.largest), 2);
        }
        let b = b.copied().unwrap_or_default();
        for i in 0..3 {
            w.sgvar(self.rest[i].wrapping_sub(b.rest[i]));
        }
    }

    fn read(r: &mut BitReader, base: Option<&Q3>) -> Result<Q3, Malformed> {
        let b = if r.flag()? {
            *base.ok_or(Malformed)?
        } else {
            Q3 {
                largest: r.get(2)? as u8,
                rest: [0; 3],
            }
        };
        let mut s = Q3 {
            largest: b.largest,
            rest: [0; 3],
        };
        for i in 0..3 {
            s.rest[i] = b.rest[i].wrapping_add(r.sgvar()?);
        }
        Ok(s)
    }
}

/// A ragdoll's state: its body part's pose, each limb segment's rotation relative to the
/// body's (a viewer hangs each segment from the one above it), and its phase.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RigQ {
    pub(crate) pos: [i32; 3],
    pub(crate) rot: Q3,
    pub(crate) rels: Vec<Q3>,
    pub(crate) recovering: bool,
}

/// Most limb segments a rig record carries.
const MAX_SEGMENTS: u32 = 256;

impl RigQ {
    pub(crate) fn of(rag: &crate::sim::Ragdoll) -> RigQ {
        let body = rag.parts[0];
        let inv = body.rotation.inverse();
        RigQ {
            pos: body.position.to_array().map(|x| q(x, POS)),
            rot: Q3::of(body.rotation),
            rels: rag.parts[1..]
                .iter()
                .map(|p| Q3::of(inv * p.rotation))
                .collect(),
            recovering: rag.phase == crate::sim::RagdollPhase::Recovering,
        }
    }

    /// The body's pose and every segment's world rotation.
    pub(crate) fn pose(&self) -> (Vec3, Quat, Vec<Quat>) {
        let rot = self.rot.quat();
        let pos = Vec3::from_array(self.pos.map(|x| x as f32 / POS));
        let segs = self.rels.iter().map(|r| rot * r.quat()).collect();
        (pos, rot, segs)
    }

    fn write(&self, w: &mut BitWriter, base: Option<&RigQ>) {
        let b = base.cloned().unwrap_or_default();
        for i in 0..3 {
            w.sgvar(self.pos[i].wrapping_sub(b.pos[i]));
        }
        self.rot.write(w, base.map(|b| &b.rot));
        w.uvar(self.rels.len() as u32);
        for (k, r) in self.rels.iter().enumerate() {
            r.write(w, base.and_then(|b| b.rels.get(k)));
        }
        w.flag(self.recovering);
    }

    fn read(r: &mut BitReader, base: Option<&RigQ>) -> Result<RigQ, Malformed> {
        let b = base.cloned().unwrap_or_default();
        let mut s = RigQ::default();
        for i in 0..3 {
            s.pos[i] = b.pos[i].wrapping_add(r.sgvar()?);
        }
        s.rot = Q3::read(r, base.map(|b| &b.rot))?;
        let n = r.uvar()?;
        if n > MAX_SEGMENTS {
            return Err(Malformed);
        }
        for k in 0..n as usize {
            s.rels.push(Q3::read(r, base.and_then(|b| b.rels.get(k)))?);
        }
        s.recovering = r.flag()?;
        Ok(s)
    }
}

/// A creature's state in a snapshot: animated (its root) or in physics (its rig).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum StateQ {
    Root(RootQ),
    Rig(RigQ),
}

impl StateQ {
    /// Nothing to carry it on by: at rest, or a rig (shown as last sent until the next).
    pub(crate) fn still(&self) -> bool {
        match self {
            StateQ::Root(r) => r.still(),
            StateQ::Rig(_) => true,
        }
    }

    pub(crate) fn position(&self) -> Vec3 {
        match self {
            StateQ::Root(r) => r.position(),
            StateQ::Rig(g) => Vec3::from_array(g.pos.map(|x| x as f32 / POS)),
        }
    }

    /// Writes a kind bit, then the state against `base` when it is of the same kind.
    pub(crate) fn write(&self, w: &mut BitWriter, base: Option<(&StateQ, u32)>) {
        match self {
            StateQ::Root(s) => {
                w.flag(false);
                let b = match base {
                    Some((StateQ::Root(b), t)) => Some((b, t)),
                    _ => None,
                };
                s.write(w, b);
            }
            StateQ::Rig(s) => {
                w.flag(true);
                let b = match base {
                    Some((StateQ::Rig(b), _)) => Some(b),
                    _ => None,
                };
                s.write(w, b);
            }
        }
    }

    pub(crate) fn read(
        r: &mut BitReader,
        base: Option<(&StateQ, u32)>,
    ) -> Result<StateQ, Malformed> {
        if r.flag()? {
            let b = match base {
                Some((StateQ::Rig(b), _)) => Some(b),
                _ => None,
            };
            Ok(StateQ::Rig(RigQ::read(r, b)?))
        } else {
            let b = match base {
                Some((StateQ::Root(b), t)) => Some((b, t)),
                _ => None,
            };
            Ok(StateQ::Root(RootQ::read(r, b)?))
        }
    }
}

/// A rig between two states: positions blended, rotations slerped.
pub(crate) fn interpolate_rig(a: &RigQ, b: &RigQ, s: f32) -> (Vec3, Quat, Vec<Quat>) {
    let (pa, ra, sa) = a.pose();
    let (pb, rb, sb) = b.pose();
    if sa.len() != sb.len() {
        return if s < 0.5 { (pa, ra, sa) } else { (pb, rb, sb) };
    }
    let segs = sa.iter().zip(&sb).map(|(x, y)| x.slerp(*y, s)).collect();
    (pa.lerp(pb, s), ra.slerp(rb, s), segs)
}
