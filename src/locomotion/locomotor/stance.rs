//! A posture a brain asks for (`c:pose{ height, pitch, roll, time }`): the body raised or
//! lowered from its ride height and tilted on its feet, eased in over `time`. A pitch turns
//! the body about its hips at the low end (a rear-up lifts the front; the back stays), a
//! roll about its middle; the feet stay planted (the height never passes what the planted
//! legs reach: [`Locomotor::reach_cap`]).

use glam::{Quat, Vec3};

use super::Locomotor;
use crate::locomotion::def::ValidCreatureDef;
use crate::math::curve::smoothstep01;

/// A posture: the ride height's factor, pitch and roll (degrees; pitch > 0 dips the nose,
/// roll > 0 leans right, as the lean's).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BodyPose {
    /// Ride height × this (1: as defined).
    pub height: f32,
    /// Degrees; negative rears up.
    pub pitch: f32,
    /// Degrees; positive leans right.
    pub roll: f32,
}

impl Default for BodyPose {
    fn default() -> Self {
        BodyPose {
            height: 1.0,
            pitch: 0.0,
            roll: 0.0,
        }
    }
}

/// Easing from one posture to another.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stance {
    from: BodyPose,
    to: BodyPose,
    /// Seconds the change takes.
    time: f32,
    /// Seconds since it began.
    t: f32,
}

impl Stance {
    /// The posture now.
    pub fn now(&self) -> BodyPose {
        let k = if self.time > 0.0 {
            smoothstep01(self.t / self.time)
        } else {
            1.0
        };
        let mix = |a: f32, b: f32| a + (b - a) * k;
        BodyPose {
            height: mix(self.from.height, self.to.height),
            pitch: mix(self.from.pitch, self.to.pitch),
            roll: mix(self.from.roll, self.to.roll),
        }
    }

    /// Whether it is the defined posture, and stays so.
    pub fn is_default(&self) -> bool {
        self.to == BodyPose::default() && self.now() == BodyPose::default()
    }

    /// Eases from the posture now to `to` over `time` seconds.
    pub fn set(&mut self, to: BodyPose, time: f32) {
        *self = Stance {
            from: self.now(),
            to,
            time: time.max(0.0),
            t: 0.0,
        };
    }

    /// Advances the easing.
    pub fn advance(&mut self, dt: f32) {
        self.t = (self.t + dt).min(self.time.max(0.0));
    }
}

impl Locomotor {
    /// The asked-for posture's tilt (body space) and how far it raises the body centre (m):
    /// the ride height's change, and the lift that keeps the hips at the low end of a pitch
    /// where they are.
    pub(super) fn stance_offsets(&self, def: &ValidCreatureDef) -> (Quat, f32) {
        if self.stance.is_default() {
            return (Quat::IDENTITY, 0.0);
        }
        let p = self.stance.now();
        let tilt = Quat::from_rotation_z(p.roll.to_radians())
            * Quat::from_rotation_x(p.pitch.to_radians());
        // Rearing up (pitch < 0) pivots on the rearmost hips, dipping on the foremost.
        let hips = def.legs.iter().map(|l| l.hip.z);
        let pivot_z = if p.pitch < 0.0 {
            hips.fold(0.0f32, f32::min)
        } else {
            hips.fold(0.0f32, f32::max)
        };
        let pivot = Vec3::new(0.0, 0.0, pivot_z);
        let lift = (pivot - Quat::from_rotation_x(p.pitch.to_radians()) * pivot).y;
        (tilt, (p.height - 1.0) * def.body.height + lift)
    }
}
