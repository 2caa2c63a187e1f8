//! Jumps: a crouch on planted feet (the body dips and turns toward the landing), a push-off
//! (the legs extend and the body speeds up into its flight over a tenth of a second or
//! more, feet planted until they are stretched), then a ballistic arc to the landing spot
//! (the body follows it exactly; the legs tuck in, then reach down for the ground), and the
//! landing: the feet plant where they come down, the body is caught by the legs (the lean's
//! landing kick comes from the vertical speed it loses) and the stepper re-plants them by
//! groups as it walks on.

use glam::{Quat, Vec3};

use super::{Locomotor, Scratch, BODY_ACCEL_MAX, CAST_ABOVE_BODY, GRAVITY};
use crate::locomotion::def::ValidCreatureDef;
use crate::locomotion::gait::GaitParams;
use crate::locomotion::ground::GroundQuery;
use crate::locomotion::Intent;
use crate::math::ballistic::{flight_pitch, jump_arc, jump_rise, Ballistic, CROUCH_DEPTH};
use crate::math::frame::{forward_from_yaw, horizontal, wrap_angle, yaw_of, yaw_rotation};

/// The crouch before a take-off lasts at least as long as a smoothstep of its depth takes
/// at the posture's acceleration limit (`BODY_ACCEL_MAX`), and at most this much longer,
/// ready or not (s): facing the landing, still, at the take-off point, every foot down.
const CROUCH_MORE: f32 = 1.5;
/// The body glides to a stop over its planted feet as it crouches: its speed's time
/// constant (s)...
const GLIDE_TAU: f32 = 0.05;
/// ...and to a link's start no faster than this (m/s).
const GLIDE_SPEED: f32 = 0.6;
/// The body takes off once it faces the landing within this (radians, 25°).
const FACING: f32 = 0.44;
/// Tucked, a foot is this share of the way from its hip to its rest spot.
const TUCK: f32 = 0.55;
/// Seconds the legs take to tuck after the take-off (and to reach out again before the
/// landing).
const TUCK_TIME: f32 = 0.12;
/// The legs catch the body so that it never comes nearer the ground than this share of
/// its ride height.
const CATCH_LOW: f32 = 0.65;
/// Landing from a jump, the feet come down this share of the way from under their hips to
/// their rest spots (legs reaching down, not out), and the stepper walks them home.
const LAND_SPREAD: f32 = 0.6;
/// ...and reach down so far that a foot is at most this share of its leg's length from
/// its hip when it touches.
const LAND_STRETCH: f32 = 0.92;
/// A jump not down after its flight time plus this (s) has missed its landing: it falls on.
const MISSED: f32 = 0.5;
/// The push-off: the planted legs extend and the body speeds up into its flight over at
/// least this long (s)...
const PUSH_TIME: f32 = 0.12;
/// ...and longer when the speed it gains would need a harder push than this at the push's
/// peak (m/s², 5 g; the push's velocity follows a smoothstep, whose peak acceleration is
/// 1.5 × its mean).
const PUSH_ACCEL: f32 = 5.0 * GRAVITY;
/// A planted foot stays down in the push until its leg is stretched to this share of its
/// length; then it leaves the ground.
const PUSH_STRETCH: f32 = 0.98;

/// A jump under way.
#[derive(Clone, Debug, PartialEq)]
pub struct Jump {
    /// The ground point it takes off from (a link's start: its crouch glides there), or
    /// `None`: where it stands.
    pub from: Option<Vec3>,
    /// The ground point it lands on.
    pub to: Vec3,
    /// Where it is in the jump.
    pub phase: JumpPhase,
}

