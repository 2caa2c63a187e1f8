//! A path follower: where along a path a body is, and how it moves on.

use std::sync::Arc;

use glam::Vec3;

use crate::math::bezier::BezierPath;
use crate::math::Curve;

/// What happens at the end of an open path (a closed path always wraps unless `Once`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum LoopMode {
    /// Stop at the end (`loop = false`).
    Once,
    /// Start again from the beginning (`loop = true`; a closed path simply goes round).
    Loop,
    /// Turn around at each end (`loop = "ping_pong"`).
    PingPong,
}

/// How the body turns while following.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum RotationMode {
    /// Face along the path at once.
    LookForward,
    /// Turn toward the path's direction at the creature's turn rate.
    Smooth,
    /// Keep the current heading.
    None,
}

/// Following state.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PathFollower {
    /// The path followed (a ground projection for legged creatures).
    #[serde(with = "shared_path")]
    pub path: Arc<BezierPath>,
    /// Arc length reached, metres.
    pub s: f32,
    /// +1 forward, −1 backward (ping-pong).
    pub dir: f32,
    /// Speed along the path, m/s.
    pub speed: f32,
    /// End behaviour.
    pub mode: LoopMode,
    /// Heading behaviour.
    pub rotation: RotationMode,
    /// Multiplier on speed over progress 0..1 along the path.
    pub speed_curve: Option<Curve>,
    /// Reached the end of a `Once` path.
    pub done: bool,
    /// The named path this follows (`"mod/name"` for `path.load`, `"mod/file.lua:LINE"` for
    /// an inline `path.bezier`): when that path is edited or its file saved, the follower
    /// moves onto the new shape ([`PathFollower::retarget`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Where the body is off the path after a retarget; eased away as it moves on.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub offset: Vec3,
    /// The free pace along the path now (m/s, before a stretched foot holds the body back),
    /// when [`PathFollower::advance`] is given an acceleration: it eases toward `speed` and
    /// slows to stop at the end of a `Once` path and at each turn of a ping-pong. `None`
    /// until the first step, which starts from the body's own speed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pace: Option<f32>,
}

fn is_zero(v: &Vec3) -> bool {
    *v == Vec3::ZERO
}

/// How fast a body eases back onto an edited path, as a share of its speed along it (with a
/// floor for slow or stopped followers), m/s: at most half a tick of travel more per tick.
const CATCH_UP_SHARE: f32 = 0.5;
const CATCH_UP_MIN: f32 = 0.25;
/// How far along the new path a retarget looks for the body's place, as a share of its
/// length either way from the same fraction of it.
const RETARGET_WINDOW: f32 = 0.15;
/// The least pace (m/s) at which a follower slowing for the end of its path still goes on,
/// so that it gets there rather than ever nearer.
const STOP_CREEP: f32 = 0.05;

/// Serde for the shared path (serde's `rc` feature left off: one field needs it).
mod shared_path {
    use super::{Arc, BezierPath};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub(super) fn serialize<S: Serializer>(p: &Arc<BezierPath>, s: S) -> Result<S::Ok, S::Error> {
        p.as_ref().serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Arc<BezierPath>, D::Error> {
        BezierPath::deserialize(d).map(Arc::new)
    }
}

impl PathFollower {
    /// Starts following `path` from arc length `s`.
    pub fn new(
        path: Arc<BezierPath>,
        s: f32,
        speed: f32,
        mode: LoopMode,
        rotation: RotationMode,
        speed_curve: Option<Curve>,
    ) -> PathFollower {
        let s = path.normalise(s);
        PathFollower {
            path,
            s,
            dir: 1.0,
            speed,
            mode,
            rotation,
            speed_curve,
            done: false,
            source: None,
            offset: Vec3::ZERO,
            pace: None,
        }
    }

    /// The same follower on `path`, a new shape of the path it follows: it goes on from the
    /// point of the new path nearest to `at` (where the body is) within
    /// [`RETARGET_WINDOW`] of the same fraction of the length, and the body keeps `at`:
    /// what separates it from the new path is eased away as it moves on, so an edit never
    /// makes it jump. `ground`: the path is a ground projection (legged bodies), whose
    /// height is the ground's business, so only the horizontal offset is kept.
    pub fn retarget(&mut self, path: Arc<BezierPath>, at: Vec3, ground: bool) {
        let frac = (self.s / self.path.length()).clamp(0.0, 1.0);
        let l = path.length();
        let s = path.closest_near(at, frac * l, RETARGET_WINDOW * l);
        let mut off = at - path.point(s);
        if ground {
            off.y = 0.0;
        }
        self.offset = off;
        self.path = path;
        self.s = s;
        if self.mode == LoopMode::Once {
            self.done = self.done && (self.s >= l || self.s <= 0.0);
        }
    }

