//! Jumps: a crouch on planted feet (the body dips and turns toward the landing), a take-off
//! onto a ballistic arc to the landing spot (the body follows it exactly; the legs tuck in,
//! then reach down for the ground), and the landing: the feet plant where they come down,
//! the body is caught by the legs (the lean's landing kick comes from the vertical speed
//! it loses) and the stepper re-plants them by groups as it walks on.

use glam::{Quat, Vec3};

use super::{Locomotor, Scratch, CAST_ABOVE_BODY, GRAVITY};
use crate::locomotion::def::ValidCreatureDef;
use crate::locomotion::gait::GaitParams;
use crate::locomotion::ground::GroundQuery;
use crate::math::ballistic::{jump_rise, Ballistic};
use crate::math::frame::{horizontal, wrap_angle, yaw_of, yaw_rotation};

/// The crouch before a take-off lasts at least this long (s)...
pub(crate) const CROUCH_TIME: f32 = 0.2;
/// ...and at most this long, facing the landing or not (s).
const CROUCH_MAX: f32 = 0.6;
/// The body takes off once it faces the landing within this (radians, 25°).
const FACING: f32 = 0.44;
/// How deep the body crouches: this share of its ride height.
const CROUCH_DEPTH: f32 = 0.3;
/// Tucked, a foot is this share of the way from its hip to its rest spot.
const TUCK: f32 = 0.55;
/// Seconds the legs take to tuck after the take-off (and to reach out again before the
/// landing).
const TUCK_TIME: f32 = 0.12;
/// The legs catch the body so that it never comes nearer the ground than this share of
/// its ride height.
const CATCH_LOW: f32 = 0.6;
/// A jump not down after its flight time plus this (s) has missed its landing: it falls on.
const MISSED: f32 = 0.5;

/// A jump under way.
#[derive(Clone, Debug, PartialEq)]
pub struct Jump {
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
}

impl Locomotor {
    /// Starts a jump to ground point `to`: the crouch begins now. False (nothing changes)
    /// when it cannot jump: in the air already, or on a wall.
    pub fn start_jump(&mut self, to: Vec3) -> bool {
        if self.airborne || self.is_climbing() && self.up.y < 0.9 {
            return false;
        }
        self.jump = Some(Jump {
            to,
            phase: JumpPhase::Crouch {
                t: 0.0,
                from_y: self.position.y,
            },
        });
        true
    }

    /// Stops a jump that has not left the ground (its crouch eases out). False when it is in
    /// the air (a flight cannot be called back) or there is none.
    pub fn cancel_jump(&mut self) -> bool {
        match &self.jump {
            Some(j) if !j.in_flight() => {
                self.jump = None;
                true
            }
            _ => false,
        }
    }

    /// The flight from the body now to ground point `to` (body centre at ride height there).
    pub(crate) fn jump_arc(&self, def: &ValidCreatureDef, to: Vec3) -> Ballistic {
        let from = self.body_position();
        let run = horizontal(to - from).length();
        Ballistic::plan(from, to + Vec3::Y * def.body.height, jump_rise(run), GRAVITY)
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
                self.crouch(def, gait, ground, dt, scratch, jump.to, t + dt, from_y)
            }
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
        to: Vec3,
        t: f32,
        from_y: f32,
    ) -> Quat {
        // Turn toward the landing at the type's turn rate; the feet stay where they are
        // (a swinging one finishes its step).
        let way = horizontal(to - self.position);
        let off = yaw_of(way).map_or(0.0, |y| wrap_angle(y - self.yaw));
        let turn = def.nav.turn_rate.to_radians() * dt;
        self.yaw = wrap_angle(self.yaw + off.clamp(-turn, turn));
        let landed_from = scratch.events.len();
        self.swing(gait, dt, &mut scratch.events);
        self.settle_landings(def, ground, &mut scratch.events[landed_from..]);
        // The body stops and dips: a smoothstep down to the crouch's depth.
        self.velocity = Vec3::ZERO;
        let s = (t / CROUCH_TIME).min(1.0);
        let dip = CROUCH_DEPTH * def.body.height * s * s * (3.0 - 2.0 * s);
        self.position.y = from_y - dip;
        self.rise = 0.0;
        let rot = Quat::from_rotation_arc(Vec3::Y, self.up) * yaw_rotation(self.yaw);
        let facing = (off.abs() - turn).max(0.0) < FACING;
        let ready = self.legs.iter().all(|l| l.grounded) && facing;
        if t >= CROUCH_MAX || (t >= CROUCH_TIME && ready) {
            self.take_off(def, to);
        } else {
            self.jump = Some(Jump {
                to,
                phase: JumpPhase::Crouch { t, from_y },
            });
        }
        rot
    }

    fn take_off(&mut self, def: &ValidCreatureDef, to: Vec3) {
        let arc = self.jump_arc(def, to);
        self.airborne = true;
        self.landing = false;
        self.rise = arc.v0.y;
        self.velocity = arc.v0;
        self.push = Vec3::ZERO;
        for st in self.legs.iter_mut() {
            st.grounded = false;
        }
        self.jump = Some(Jump {
            to,
            phase: JumpPhase::Flight { arc, t: 0.0 },
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
        let rot = Quat::from_rotation_arc(Vec3::Y, self.up) * yaw_rotation(self.yaw);
        // The legs tuck in after the take-off and reach out again for the landing.
        let out = ((arc.time - t) / TUCK_TIME).clamp(0.0, 1.0);
        let tuck = (t / TUCK_TIME).clamp(0.0, 1.0).min(out);
        let share = 1.0 - (1.0 - TUCK) * tuck;
        let m = glam::Mat3::from_quat(rot);
        for (leg, st) in def.legs.iter().zip(self.legs.iter_mut()) {
            st.foot = self.position + m * (leg.hip + (leg.rest - leg.hip) * share);
            st.target = st.foot;
            st.grounded = false;
        }
        if v.y < 0.0 && t > 0.5 * arc.time {
            let origin = self.position + Vec3::Y * CAST_ABOVE_BODY;
            let reach = CAST_ABOVE_BODY + def.body.height + super::terrain::LAND_REACH;
            let touched = ground
                .sweep_down(origin, 0.1, reach)
                .or_else(|| ground.cast_down(origin, reach));
            if let Some(p) = touched {
                self.touch_down(def, m, ground, p.y);
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
        self.plant_feet(def, m, ground);
    }
}

/// The deceleration (m/s²) that stops a body coming down at `rise` m/s within `room` m:
/// at least the usual landing's.
pub(super) fn catch_decel(rise: f32, room: f32) -> f32 {
    super::LAND_DECEL.max(rise * rise / (2.0 * room))
}
