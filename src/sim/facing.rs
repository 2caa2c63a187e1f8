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

/// What an arm reaches for (`c:reach`), or a head looks at (`c:look_at`).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum ReachTo {
    /// A point, world space.
    Point(Vec3),
    /// Another creature's body (while it lives).
    Creature(CreatureId),
}

impl super::world::Creature {
    /// Arm `arm` reaches for `to` by `weight` at `speed` a second (`None`: back to rest).
    pub(super) fn reach_arm(&mut self, arm: usize, to: Option<ReachTo>, weight: f32, speed: f32) {
        if arm >= self.def.arms.len() {
            return;
        }
        if self.loco.arm_reach.len() < self.def.arms.len() {
            self.loco
                .arm_reach
                .resize(self.def.arms.len(), crate::locomotion::ArmReach::default());
        }
        self.reach_to.retain(|(a, _)| *a != arm);
        let r = &mut self.loco.arm_reach[arm];
        r.speed = speed;
        match to {
            None => r.want = 0.0,
            Some(ReachTo::Point(p)) => {
                r.point = Some(p);
                r.want = weight;
            }
            Some(ReachTo::Creature(id)) => {
                self.reach_to.push((arm, id));
                r.want = weight;
            }
        }
    }
}

impl World {
    /// Each creature's targets this tick: the points its reaching arms go for (creatures
    /// move), and its heading from its facing (`None` where it has none, or
    /// where its target gives no direction: a point it stands on, a creature gone).
    pub(super) fn resolve_targets(&mut self) {
        // Nothing to resolve in most ticks: no allocation on the tick's path then.
        if !self
            .creatures
            .iter()
            .any(|c| c.facing.is_some() || !c.reach_to.is_empty() || c.look.is_some())
        {
            return;
        }
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
        // Arms reaching for creatures: where each is now (one gone, the arm eases back).
        let targets: Vec<Vec<(usize, Option<Vec3>)>> = self
            .creatures
            .iter()
            .map(|c| {
                c.reach_to
                    .iter()
                    .map(|(arm, id)| (*arm, self.creature(*id).map(|o| o.body_pose().0)))
                    .collect()
            })
            .collect();
        // Heads looking: at a point, or at another creature's head (its body without one);
        // one gone, the head looks where it goes again.
        let looks: Vec<Option<Vec3>> = self
            .creatures
            .iter()
            .map(|c| match c.look? {
                ReachTo::Point(p) => Some(p),
                ReachTo::Creature(id) => self.creature(id).map(|o| {
                    let (at, rot) = o.body_pose();
                    at + o
                        .def
                        .body
                        .head
                        .as_ref()
                        .map_or(Vec3::ZERO, |h| rot * h.offset)
                }),
            })
            .collect();
        for (c, l) in self.creatures.iter_mut().zip(looks) {
            c.loco.look_at = l;
        }
        for (c, ts) in self.creatures.iter_mut().zip(targets) {
            for (arm, p) in ts {
                if let Some(r) = c.loco.arm_reach.get_mut(arm) {
                    match p {
                        Some(p) => r.point = Some(p),
                        None => r.want = 0.0,
                    }
                }
            }
        }
    }
}
