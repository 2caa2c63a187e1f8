//! Steering the kinematic body: turning toward the intent's heading and accelerating
//! toward its velocity (or along a path), held back by a stretched planted foot.

use glam::Vec3;

use super::{Intent, Locomotor, HOLD_FROM, HOLD_TO};
use crate::locomotion::def::{Heading, ValidCreatureDef};
use crate::locomotion::lean::PUSH_TAU;
use crate::math::frame::{horizontal, wrap_angle, yaw_of};
use crate::path::RotationMode;

impl Locomotor {
    /// Turns toward the intent's heading at `nav.turn_rate` and accelerates the horizontal
    /// velocity toward the intent's at `nav.acceleration`. True when it reached the end of a
    /// `loop = false` path.
    pub(super) fn steer(&mut self, def: &ValidCreatureDef, dt: f32) -> bool {
        if self.follow.is_some() {
            return self.steer_on_path(def, dt);
        }
        let turn = def.nav.turn_rate.to_radians() * dt;
        let (mut desired, heading) = match self.intent {
            Intent::Idle => (Vec3::ZERO, None),
            Intent::Move { dir, speed, .. } => {
                (dir * speed, if speed > 0.0 { yaw_of(dir) } else { None })
            }
            Intent::Face { dir } => (Vec3::ZERO, yaw_of(dir)),
        };
        // Facing apart from moving: the body turns that way and goes where it goes.
        let facing = self.face_goal(def, desired);
        self.strafing = self.facing_apart(def) && (desired != Vec3::ZERO || self.speed() > 0.02);
        let heading = facing.or(heading);
        // An edge deeper than the creature steps holds it unless the script asked to go
        // over it (`c:move(dir, speed, { drop = true })`); a wall higher than that always.
        let edges = !matches!(self.intent, Intent::Move { drop: true, .. });
        desired = self.hold_short(def, desired, edges);
        self.desired_speed = desired.length();
        let (hold, away) = self.stretch_hold();
        if let Some(h) = heading {
            let d = wrap_angle(h - self.yaw);
            // Turning swings the hips too: slow it while a foot is stretched (never to a
            // standstill: the turn itself makes that foot's spot drift until it steps).
            let turn = turn * hold.max(0.2);
            self.yaw = wrap_angle(self.yaw + d.clamp(-turn, turn));
            // Slow down while facing away from where we go: legs lead, body follows.
            let align = wrap_angle(h - self.yaw).cos().max(0.0);
            desired *= 0.35 + 0.65 * align;
        }
        // The body's own velocity: what it has minus what is left of a hit's push.
        let v = horizontal(self.velocity) - self.push;
        if self.push != Vec3::ZERO {
            self.push *= (-dt / PUSH_TAU).exp();
            if self.push.length_squared() < 1e-8 {
                self.push = Vec3::ZERO;
            }
        }
        let dv = (desired - v).clamp_length_max(def.nav.acceleration * dt);
        // The body cannot outrun its legs: while a planted foot is near the end of its reach,
        // hold the body back until that foot has stepped.
        let mut v = v + dv + self.push;
        // Only the part of the motion that pulls the hip further from that foot is held.
        let pull = v.dot(away);
        if pull > 0.0 {
            let cut = pull * (1.0 - hold);
            v -= away * cut;
            // What the legs hold back comes out of a push first, so it is not carried
            // over as the body's own (opposing) velocity.
            let from_push = self.push.dot(away).clamp(0.0, cut);
            self.push -= away * from_push;
        }
        self.velocity.x = v.x;
        self.velocity.z = v.z;
        self.position.x += v.x * dt;
        self.position.z += v.z * dt;
        false
    }

