//! Ballistic arcs: a body thrown from one point to another under gravity, over an apex a
//! chosen height above the higher end. Jumps plan their flight with it, and the checks that
//! an arc is clear sample it.

use glam::Vec3;

/// Gravity (m/s², down): what falls, jumps and ragdolls feel (`locomotion` and `nav` name
/// this one).
pub(crate) const GRAVITY: f32 = 9.81;

/// A throw from `from` with velocity `v0` under gravity `g` (m/s², down), landing at `to`
/// after `time` seconds.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Ballistic {
    /// Where it starts.
    pub from: Vec3,
    /// Where it ends.
    pub to: Vec3,
    /// The launch velocity.
    pub v0: Vec3,
    /// Gravity, m/s² (positive: down).
    pub g: f32,
    /// Flight time, s.
    pub time: f32,
}

impl Ballistic {
    /// The arc from `from` to `to` whose apex is `rise` metres above the higher of the two
    /// (`rise` ≥ 1 cm), under gravity `g` > 0.
    pub fn plan(from: Vec3, to: Vec3, rise: f32, g: f32) -> Ballistic {
        let apex = from.y.max(to.y) + rise.max(0.01);
        let up = (2.0 * g * (apex - from.y)).sqrt();
        let down = (2.0 * g * (apex - to.y)).sqrt();
        let time = (up + down) / g;
        let h = Vec3::new(to.x - from.x, 0.0, to.z - from.z) / time;
        Ballistic {
            from,
            to,
            v0: Vec3::new(h.x, up, h.z),
            g,
            time,
        }
    }

    /// Where the body is `t` seconds into the flight.
    pub fn at(&self, t: f32) -> Vec3 {
        self.from + self.v0 * t - Vec3::Y * (0.5 * self.g * t * t)
    }

    /// Its velocity `t` seconds into the flight.
    pub fn velocity(&self, t: f32) -> Vec3 {
        self.v0 - Vec3::Y * (self.g * t)
    }

    /// The apex's height.
    pub fn apex(&self) -> f32 {
        self.from.y + self.v0.y * self.v0.y / (2.0 * self.g)
    }

    /// `n + 1` points evenly spaced in time, `from` and `to` included.
    pub fn points(&self, n: usize) -> impl Iterator<Item = Vec3> + '_ {
        let n = n.max(1);
        (0..=n).map(move |i| {
            if i == n {
                self.to
            } else {
                self.at(self.time * i as f32 / n as f32)
            }
        })
    }

    /// How many straight pieces sample it to within about `tolerance` metres of the curve
    /// (the sag of a chord of duration τ is g τ² / 8), at least 4.
    pub fn pieces(&self, tolerance: f32) -> usize {
        let tau = (8.0 * tolerance.max(1e-3) / self.g).sqrt();
        ((self.time / tau).ceil() as usize).clamp(4, 64)
    }
}

/// The rise over the higher end a jump of this horizontal run takes: a quarter of the run,
/// within [0.15, 0.8] m.
pub(crate) fn jump_rise(run: f32) -> f32 {
    (run / 4.0).clamp(0.15, 0.8)
}

/// A jump's crouch lowers the body by this share of its ride height before the take-off.
pub(crate) const CROUCH_DEPTH: f32 = 0.25;

/// The body's flight of a jump from ground point `from` to ground point `to` for a body
/// riding `ride` m high: from the crouch to the ride height over the landing.
pub(crate) fn jump_arc(from: Vec3, to: Vec3, ride: f32, g: f32) -> Ballistic {
    let run = Vec3::new(to.x - from.x, 0.0, to.z - from.z).length();
    Ballistic::plan(
        from + Vec3::Y * (ride * (1.0 - CROUCH_DEPTH)),
        to + Vec3::Y * ride,
        jump_rise(run),
        g,
    )
}

/// Share of the flight path's climb (or descent) angle the body pitches by in the air.
const PITCH_SHARE: f32 = 0.6;
/// The most a body pitches in the air (radians, 35°).
const PITCH_MAX: f32 = 0.61;
/// The pitch comes in over this long after the take-off (s): the body leaves the ground
/// level, as it crouched.
const PITCH_IN: f32 = 0.15;

/// How far the body pitches nose-up (radians; negative: nose-down) flying at velocity `v`,
/// `t` s after the take-off.
pub(crate) fn flight_pitch(v: Vec3, t: f32) -> f32 {
    let h = Vec3::new(v.x, 0.0, v.z).length();
    let ramp = (t / PITCH_IN).clamp(0.0, 1.0);
    (v.y.atan2(h) * PITCH_SHARE).clamp(-PITCH_MAX, PITCH_MAX) * ramp
}

/// The body's long axis flying at velocity `v` along the horizontal heading `way` (unit),
/// `t` s after the take-off: `way` pitched by [`flight_pitch`].
pub(crate) fn flight_axis(v: Vec3, way: Vec3, t: f32) -> Vec3 {
    let p = flight_pitch(v, t);
    way * p.cos() + Vec3::Y * p.sin()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_arc_leaves_from_lands_on_and_peaks_where_asked() {
        for (from, to) in [
            (Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0)),
            (Vec3::new(1.0, 1.5, -2.0), Vec3::new(1.5, 0.0, -1.0)),
            (Vec3::ZERO, Vec3::new(0.0, 0.8, 1.2)),
        ] {
            let a = Ballistic::plan(from, to, 0.3, 9.81);
            assert!(a.at(0.0).distance(from) < 1e-5);
            assert!(a.at(a.time).distance(to) < 1e-4, "{:?}", a.at(a.time));
            assert!((a.apex() - (from.y.max(to.y) + 0.3)).abs() < 1e-4);
            // Second differences of the sampled heights: gravity.
            let dt = a.time / 50.0;
            let y = |t: f32| a.at(t).y;
            let acc = (y(2.0 * dt) - 2.0 * y(dt) + y(0.0)) / (dt * dt);
            assert!((acc + 9.81).abs() < 0.05, "{acc}");
            let pts: Vec<Vec3> = a.points(8).collect();
            assert_eq!(pts.len(), 9);
            assert_eq!(pts[8], to);
        }
    }

    #[test]
    fn finer_tolerances_take_more_pieces() {
        let a = Ballistic::plan(Vec3::ZERO, Vec3::new(3.0, -1.0, 0.0), 0.5, 9.81);
        assert!(a.pieces(0.01) > a.pieces(0.05));
        assert!(a.pieces(10.0) >= 4);
    }
}