    /// Moves on by `dt` seconds at `scale` × its pace (1 = free; the body may be held back).
    /// `accel`: the pace changes at most this fast (m/s²), starting, following the speed
    /// curve and stopping where the path makes it stop; `None`: the pace is the speed at
    /// once. Returns the new point and the unit direction of travel.
    pub fn advance(&mut self, dt: f32, scale: f32, accel: Option<f32>) -> (Vec3, Vec3) {
        let l = self.path.length();
        if !self.done {
            let k = self
                .speed_curve
                .as_ref()
                .map(|c| c.eval(self.s / l).max(0.0))
                .unwrap_or(1.0);
            let pace = self.pace_toward(self.speed * k, dt, accel);
            let mut s = self.s + pace * scale * dt * self.dir;
            match self.mode {
                LoopMode::Loop => {
                    if self.path.closed() {
                        s = s.rem_euclid(l);
                    } else if s > l {
                        s -= l;
                    } else if s < 0.0 {
                        s += l;
                    }
                }
                LoopMode::Once => {
                    if s >= l || s <= 0.0 {
                        s = s.clamp(0.0, l);
                        self.done = true;
                    }
                }
                LoopMode::PingPong => {
                    if s > l {
                        s = 2.0 * l - s;
                        self.dir = -self.dir;
                    } else if s < 0.0 {
                        s = -s;
                        self.dir = -self.dir;
                    }
                }
            }
            self.s = s.clamp(0.0, l);
        }
        if self.offset != Vec3::ZERO {
            let ease = (self.speed * CATCH_UP_SHARE).max(CATCH_UP_MIN) * dt;
            let len = self.offset.length();
            self.offset *= (len - ease).max(0.0) / len;
        }
        (
            self.path.point(self.s) + self.offset,
            self.path.tangent(self.s) * self.dir,
        )
    }

    /// The pace for this step: `want` at once without an acceleration, else the pace eased
    /// toward it at `accel` and no faster than stops, braking at `accel` a tick at a time,
    /// in what is left before the path makes the body stop (but a creep, so that it gets
    /// there).
    fn pace_toward(&mut self, want: f32, dt: f32, accel: Option<f32>) -> f32 {
        let Some(a) = accel.filter(|a| *a > 0.0) else {
            return want;
        };
        let now = self.pace.unwrap_or(0.0);
        let mut pace = now + (want - now).clamp(-a * dt, a * dt);
        if self.mode != LoopMode::Loop {
            let l = self.path.length();
            let left = if self.dir > 0.0 { l - self.s } else { self.s }.max(0.0);
            // From pace v, braking by a·dt a tick, the body goes v²/2a + v·dt/2.
            let h = 0.5 * a * dt;
            let stop = (h * h + 2.0 * a * left).sqrt() - h;
            pace = pace.min(stop.max(STOP_CREEP.min(want)));
        }
        let pace = pace.max(0.0);
        self.pace = Some(pace);
        pace
    }

    /// The current point (with what is left of a retarget's offset), without moving.
    pub fn point(&self) -> Vec3 {
        self.path.point(self.s) + self.offset
    }

    /// The current direction of travel (unit), without moving.
    pub fn direction(&self) -> Vec3 {
        self.path.tangent(self.s) * self.dir
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::bezier::ControlPoint;

    fn cp(x: f32, z: f32) -> ControlPoint {
        ControlPoint {
            position: Vec3::new(x, 0.0, z),
            handle_in: None,
            handle_out: None,
        }
    }

    fn s_curve() -> Arc<BezierPath> {
        Arc::new(
            BezierPath::new(
                &[
                    cp(0.0, 0.0),
                    cp(3.0, 2.0),
                    cp(0.0, 4.5),
                    cp(-3.0, 7.0),
                    cp(0.0, 9.0),
                ],
                false,
            )
            .expect("path"),
        )
    }

    #[test]
    fn constant_speed_along_a_tight_s_curve() {
        let mut f = PathFollower::new(
            s_curve(),
            0.0,
            2.0,
            LoopMode::Once,
            RotationMode::LookForward,
            None,
        );
        let dt = 1.0 / 60.0;
        let mut prev = f.point();
        let mut n = 0;
        while !f.done {
            let (p, _) = f.advance(dt, 1.0, None);
            if f.done {
                break;
            }
            let v = p.distance(prev) / dt;
            assert!((v - 2.0).abs() <= 0.02, "speed {v} at s = {}", f.s);
            prev = p;
            n += 1;
        }
        assert!(n > 100);
        assert!((f.s - f.path.length()).abs() < 1e-4);
    }

    #[test]
    fn loop_and_ping_pong_at_the_ends() {
        let p = s_curve();
        let l = p.length();
        let mut once = PathFollower::new(
            p.clone(),
            l - 0.01,
            1.0,
            LoopMode::Once,
            RotationMode::None,
            None,
        );
        once.advance(0.1, 1.0, None);
        assert!(once.done && once.s == l);
        once.advance(0.1, 1.0, None);
        assert_eq!(once.s, l, "stays at the end");
        let mut lp = PathFollower::new(
            p.clone(),
            l - 0.05,
            1.0,
            LoopMode::Loop,
            RotationMode::None,
            None,
        );
        lp.advance(0.1, 1.0, None);
        assert!((lp.s - 0.05).abs() < 1e-4, "wrapped to {}", lp.s);
        let mut pp = PathFollower::new(
            p.clone(),
            l - 0.05,
            1.0,
            LoopMode::PingPong,
            RotationMode::None,
            None,
        );
        let (_, dir) = pp.advance(0.1, 1.0, None);
        assert!(
            (pp.s - (l - 0.05)).abs() < 1e-4 && pp.dir < 0.0,
            "bounced to {} dir {}",
            pp.s,
            pp.dir
        );
        assert!(dir.dot(p.tangent(pp.s)) < 0.0, "travels backwards");
        pp.s = 0.05;
        pp.advance(0.1, 1.0, None);
        assert!((pp.s - 0.05).abs() < 1e-4 && pp.dir > 0.0);
    }

    #[test]
    fn speed_curve_and_hold_scale_the_step() {
        let p = s_curve();
        let mut f = PathFollower::new(
            p,
            0.0,
            1.0,
            LoopMode::Once,
            RotationMode::None,
            Some(Curve::Constant(0.5)),
        );
        f.advance(1.0, 1.0, None);
        assert!((f.s - 0.5).abs() < 1e-5);
        f.advance(1.0, 0.0, None);
        assert!((f.s - 0.5).abs() < 1e-5, "held back entirely");
    }
}