    /// Moves the body along its path: legged bodies on the path's ground projection (the
    /// posture fit sets their height), legless ones on its full 3D shape. True when this
    /// step reached the end of a `loop = false` path.
    fn steer_on_path(&mut self, def: &ValidCreatureDef, dt: f32) -> bool {
        // Held back by a stretched foot like any motion, but never to a standstill.
        let hold = self.stretch_hold().0;
        let before = self.position;
        let Some(f) = self.follow.as_mut() else {
            return false;
        };
        let was_done = f.done;
        if f.pace.is_none() {
            // Taken up from the body's own speed along the path (`nav.acceleration` then
            // eases it to the path's speed).
            let along = if def.legs.is_empty() {
                self.velocity
            } else {
                Vec3::new(self.velocity.x, 0.0, self.velocity.z)
            };
            f.pace = Some(along.dot(f.direction()).max(0.0));
        }
        self.desired_speed = f.pace.unwrap_or(0.0);
        let (p, dir) = f.advance(dt, hold.max(0.1), Some(def.nav.acceleration));
        let ended = !was_done && f.done;
        let rotation = f.rotation;
        if def.legs.is_empty() {
            self.position = p;
        } else {
            self.position.x = p.x;
            self.position.z = p.z;
        }
        let v = (self.position - before) / dt;
        self.velocity = Vec3::new(
            v.x,
            if def.legs.is_empty() {
                v.y
            } else {
                self.velocity.y
            },
            v.z,
        );
        let facing = self.face_goal(def, dir);
        self.strafing = self.facing_apart(def);
        if let Some(f) = facing {
            let turn = def.nav.turn_rate.to_radians() * dt;
            self.yaw = wrap_angle(self.yaw + wrap_angle(f - self.yaw).clamp(-turn, turn));
        } else if let Some(h) = yaw_of(dir) {
            match rotation {
                RotationMode::LookForward => self.yaw = h,
                RotationMode::Smooth => {
                    let turn = def.nav.turn_rate.to_radians() * dt;
                    self.yaw = wrap_angle(self.yaw + wrap_angle(h - self.yaw).clamp(-turn, turn));
                }
                RotationMode::None => {}
            }
        }
        // At the end of a `loop = false` path the follower stays, holding the body there
        // (a flyer keeps its altitude) until the next command.
        ended
    }

    /// Whether the body faces apart from where it goes: a facing is set (`c:set_facing`)
    /// or its type goes side first (`nav.heading = "side"`).
    fn facing_apart(&self, def: &ValidCreatureDef) -> bool {
        self.face_yaw.is_some() || def.nav.heading == Heading::Side
    }

    /// The heading the body turns to while it goes along `motion` (world, horizontal),
    /// when it faces apart from it: the set facing, else for a side-first type a quarter
    /// turn from its motion (its velocity, or `motion` from a standstill) toward whichever side is nearer its heading now. `None`: it
    /// faces where it goes (or as its intent says).
    fn face_goal(&self, def: &ValidCreatureDef, motion: Vec3) -> Option<f32> {
        if let Some(f) = self.face_yaw {
            return Some(f);
        }
        if def.nav.heading != Heading::Side {
            return None;
        }
        // Side on to the way it actually goes while it goes (its velocity lags what it
        // wants under `nav.acceleration`), to the way it wants to go from a standstill.
        let v = horizontal(self.velocity);
        let m = yaw_of(if v.length_squared() > 0.01 { v } else { motion })?;
        let quarter = std::f32::consts::FRAC_PI_2;
        let (a, b) = (wrap_angle(m + quarter), wrap_angle(m - quarter));
        Some(
            if wrap_angle(a - self.yaw).abs() <= wrap_angle(b - self.yaw).abs() {
                a
            } else {
                b
            },
        )
    }

    /// How much motion the most stretched planted foot allows (1 = free, 0 = none) and the
    /// horizontal direction from that foot to its hip.
    fn stretch_hold(&self) -> (f32, Vec3) {
        let mut worst = 0.0f32;
        let mut worst_leg = None;
        for (i, st) in self.legs.iter().enumerate() {
            if st.grounded && st.reach > worst {
                worst = st.reach;
                worst_leg = Some(i);
            }
        }
        if worst <= HOLD_FROM {
            return (1.0, Vec3::ZERO);
        }
        let away = worst_leg
            .map(|i| horizontal(self.legs[i].hip - self.legs[i].foot).normalize_or_zero())
            .unwrap_or(Vec3::ZERO);
        let t = ((worst - HOLD_FROM) / (HOLD_TO - HOLD_FROM)).clamp(0.0, 1.0);
        (1.0 - t * t * (3.0 - 2.0 * t), away)
    }
}
