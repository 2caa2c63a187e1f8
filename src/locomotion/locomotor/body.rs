//! The body on its legs: its height and tilt from the support plane of the feet (a
//! critically damped spring that never dives or jolts), and every leg's IK from hip to foot.

use glam::{Quat, Vec3};

use super::{
    Locomotor, Scratch, BODY_ACCEL_MAX, CAST_ABOVE_BODY, CAST_BELOW_REST, HEIGHT_TAU, HOLD_FROM,
    LAND_DECEL, MAX_TILT,
};
use crate::locomotion::def::ValidCreatureDef;
use crate::locomotion::ground::GroundQuery;
use crate::locomotion::posture::{clamp_tilt, fit_plane};
use crate::math::frame::horizontal;
use crate::math::ik::{fabrik, two_bone, two_bone4};

/// How far (m) the body's underside keeps over the ground under it.
const UNDERSIDE_GAP: f32 = 0.01;
/// Ground casts under the whole body (see `Locomotor::body_floor`).
pub(super) const FLOOR_PROBES: usize = 6;
/// A foot standing higher than this (m) below the body's underside has it probe under the
/// whole underside, not only its middle.
const NEAR_UNDERSIDE: f32 = 0.05;
/// How far (m) the body's height target must be above it for the body to lift at
/// [`RISE_ACCEL_MAX`] instead of the posture's usual limit.
const RISE_FROM: f32 = 0.1;
/// Upward acceleration (m/s²) onto a support that rose all at once (1.3 mm per tick²).
const RISE_ACCEL_MAX: f32 = 4.6;

impl Locomotor {
    /// Eases the body's height and tilt toward the plane through the support points
    /// (planted feet, and the landing spots of swinging ones that have ground to land on).
    /// `dt = 0` snaps.
    pub(super) fn fit_body<G: GroundQuery + ?Sized>(
        &mut self,
        def: &ValidCreatureDef,
        dt: f32,
        yaw: Quat,
        ground: &G,
        scratch: &mut Scratch,
    ) -> Quat {
        let (height, normal) = if def.legs.is_empty() && self.follow.is_some() {
            (self.position.y, Vec3::Y)
        } else if let Some(hover) = def.body.hover.filter(|_| def.legs.is_empty()) {
            let origin = self.position + Vec3::Y * CAST_ABOVE_BODY;
            match ground.cast_down(origin, CAST_ABOVE_BODY + hover + CAST_BELOW_REST + 50.0) {
                Some(p) => (p.y + hover, Vec3::Y),
                None => (self.position.y, Vec3::Y),
            }
        } else {
            let support = self.support(def, scratch);
            self.floor = support.map(|(h, n)| {
                let ahead = self.position + horizontal(self.velocity) * (2.0 * HEIGHT_TAU);
                (Vec3::new(ahead.x, h - def.body.height, ahead.z), n)
            });
            support.unwrap_or((self.position.y, Vec3::Y))
        };
        // A posture a brain asked for: raised or lowered, tilted on the feet.
        self.stance.advance(dt);
        let posed = !self.stance.is_default();
        let (tilt, raise) = self.stance_offsets(def);
        let height = if posed { height + raise } else { height };
        self.ride_y = height;
        let [b, _] = scratch.alphas(dt);
        self.ease_up(normal, b);
        let rot = Quat::from_rotation_arc(Vec3::Y, self.up) * yaw;
        let rot = if posed { rot * tilt } else { rot };
        if dt == 0.0 {
            self.position.y = height;
            self.rise = 0.0;
            return rot;
        }
        // Never rise so high that a planted foot would have to stretch past its reach, but
        // never pull the body down for one either: a stretched foot steps instead.
        // A jump's crouch lowers the height the feet give (never the cap: that only keeps
        // the body from rising).
        let target = (height - self.crouch).min(self.reach_cap(def, rot).max(self.position.y));
        // And never so low that the body's underside meets the ground under it (a box's
        // edge between the feet, a rock it straddles): that wins over the legs' reach.
        let target = if def.legs.is_empty() {
            target
        } else {
            // Under its whole underside where a foot stands near that height (a box's edge,
            // a ramp it straddles); else under its middle only (a rock between the feet).
            let top = scratch
                .points
                .iter()
                .fold(f32::NEG_INFINITY, |m, p| m.max(p.y));
            let near = top + 0.5 * def.body.size.y + NEAR_UNDERSIDE > target;
            target.max(self.body_floor(def, rot, ground, near))
        };
        // The drawn body (lowered by the lean's sink) follows its target as a critically
        // damped spring with a bounded acceleration (a landing may brake harder): steps,
        // rocks, slopes and the lean never jolt it.
        let max_a = if self.landing {
            self.catch.max(LAND_DECEL)
        } else {
            BODY_ACCEL_MAX
        };
        let w = 1.0 / HEIGHT_TAU;
        let drawn = self.position.y - self.sink;
        let error = target - self.sink - drawn;
        // Lifting onto something higher than a step's worth (a ledge, a ramp's side) it may
        // push up a little harder: the support ahead rose all at once.
        let up_a = if error > RISE_FROM {
            max_a.max(RISE_ACCEL_MAX)
        } else {
            max_a
        };
        let a = (w * w * error - 2.0 * w * self.rise).clamp(-max_a, up_a);
        self.rise += a * dt;
        self.position.y = drawn + self.rise * dt + self.sink;
        if self.landing && self.rise.abs() < 0.05 && error.abs() < 0.01 {
            self.landing = false;
        }
        rot
    }

