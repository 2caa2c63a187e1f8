//! Facing apart from moving (`c:set_facing`): a creature goes where its intent, destination
//! or path takes it while its body turns toward a direction, a point or another creature,
//! or stays turned by an angle from its motion. Resolved to a heading each tick, before
//! locomotion (which turns the body at `nav.turn_rate` and keeps its steps, lean and
//! posture for any angle between heading and motion).

use glam::Vec3;

use super::world::CreatureId;
use super::World;
use crate::locomotion::Intent;
use crate::math::frame::{horizontal, wrap_angle, yaw_of};

/// What a creature's body faces while it moves (`c:set_facing`).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Facing {
    /// A direction, world space (its horizontal part).
    Dir(Vec3),
    /// A point, world space.
    Point(Vec3),
    /// Another creature (while it lives).
    Creature(CreatureId),
    /// Turned this many radians from where it goes (positive: toward its left, so it goes
    /// to its right); where it does not move, as it is.
    Offset(f32),
}

impl World {
    /// Each creature's heading this tick from its facing (`None` where it has none, or
    /// where its target gives no direction: a point it stands on, a creature gone).
    pub(super) fn resolve_facing(&mut self) {
        let goals: Vec<Option<f32>> = self
            .creatures
            .iter()
            .map(|c| {
                let from = c.loco.position;
                let toward = |p: Vec3| yaw_of(horizontal(p - from));
                match c.facing? {
                    Facing::Dir(d) => yaw_of(horizontal(d)),
                    Facing::Point(p) => toward(p),
                    Facing::Creature(id) => self.creature(id).and_then(|o| toward(o.loco.position)),
                    Facing::Offset(a) => {
                        let motion = match c.loco.intent {
                            Intent::Move { dir, speed, .. } if speed > 0.0 => dir,
                            _ => horizontal(c.loco.velocity),
                        };
                        (motion.length_squared() > 1e-4)
                            .then(|| yaw_of(motion))
                            .flatten()
                            .map(|m| wrap_angle(m + a))
                    }
                }
            })
            .collect();
        for (c, g) in self.creatures.iter_mut().zip(goals) {
            c.loco.face_yaw = g;
        }
    }
}
