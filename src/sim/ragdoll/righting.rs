//! Righting: the first phase of a try to get up when the body lies far from upright (on its
//! back, on a side, head down a slope, against a wall).
//!
//! The body is rolled over its own hull — the body box's corners, the head and the
//! standing pose's hips, knees and feet — like a box tipped over an edge: each small turn
//! pivots about the hull point lowest on the ground plane, and the body is lifted along the
//! plane's normal so that no hull point dips below it. The creature thus rolls onto the
//! legs of the side it turns toward, which take its weight as they would standing, and the
//! roll ends upright with its feet on the ground. Both ways round are planned (rolling
//! over the left or the right side, or nose or tail first); a way whose body would pass
//! through the level (a wall beside it, a box over it) is not taken, and of the free ones
//! the one that lifts the body least (downhill on a slope) is. The anchor follows the
//! chosen path with a bounded pull (see [`super::anchor::AnchorDrive::Recover`]): a creature
//! wedged where it cannot roll does not get up, and its try fails as before.

use glam::{Quat, Vec3};
use rapier3d::parry::shape::Cuboid;
use rapier3d::prelude::{PhysicsWorld, QueryFilter};

use super::rig::StandPose;
use super::Part;
use crate::locomotion::ValidCreatureDef;

/// A body within this of upright (cosine of 30°) needs no righting: the rise alone stands it
/// up.
pub(crate) const NEEDS_RIGHTING_COS: f32 = 0.866;
/// Degrees of turn between two keyframes of a planned roll.
const STEP_DEG: f32 = 6.0;
/// Seconds a half turn (180°) of righting takes, per second of `physics.recovery_time`.
pub(crate) const HALF_TURN_SHARE: f32 = 1.0;
/// Height kept between the hull and the ground plane along a roll, m.
const CLEARANCE: f32 = 0.01;

/// A planned roll: body poses at even steps of the turn, first the pose it starts in.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Righting {
    /// Keyframes (centre, rotation), evenly spaced in turn.
    pub(crate) keys: Vec<(Vec3, Quat)>,
    /// The whole turn, radians.
    pub(crate) angle: f32,
}

impl Righting {
    /// The pose at `s` (0..1) along the roll.
    pub(crate) fn at(&self, s: f32) -> (Vec3, Quat) {
        let n = self.keys.len() - 1;
        let x = s.clamp(0.0, 1.0) * n as f32;
        let i = (x.floor() as usize).min(n.saturating_sub(1));
        let f = x - i as f32;
        let (a, b) = (self.keys[i], self.keys[(i + 1).min(n)]);
        (a.0.lerp(b.0, f), a.1.slerp(b.1, f).normalize())
    }

    /// Where the roll ends.
    pub(crate) fn end(&self) -> (Vec3, Quat) {
        self.keys[self.keys.len() - 1]
    }

    /// Seconds the roll takes for a type whose tries last `recovery_time`.
    pub(crate) fn duration(&self, recovery_time: f32) -> f32 {
        recovery_time * HALF_TURN_SHARE * self.angle / std::f32::consts::PI
    }
}

/// Hull points of a type in body space, with the radius each one stands for.
fn hull(def: &ValidCreatureDef, stand: &StandPose) -> Vec<(Vec3, f32)> {
    let mut pts = Vec::new();
    let half = def.body.size * 0.5;
    for i in 0..8 {
        let s = Vec3::new(
            if i & 1 == 0 { -1.0 } else { 1.0 },
            if i & 2 == 0 { -1.0 } else { 1.0 },
            if i & 4 == 0 { -1.0 } else { 1.0 },
        );
        pts.push((half * s, 0.0));
    }
    if let Some(h) = &def.body.head {
        pts.push((h.offset, h.size.min_element() * 0.5));
    }
    let radii = super::rig::segment_radii(def);
    let parts: Vec<Part> = stand
        .parts
        .iter()
        .map(|(p, q)| Part {
            position: *p,
            rotation: *q,
            linvel: Vec3::ZERO,
            angvel: Vec3::ZERO,
        })
        .collect();
    for (li, chain) in super::rig::rig_chains(def, &parts).into_iter().enumerate() {
        // A joint is as thick as the thicker segment it ends.
        let r = &radii[li];
        pts.extend(chain.into_iter().enumerate().map(|(i, p)| {
            let a = r[i.min(r.len() - 1)];
            let b = r[i.saturating_sub(1).min(r.len() - 1)];
            (p, a.max(b))
        }));
    }
    pts
}