    /// The plane through the support points (planted feet, and the landing spots of
    /// swinging ones that have ground to land on): the ride height it gives the body and its
    /// tilt-limited normal. `None` with no support point. Left in `scratch.points`.
    pub(super) fn support(
        &self,
        def: &ValidCreatureDef,
        scratch: &mut Scratch,
    ) -> Option<(f32, Vec3)> {
        // A foot hanging over no ground (see `swing`) holds nothing up.
        scratch.points.clear();
        for st in &self.legs {
            if st.grounded {
                scratch.points.push(st.foot);
            } else if st.target_hit {
                scratch.points.push(st.target);
            }
        }
        // The plane's height a little ahead (2τ of the body's motion): exactly the lag of
        // the height spring on an even slope, and a head start on a step.
        let ahead = self.position + horizontal(self.velocity) * (2.0 * HEIGHT_TAU);
        let plane = fit_plane(&scratch.points, Vec3::new(ahead.x, 0.0, ahead.z))?;
        Some((
            plane.height + def.body.height,
            clamp_tilt(plane.normal, MAX_TILT),
        ))
    }

    /// How far to lower the body so that no hip rises above where it was unleaned: the
    /// lean then never pulls a planted foot past its reach (the body settles into it).
    pub(super) fn sink_for(def: &ValidCreatureDef, base: Quat, posed: Quat, up: Vec3) -> f32 {
        let (mb, mp) = (glam::Mat3::from_quat(base), glam::Mat3::from_quat(posed));
        if up == Vec3::Y {
            def.legs
                .iter()
                .map(|l| (mp * l.hip).y - (mb * l.hip).y)
                .fold(0.0f32, f32::max)
        } else {
            def.legs
                .iter()
                .map(|l| (mp * l.hip - mb * l.hip).dot(up))
                .fold(0.0f32, f32::max)
        }
    }

    /// Eases the body's up toward `normal` by the spring's fraction `b` this tick.
    pub(super) fn ease_up(&mut self, normal: Vec3, b: f32) {
        self.up = (self.up + (normal - self.up) * b).normalize_or(Vec3::Y);
    }

