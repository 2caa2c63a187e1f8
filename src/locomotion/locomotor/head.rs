//! The head: it keeps looking where the creature goes (its `counter_yaw` share of the turn
//! ahead, and of the lean taken back out), or, given something to look at (`c:look_at`),
//! turns to it — yaw and pitch within `body.head.look`'s limits, eased and no faster than
//! its speed — and past the limits turns as far as it may and no farther.

use glam::{Quat, Vec3};

use super::{yaw_rotation, Intent, Locomotor};
use crate::locomotion::def::ValidCreatureDef;
use crate::math::frame::{wrap_angle, yaw_of};

impl Locomotor {
    /// The head's world rotation: the body's, turned by the head's yaw and pitch, with
    /// `counter` (0..1) of the lean taken back out so it stays level.
    pub fn head_rotation(&self, counter: f32) -> Quat {
        self.body_and_head_rotation(counter).1
    }

    /// The body's world rotation ([`Locomotor::rotation`]) and the head's
    /// ([`Locomotor::head_rotation`]), made together (they share the body's frame and lean).
    pub fn body_and_head_rotation(&self, counter: f32) -> (Quat, Quat) {
        let base = self.base_rotation();
        let lean = self.lean.rotation();
        let head_lean = crate::math::frame::part_of(lean, 1.0 - counter.clamp(0.0, 1.0));
        // Looking up turns the head's forward (+Z) toward +Y: about its +X, negatively.
        let pitch = Quat::from_rotation_x(-self.head_pitch);
        (
            base * lean,
            base * yaw_rotation(self.head_yaw) * pitch * head_lean,
        )
    }

    /// The way the head faces, world space.
    pub fn head_forward(&self, counter: f32) -> Vec3 {
        self.head_rotation(counter) * Vec3::Z
    }

    /// Turns the head over `dt`: toward [`Locomotor::look_at`] when there is one, else
    /// toward where the creature is going (its heading goal, plus the turn it is in, looked
    /// 0.25 s ahead) by the head's `counter_yaw` share. `alpha`: the head's easing this tick.
    pub(super) fn aim_head(&mut self, def: &ValidCreatureDef, alpha: f32, dt: f32) {
        let Some(head) = def.body.head.as_ref() else {
            self.head_yaw = 0.0;
            self.head_pitch = 0.0;
            return;
        };
        // (A climber's head keeps to its surface's frame: it looks where it goes.)
        let look = self.look_at.filter(|_| !self.is_climbing());
        let (yaw, pitch) = match look {
            Some(target) => {
                let at = self.body_position() + self.rotation() * head.offset;
                let d = target - at;
                let flat = Vec3::new(d.x, 0.0, d.z).length();
                let yaw = yaw_of(d).map_or(self.head_yaw, |y| wrap_angle(y - self.yaw));
                let pitch = if flat + d.y.abs() > 1e-4 {
                    d.y.atan2(flat)
                } else {
                    self.head_pitch
                };
                let l = &head.look;
                (
                    yaw.clamp(-l.max_yaw, l.max_yaw),
                    pitch.clamp(-l.max_pitch, l.max_pitch),
                )
            }
            None if head.counter_yaw > 0.0 => (self.counter_yaw_goal(head.counter_yaw), 0.0),
            None => (0.0, 0.0),
        };
        // Eased, and no faster than the head may turn.
        let most = head.look.speed * dt;
        let step = |now: f32, want: f32| now + ((want - now) * alpha).clamp(-most, most);
        self.head_yaw = step(self.head_yaw, yaw);
        self.head_pitch = step(self.head_pitch, pitch);
    }

    /// Where the counter-yaw turns the head, relative to the body (radians).
    fn counter_yaw_goal(&self, share: f32) -> f32 {
        let goal = match (&self.follow, self.intent) {
            (Some(f), _) => yaw_of(f.direction()),
            (None, Intent::Move { dir, speed, .. }) if speed > 0.0 => yaw_of(dir),
            (None, Intent::Face { dir }) => yaw_of(dir),
            _ => None,
        }
        .or_else(|| {
            (self.speed() > 0.05)
                .then(|| yaw_of(self.velocity))
                .flatten()
        })
        .unwrap_or(self.yaw);
        let ahead = wrap_angle(goal - self.yaw) + self.lean.yaw_rate.to_radians() * 0.25;
        share * ahead.clamp(-1.05, 1.05)
    }
}