/// The parts of a jump.
#[derive(Clone, Debug, PartialEq)]
pub enum JumpPhase {
    /// Dipping on planted feet (`t` s so far, from the body's height `from_y`).
    Crouch {
        /// Seconds crouched.
        t: f32,
        /// The body's height when the crouch began.
        from_y: f32,
    },
    /// Pushing off on the planted feet, `t` s into a push of `time` s: the body goes from
    /// `from` at velocity `v` to the start of `arc` at its launch velocity.
    Push {
        /// The flight it pushes into.
        arc: Ballistic,
        /// Seconds pushed.
        t: f32,
        /// The push's length, s.
        time: f32,
        /// Where the body (as drawn) was when the push began.
        from: Vec3,
        /// Its velocity then.
        v: Vec3,
    },
    /// In the air on `arc`, `t` s after the take-off.
    Flight {
        /// The body's flight.
        arc: Ballistic,
        /// Seconds since the take-off.
        t: f32,
    },
}

impl Jump {
    /// Whether it is in the air.
    pub fn in_flight(&self) -> bool {
        matches!(self.phase, JumpPhase::Flight { .. })
    }

    /// Whether it has begun to leave the ground (pushing off or in the air): it can no
    /// longer be called back.
    pub fn launched(&self) -> bool {
        matches!(
            self.phase,
            JumpPhase::Push { .. } | JumpPhase::Flight { .. }
        )
    }

    /// The trace's name of its phase.
    pub fn phase_name(&self) -> &'static str {
        match self.phase {
            JumpPhase::Crouch { .. } => "crouch",
            JumpPhase::Push { .. } => "push",
            JumpPhase::Flight { .. } => "flight",
        }
    }
}

impl Locomotor {
    /// Starts a jump to ground point `to`: the crouch begins now. False (nothing changes)
    /// when it cannot jump: in the air already, or on a wall.
    pub fn start_jump(&mut self, from: Option<Vec3>, to: Vec3) -> bool {
        let launched = self.jump.as_ref().is_some_and(Jump::launched);
        if launched || self.airborne || self.is_climbing() && self.up.y < 0.9 {
            return false;
        }
        self.jump = Some(Jump {
            from,
            to,
            phase: JumpPhase::Crouch {
                t: 0.0,
                from_y: self.position.y,
            },
        });
        true
    }

    /// Stops a jump that has not begun to leave the ground (its crouch eases out). False
    /// when it is pushing off or in the air (neither can be called back) or there is none.
    pub fn cancel_jump(&mut self) -> bool {
        match &self.jump {
            Some(j) if !j.launched() => {
                self.jump = None;
                self.crouch = 0.0;
                // It stands where the crouch's glide brought it.
                self.velocity = Vec3::new(0.0, self.velocity.y, 0.0);
                true
            }
            _ => false,
        }
    }

    /// The flight from where the body stands (or stood, before its crouch) to ground point
    /// `to` (see `math::ballistic::jump_arc`).
    pub(crate) fn jump_arc(&self, def: &ValidCreatureDef, to: Vec3) -> Ballistic {
        let standing = match &self.jump {
            Some(Jump {
                phase: JumpPhase::Crouch { from_y, .. },
                ..
            }) => *from_y,
            _ => self.position.y,
        };
        // Where the crouch's glide will stop: the take-off point, or ahead by the speed it
        // has.
        let at = match self.jump.as_ref().and_then(|j| j.from) {
            Some(f) => f,
            None => self.position + horizontal(self.velocity) * GLIDE_TAU,
        };
        let ground = Vec3::new(at.x, standing - self.sink - def.body.height, at.z);
        jump_arc(ground, to, def.body.height, GRAVITY)
    }

