//! A body driven from outside: a network viewer's creature. Its root (where the body is, its
//! heading and tilt, its velocity) comes from the server's interpolated snapshots and its
//! feet from the server's lifts and plants; the rest — the lean (from the velocity and the
//! heading's turn, seed 002 §7.4), the body's tilt on the feet it shows (the support plane's
//! fit and spring), the sink that keeps the hips down under it, the head's counter-yaw, the
//! leg IK — is this tick's own work, the same code a simulated body runs.

use glam::{Quat, Vec3};

use super::{Climb, Locomotor, Scratch};
use crate::locomotion::def::{LeanDef, ValidCreatureDef};

/// Where the body is, as the server had it (interpolated to the time shown).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PuppetRoot {
    /// Body reference point (`Locomotor::position`: before the lean's sink).
    pub position: Vec3,
    /// Heading, radians.
    pub yaw: f32,
    /// The support plane's up (walkers).
    pub up: Vec3,
    /// A climber's surface frame and the turns its up took (`Climb::frame`, `align`).
    pub climb: Option<(Quat, Quat)>,
    /// Body velocity, m/s.
    pub velocity: Vec3,
    /// In the air (falling or jumping): no sink, the lean's fall channels.
    pub airborne: bool,
    /// Moving apart from its facing (the side lean's channel).
    pub strafing: bool,
}

/// One foot as the viewer places it: where, and whether it stands there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PuppetFoot {
    /// The foot, world space.
    pub position: Vec3,
    /// Planted (it does not move until its next lift).
    pub grounded: bool,
    /// Where it is headed while it swings (its own position while planted).
    pub target: Vec3,
}

/// A point on a step's arc: a fraction `p` (0..1) of the way from `from` to `end`, lifted
/// by `height` × `arc(p)` (the same arc [`Locomotor`]'s own swing draws: climbing lifts
/// early, descending drops late).
pub fn swing_point(from: Vec3, end: Vec3, p: f32, height: f32, arc: &crate::math::Curve) -> Vec3 {
    let p = p.clamp(0.0, 1.0);
    let s = p * p * (3.0 - 2.0 * p);
    let rise = end.y - from.y;
    let k = if rise > 0.0 {
        1.0 - (1.0 - p) * (1.0 - p)
    } else {
        p * p
    };
    let y = from.y + rise * k + height * arc.eval(p);
    Vec3::new(
        from.x + (end.x - from.x) * s,
        y,
        from.z + (end.z - from.z) * s,
    )
}

impl Locomotor {
    /// One frame of a body driven from outside: the root and the feet as given, then the
    /// lean, the sink, the head and the leg IK as [`Locomotor::update`] does them.
    pub fn puppet(
        &mut self,
        def: &ValidCreatureDef,
        lean: &LeanDef,
        root: &PuppetRoot,
        feet: &[PuppetFoot],
        dt: f32,
        scratch: &mut Scratch,
    ) {
        self.position = root.position;
        self.yaw = root.yaw;
        self.velocity = root.velocity;
        self.airborne = root.airborne;
        self.strafing = root.strafing;
        self.climb = root.climb.map(|(frame, align)| {
            let mut c = self.climb.unwrap_or_else(|| Climb::upright(root.yaw));
            c.frame = frame;
            c.align = align;
            c
        });
        for (st, f) in self.legs.iter_mut().zip(feet) {
            st.foot = f.position;
            st.grounded = f.grounded;
            st.target = f.target;
            // A swing's end is where its plant is (or will be): ground to stand on.
            st.target_hit = true;
        }
        // The tilt of a legged walker on the ground is this body's own posture, from the
        // feet it shows (the same plane fit and spring as `fit_body`); in the air, on a
        // climbing surface or legless, the server's up.
        let own = !root.airborne && root.climb.is_none() && !def.legs.is_empty();
        if !(dt > 0.0) {
            self.up = root.up;
            self.solve_ik(def, self.body_position(), self.rotation(), scratch);
            return;
        }
        match self.support(def, scratch).filter(|_| own) {
            Some((_, normal)) => {
                let [b, _] = scratch.alphas(dt);
                self.ease_up(normal, b);
            }
            None => self.up = root.up,
        }
        let on_surface = self.climb.filter(|_| !self.airborne);
        self.update_lean(lean, on_surface.as_ref(), dt);
        let rot = self.base_rotation();
        let posed = rot * self.lean.rotation();
        self.sink = if self.airborne {
            self.sink
        } else if self.lean.is_leaning() {
            let up = on_surface.map_or(Vec3::Y, |c| c.up());
            Self::sink_for(def, rot, posed, up)
        } else {
            0.0
        };
        let head_alpha = scratch.alphas(dt)[1];
        self.aim_head(def, head_alpha, dt);
        self.solve_ik(def, self.body_position(), posed, scratch);
    }
}