/// The lowest hull point along `-normal` for a body at rotation `rot`: its index and its
/// height above the plane through `floor` (for a body centred at the origin).
fn lowest(pts: &[(Vec3, f32)], rot: Quat, normal: Vec3) -> (usize, f32) {
    let mut best = (0, f32::INFINITY);
    for (i, (p, r)) in pts.iter().enumerate() {
        let h = (rot * *p).dot(normal) - r;
        if h < best.1 {
            best = (i, h);
        }
    }
    best
}

/// Rolls from `start` by `angle` about world `axis` over the hull, on the plane through
/// `floor` with `normal`. Returns the keyframes, the highest the centre rose above where
/// it started (m, world up), and how many keyframes put the body into the level.
fn roll(
    physics: &PhysicsWorld,
    def: &ValidCreatureDef,
    pts: &[(Vec3, f32)],
    start: (Vec3, Quat),
    axis: Vec3,
    angle: f32,
    ground: (Vec3, Vec3),
) -> (Vec<(Vec3, Quat)>, f32, usize) {
    let (floor, normal) = ground;
    let steps = ((angle.to_degrees() / STEP_DEG).ceil() as usize).max(1);
    let mut keys = Vec::with_capacity(steps + 1);
    let (mut pos, rot0) = start;
    keys.push(start);
    let mut rise = 0.0f32;
    let mut blocked = 0;
    let query = physics.query_pipeline_with_filter(QueryFilter::exclude_dynamic());
    // The body's box a little smaller: touching the ground it rolls on is not blocked.
    let body = Cuboid::new((def.body.size * 0.5 * 0.8).max(Vec3::splat(1e-3)));
    let mut rot = rot0;
    for k in 1..=steps {
        let next =
            (Quat::from_axis_angle(axis, angle * k as f32 / steps as f32) * rot0).normalize();
        // Pivot about the point lowest now, then lift so no point dips below the plane.
        let (piv, _) = lowest(pts, rot, normal);
        pos += rot * pts[piv].0 - next * pts[piv].0;
        let (_, h) = lowest(pts, next, normal);
        let above = (pos - floor).dot(normal) + h;
        if k > 1 || above < CLEARANCE {
            pos += normal * (CLEARANCE - above);
        }
        rot = next;
        rise = rise.max(pos.y - start.0.y);
        let pose = rapier3d::math::Pose::from_parts(pos, rot);
        if query.intersect_shape(pose, &body).next().is_some() {
            blocked += 1;
        }
        keys.push((pos, rot));
    }
    (keys, rise, blocked)
}

/// Plans the roll that turns a body at `start` to `goal_rot`, on the ground plane through
/// `floor` with `normal`; `None` when the body is near enough upright to rise directly.
pub(crate) fn plan(
    physics: &PhysicsWorld,
    def: &ValidCreatureDef,
    stand: &StandPose,
    start: (Vec3, Quat),
    goal_rot: Quat,
    ground: (Vec3, Vec3),
) -> Option<Righting> {
    if (start.1 * Vec3::Y).y >= NEEDS_RIGHTING_COS {
        return None;
    }
    let delta = (goal_rot * start.1.inverse()).normalize();
    let (axis, angle) = delta.to_axis_angle();
    let (axis, angle) = if angle > std::f32::consts::PI {
        (-axis, std::f32::consts::TAU - angle)
    } else {
        (axis, angle)
    };
    let axis = axis.try_normalize().unwrap_or(start.1 * Vec3::Z);
    let pts = hull(def, stand);
    let mut ways = vec![(axis, angle)];
    // Near a half turn the other way round is as short: plan it too.
    if angle > 100f32.to_radians() {
        ways.push((-axis, std::f32::consts::TAU - angle));
    }
    ways.into_iter()
        .map(|(axis, angle)| {
            let (keys, rise, blocked) = roll(physics, def, &pts, start, axis, angle, ground);
            // Blocked keyframes first, then the lift, then the turn.
            ((blocked, rise + angle * 0.05), Righting { keys, angle })
        })
        .min_by(|a, b| a.0 .0.cmp(&b.0 .0).then(a.0 .1.total_cmp(&b.0 .1)))
        .map(|(_, r)| r)
}