    /// One tick of a jump; the body's rotation (tilt and yaw, no lean).
    pub(super) fn jump_tick<G: GroundQuery + ?Sized>(
        &mut self,
        def: &ValidCreatureDef,
        gait: &GaitParams,
        ground: &G,
        dt: f32,
        scratch: &mut Scratch,
    ) -> Quat {
        let Some(jump) = self.jump.clone() else {
            return self.base_rotation();
        };
        match jump.phase {
            JumpPhase::Crouch { t, from_y } => {
                self.crouch(def, gait, ground, dt, scratch, &jump, t + dt, from_y)
            }
            JumpPhase::Push {
                arc,
                t,
                time,
                from,
                v,
            } => self.push_off(def, jump.to, arc, (t + dt, time), from, v),
            JumpPhase::Flight { arc, t } => self.fly(def, ground, dt, jump.to, arc, t + dt),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn crouch<G: GroundQuery + ?Sized>(
        &mut self,
        def: &ValidCreatureDef,
        gait: &GaitParams,
        ground: &G,
        dt: f32,
        scratch: &mut Scratch,
        jump: &Jump,
        t: f32,
        from_y: f32,
    ) -> Quat {
        let to = jump.to;
        // A walker's tick facing the landing: the body brakes and turns at the type's
        // rates, and the stepper re-plants the feet the turn and the stop stretch.
        let face = horizontal(to - self.position).normalize_or(forward_from_yaw(self.yaw));
        let intent = std::mem::replace(&mut self.intent, Intent::Face { dir: face });
        self.steer(def, dt);
        self.intent = intent;
        // Glide to the take-off point (a link's start) over the planted feet, slowly.
        let mut left = 0.0;
        if let Some(f) = jump.from {
            let off = horizontal(f - self.position);
            left = off.length();
            let glide = off.clamp_length_max(GLIDE_SPEED * dt);
            self.position += glide;
            self.velocity += glide / dt;
        }
        let yaw = self.step_feet(def, gait, ground, dt, scratch);
        // The body dips: the posture's height spring follows a target lowered by a
        // smoothstep to the crouch's depth (whose peak acceleration, 6 depth / time², is
        // the posture's limit).
        let depth = CROUCH_DEPTH * def.body.height;
        let crouch_time = (6.0 * depth / BODY_ACCEL_MAX).sqrt();
        let s = (t / crouch_time).min(1.0);
        self.crouch = depth * s * s * (3.0 - 2.0 * s);
        let rot = self.fit_body(def, dt, yaw, ground, scratch);
        let off = yaw_of(face).map_or(0.0, |y| wrap_angle(y - self.yaw));
        let ready = off.abs() < FACING
            && left < 0.05
            && self.speed() < 0.15
            && self.legs.iter().all(|l| l.grounded);
        if t >= crouch_time + CROUCH_MORE || (t >= crouch_time && ready) {
            self.take_off(def, to);
        } else {
            self.jump = Some(Jump {
                phase: JumpPhase::Crouch { t, from_y },
                ..jump.clone()
            });
        }
        rot
    }

    /// The crouch is over: the push-off begins. Its flight is planned from where the push
    /// will end, so the landing is where it was aimed: the push takes the body from where it
    /// is, at the speed it has, to the flight's launch velocity along a smoothstep, covering
    /// `time` × the mean of the two speeds, and the flight starts there.
    fn take_off(&mut self, def: &ValidCreatureDef, to: Vec3) {
        // From where the body is (the spring may not quite have reached the crouch).
        let from = self.body_position();
        let v = Vec3::new(self.velocity.x, self.rise, self.velocity.z);
        let land = to + Vec3::Y * def.body.height;
        let plan = |start: Vec3| {
            let run = horizontal(land - start).length();
            Ballistic::plan(start, land, jump_rise(run), GRAVITY)
        };
        let push_time = |arc: &Ballistic| PUSH_TIME.max(1.5 * (arc.v0 - v).length() / PUSH_ACCEL);
        let mut arc = plan(from);
        // The push's end depends on the launch velocity, which depends on where the flight
        // starts: a few rounds settle it to well under a millimetre.
        for _ in 0..4 {
            let time = push_time(&arc);
            arc = plan(from + (v + arc.v0) * (0.5 * time));
        }
        let time = push_time(&arc);
        self.crouch = 0.0;
        self.push = Vec3::ZERO;
        self.jump = Some(Jump {
            from: None,
            to,
            phase: JumpPhase::Push {
                arc,
                t: 0.0,
                time,
                from,
                v,
            },
        });
    }

    /// One tick of the push-off: the body on its way from the crouch to the flight's start
    /// (velocity a smoothstep from `v` to the launch velocity; the little the rounds of
    /// [`Locomotor::take_off`] left between the push's end and the arc's start taken up by a
    /// smoothstep too, which adds no speed at either end), the planted feet down until
    /// their legs are stretched, then the flight.
    fn push_off(
        &mut self,
        def: &ValidCreatureDef,
        to: Vec3,
        arc: Ballistic,
        (t, time): (f32, f32),
        from: Vec3,
        v: Vec3,
    ) -> Quat {
        if t >= time {
            self.launch(to, arc, t - time);
            return self.base_rotation();
        }
        let s = t / time;
        let smooth = s * s * (3.0 - 2.0 * s);
        let spent = from + (v + arc.v0) * (0.5 * time);
        let left = arc.from - spent;
        let at = from
            + v * (time * s)
            + (arc.v0 - v) * (time * (s * s * s - 0.5 * s * s * s * s))
            + left * smooth;
        let velocity = v + (arc.v0 - v) * smooth + left * (6.0 * s * (1.0 - s) / time);
        self.position = at + Vec3::Y * self.sink;
        self.rise = velocity.y;
        self.velocity = velocity;
        let rot = self.base_rotation();
        let m = glam::Mat3::from_quat(rot);
        for (leg, st) in def.legs.iter().zip(self.legs.iter_mut()) {
            let hip = at + m * leg.hip;
            if st.grounded && hip.distance(st.foot) > PUSH_STRETCH * leg.length {
                st.grounded = false;
            }
            if !st.grounded {
                // Off the ground: it hangs from its hip toward its rest spot as the body
                // goes up (the flight tucks it).
                let rest = at + m * leg.rest;
                st.foot = hip + (rest - hip).clamp_length_max(PUSH_STRETCH * leg.length);
                st.target = st.foot;
            }
        }
        self.jump = Some(Jump {
            from: None,
            to,
            phase: JumpPhase::Push {
                arc,
                t,
                time,
                from,
                v,
            },
        });
        rot
    }

    /// The push is over: the body is `t` s into its flight.
    fn launch(&mut self, to: Vec3, arc: Ballistic, t: f32) {
        self.airborne = true;
        self.landing = false;
        self.position = arc.at(t) + Vec3::Y * self.sink;
        self.velocity = arc.velocity(t);
        self.rise = self.velocity.y;
        for st in self.legs.iter_mut() {
            st.grounded = false;
        }
        self.jump = Some(Jump {
            from: None,
            to,
            phase: JumpPhase::Flight { arc, t },
        });
    }

    fn fly<G: GroundQuery + ?Sized>(
        &mut self,
        def: &ValidCreatureDef,
        ground: &G,
        dt: f32,
        to: Vec3,
        arc: Ballistic,
        t: f32,
    ) -> Quat {
        // On the arc exactly (the drawn body: `position` less the sink it holds in the air).
        self.position = arc.at(t) + Vec3::Y * self.sink;
        let v = arc.velocity(t);
        self.rise = v.y;
        self.velocity = v;
        if let Some(y) = yaw_of(horizontal(arc.to - arc.from)) {
            let off = wrap_angle(y - self.yaw);
            let turn = def.nav.turn_rate.to_radians() * dt;
            self.yaw = wrap_angle(self.yaw + off.clamp(-turn, turn));
        }
        // The legs tuck in after the take-off, then reach down for the ground; the body
        // pitches with its flight path (nose up climbing, down coming down) and levels out
        // as the legs reach down, so every foot comes down within its reach.
        let reach_down = landing_reach(def);
        let fall_end = (-arc.velocity(arc.time).y).max(0.5);
        let touch = arc.time - reach_down / fall_end;
        let out = ((touch - t) / TUCK_TIME).clamp(0.0, 1.0);
        let pitch = flight_pitch(v, t) * out;
        self.up = Vec3::Y * pitch.cos() - forward_from_yaw(self.yaw) * pitch.sin();
        let rot = Quat::from_rotation_arc(Vec3::Y, self.up) * yaw_rotation(self.yaw);
        let tuck = (t / TUCK_TIME).clamp(0.0, 1.0).min(out);
        let share = 1.0 - (1.0 - TUCK) * tuck;
        let m = glam::Mat3::from_quat(rot);
        let floor = to.y;
        for (leg, st) in def.legs.iter().zip(self.legs.iter_mut()) {
            let hip = self.position + m * leg.hip;
            let air = self.position + m * (leg.hip + (leg.rest - leg.hip) * share);
            let spot = self.position + m * (leg.hip + (leg.rest - leg.hip) * LAND_SPREAD);
            let down = Vec3::new(spot.x, floor, spot.z);
            let foot = air.lerp(down, 1.0 - out);
            st.foot = hip + (foot - hip).clamp_length_max(LAND_STRETCH * leg.length);
            st.target = st.foot;
            st.grounded = false;
        }
        if v.y < 0.0 && t > 0.5 * arc.time {
            let origin = self.position + Vec3::Y * CAST_ABOVE_BODY;
            // The sweep's ball touches its radius before its centre would.
            let reach = CAST_ABOVE_BODY + def.body.height + reach_down - 0.1;
            let touched = ground
                .sweep_down(origin, 0.1, reach)
                .or_else(|| ground.cast_down(origin, reach));
            if let Some(p) = touched {
                self.airborne = false;
                self.landing = true;
                let room = self.body_position().y - p.y - CATCH_LOW * def.body.height;
                self.catch = catch_decel(self.rise, room.max(0.05));
                self.plant_feet(def, m, ground, LAND_SPREAD);
                self.jump = None;
                return rot;
            }
        }
        if t > arc.time + MISSED {
            // Missed the landing (the ground moved): a fall from here.
            self.jump = None;
            return rot;
        }
        self.jump = Some(Jump {
            from: None,
            to,
            phase: JumpPhase::Flight { arc, t },
        });
        rot
    }

    /// Comes down on ground at height `floor` at the body's vertical speed: the feet plant,
    /// and the legs catch the body hard enough that it stays [`CATCH_LOW`] of its ride
    /// height above the ground (at least the usual landing's deceleration).
    pub(super) fn touch_down<G: GroundQuery + ?Sized>(
        &mut self,
        def: &ValidCreatureDef,
        m: glam::Mat3,
        ground: &G,
        floor: f32,
    ) {
        self.airborne = false;
        self.landing = true;
        let room = (self.body_position().y - floor - CATCH_LOW * def.body.height).max(0.05);
        self.catch = catch_decel(self.rise, room);
        self.plant_feet(def, m, ground, 1.0);
    }
}

/// How far below its ride height the body may be when the feet, reaching down (see
/// [`LAND_SPREAD`], [`LAND_STRETCH`]), touch the ground: the least over the legs, at least
/// the fall's `LAND_REACH`, at most 0.6 m.
fn landing_reach(def: &ValidCreatureDef) -> f32 {
    let reach = def
        .legs
        .iter()
        .map(|l| {
            let h = horizontal(l.rest - l.hip).length() * LAND_SPREAD;
            let len = LAND_STRETCH * l.length;
            (len * len - h * h).max(0.0).sqrt() - def.body.height - l.hip.y
        })
        .fold(f32::INFINITY, f32::min);
    reach.clamp(super::terrain::LAND_REACH, 0.6)
}

/// The deceleration (m/s²) that stops a body coming down at `rise` m/s within `room` m:
/// at least the usual landing's.
pub(super) fn catch_decel(rise: f32, room: f32) -> f32 {
    super::LAND_DECEL.max(rise * rise / (2.0 * room))
}