    /// The lowest the body's centre may ride so that its underside (the ellipsoid of
    /// `body.size`, posed by `rot`) clears the ground under it by [`UNDERSIDE_GAP`]: probed
    /// under its middle, at 0.6 of its half-extents to the sides, front and back (where the
    /// ellipsoid's underside is 0.8 of its half-height down), and under its middle where the
    /// posture looks ahead. Ground above the body's middle is not this rule's (a ceiling, a
    /// wall it walks against): only ground up to the height of the probe's own centre counts.
    /// `all = false`: under its middle only (one cast instead of [`FLOOR_PROBES`]).
    fn body_floor<G: GroundQuery + ?Sized>(
        &self,
        def: &ValidCreatureDef,
        rot: Quat,
        ground: &G,
        all: bool,
    ) -> f32 {
        let half = 0.5 * def.body.size;
        let (sx, sz) = (0.6 * half.x, 0.6 * half.z);
        let low = 0.8 * half.y;
        let ahead = horizontal(self.velocity) * (2.0 * HEIGHT_TAU);
        let probes: [(Vec3, Vec3); FLOOR_PROBES] = [
            (Vec3::new(0.0, -half.y, 0.0), Vec3::ZERO),
            (Vec3::new(sx, -low, 0.0), Vec3::ZERO),
            (Vec3::new(-sx, -low, 0.0), Vec3::ZERO),
            (Vec3::new(0.0, -low, sz), Vec3::ZERO),
            (Vec3::new(0.0, -low, -sz), Vec3::ZERO),
            (Vec3::new(0.0, -half.y, 0.0), ahead),
        ];
        let mut floor = f32::NEG_INFINITY;
        let used = if all { FLOOR_PROBES } else { 1 };
        for &(under, shift) in &probes[..used] {
            let under = rot * under;
            let at = self.position + horizontal(under) + shift;
            let reach = -under.y + CAST_BELOW_REST;
            if let Some(g) = ground.cast_down(at, reach) {
                floor = floor.max(g.y + UNDERSIDE_GAP - under.y);
            }
        }
        floor
    }

    /// The highest the body may stand so that every planted foot stays within
    /// [`HOLD_FROM`] of its leg's length (infinite when no foot limits it).
    pub(super) fn reach_cap(&self, def: &ValidCreatureDef, rot: Quat) -> f32 {
        let mut cap = f32::INFINITY;
        for (leg, st) in def.legs.iter().zip(self.legs.iter()) {
            if !st.grounded {
                continue;
            }
            let hip = rot * leg.hip;
            let d = horizontal(self.position + hip - st.foot).length();
            let max = HOLD_FROM * leg.length;
            if d < max {
                cap = cap.min(st.foot.y + (max * max - d * d).sqrt() - hip.y);
            }
        }
        cap
    }

    /// Solves every leg from its hip (on the posed body) to its foot.
    pub(super) fn solve_ik(
        &mut self,
        def: &ValidCreatureDef,
        at: Vec3,
        rot: Quat,
        scratch: &mut Scratch,
    ) {
        // One matrix for all legs: cheaper than a quaternion product per vector.
        let m = glam::Mat3::from_quat(rot);
        for (leg, st) in def.legs.iter().zip(self.legs.iter_mut()) {
            st.hip = at + m * leg.hip;
            st.pole = m * leg.knee;
            if let Some(chain) = &leg.bend {
                st.reach = fabrik(st.hip, st.foot, chain, st.pole, &mut scratch.joints);
                st.knee = scratch.joints.get(1).copied().unwrap_or(st.hip);
                let n = scratch.joints.len();
                st.joints.clear();
                if n > 2 {
                    st.joints.extend_from_slice(&scratch.joints[1..n - 1]);
                }
            }
        }
        // Two-segment legs four at a time (see `two_bone4`); the last few alone.
        let mut four = [0usize; 4];
        let mut queued = 0;
        for (i, leg) in def.legs.iter().enumerate() {
            if leg.bend.is_some() {
                continue;
            }
            four[queued] = i;
            queued += 1;
            if queued == 4 {
                self.solve_four(def, four);
                queued = 0;
            }
        }
        for &i in &four[..queued] {
            let (leg, st) = (&def.legs[i], &mut self.legs[i]);
            let s = two_bone(st.hip, st.foot, leg.segments[0], leg.segments[1], st.pole);
            st.knee = s.knee;
            st.reach = s.reach;
        }
    }

    /// The two-segment legs `four` solved at once from their hips (set) to their feet.
    fn solve_four(&mut self, def: &ValidCreatureDef, four: [usize; 4]) {
        let legs = &self.legs;
        let solved = two_bone4(
            four.map(|i| legs[i].hip),
            four.map(|i| legs[i].foot),
            four.map(|i| def.legs[i].segments[0]),
            four.map(|i| def.legs[i].segments[1]),
            four.map(|i| legs[i].pole),
        );
        for (i, s) in four.into_iter().zip(solved) {
            self.legs[i].knee = s.knee;
            self.legs[i].reach = s.reach;
        }
    }
}
