//! The static level in rapier and the queries on it: ground casts for locomotion
//! ([`GroundQuery`]), rays for scripts, the surface under a point for traces.

use glam::Vec3;
use rapier3d::prelude::{PhysicsWorld, QueryPipeline, Ray};

use super::world::CreatureId;
use super::World;
use crate::locomotion::GroundQuery;

/// A ray hit on the static level.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// Hit point.
    pub position: Vec3,
    /// Surface normal.
    pub normal: Vec3,
    /// Distance along the ray.
    pub distance: f32,
}

/// Time of impact of a ray straight down. A ray exactly on a heightfield cell edge can slip
/// between the two triangles; a miss is retried once 1 mm aside.
fn ray_down(query: &QueryPipeline<'_>, origin: Vec3, max_distance: f32) -> Option<f32> {
    let hit = query.cast_ray(&Ray::new(origin, Vec3::NEG_Y), max_distance, true);
    match hit {
        Some((_, toi)) => Some(toi),
        None => query
            .cast_ray(
                &Ray::new(origin + Vec3::new(1e-3, 0.0, 7e-4), Vec3::NEG_Y),
                max_distance,
                true,
            )
            .map(|(_, t)| t),
    }
}

/// Queries on the level alone: with ragdolls in rapier, their parts (dynamic bodies) are
/// left out; without any, the plain pipeline (no filter to run per candidate).
pub(super) fn level_query<'a>(
    physics: &'a PhysicsWorld,
    rigs: &super::ragdoll::Rigs,
) -> QueryPipeline<'a> {
    if rigs.rigs.is_empty() {
        physics.query_pipeline()
    } else {
        physics.query_pipeline_with_filter(rapier3d::prelude::QueryFilter::exclude_dynamic())
    }
}

/// Ground queries against the rapier level.
pub(super) struct RapierGround<'a> {
    pub(super) query: QueryPipeline<'a>,
}

impl GroundQuery for RapierGround<'_> {
    #[inline]
    fn cast_down(&self, origin: Vec3, max_distance: f32) -> Option<Vec3> {
        // A cast that starts inside solid geometry (a foot spot inside a wall) is a miss:
        // locomotion then keeps the last good spot instead of planting a foot in the wall.
        match ray_down(&self.query, origin, max_distance) {
            Some(toi) if toi > 1e-4 => Some(origin - Vec3::Y * toi),
            _ => None,
        }
    }

    fn sweep_down(&self, origin: Vec3, radius: f32, max_distance: f32) -> Option<Vec3> {
        use rapier3d::parry::query::ShapeCastOptions;
        use rapier3d::parry::shape::Ball;
        let pose = rapier3d::math::Pose::from_translation(origin);
        let opts = ShapeCastOptions::with_max_time_of_impact(max_distance);
        let (_, hit) = self
            .query
            .cast_shape(&pose, Vec3::NEG_Y, &Ball::new(radius), opts)?;
        // The contact point on the level (an edge the sphere rests on), world frame.
        let contact = hit.witness1;
        let centre = origin - Vec3::Y * hit.time_of_impact;
        (hit.time_of_impact > 1e-4
            && contact.is_finite()
            && contact.distance(centre) <= radius * 1.5)
            .then_some(contact)
    }
}

impl World {
    /// Rebuilds the physics level if it changed since the last query.
    pub(super) fn refresh_level(&mut self) {
        if !self.level_dirty {
            return;
        }
        self.physics = PhysicsWorld::default();
        // Rigs lived in the old physics world: they are rebuilt from their plain data.
        self.rigs.rigs.clear();
        self.level.build_colliders(&mut self.physics.colliders);
        // One step brings the broad phase (used by every query) up to date.
        self.physics.step();
        self.level_dirty = false;
    }

    /// Casts a ray against the static level.
    pub fn raycast(&mut self, origin: Vec3, dir: Vec3, max_distance: f32) -> Option<RayHit> {
        self.refresh_level();
        let dir = dir.try_normalize()?;
        if !origin.is_finite() || !(max_distance >= 0.0) {
            return None;
        }
        let ray = Ray::new(origin, dir);
        level_query(&self.physics, &self.rigs)
            .cast_ray_and_get_normal(&ray, max_distance, true)
            .map(|(_, hit)| RayHit {
                position: origin + dir * hit.time_of_impact,
                normal: hit.normal,
                distance: hit.time_of_impact,
            })
    }

    /// The first creature body (its ellipsoid, as drawn) a ray meets within `max_distance`.
    pub fn raycast_bodies(
        &self,
        origin: Vec3,
        dir: Vec3,
        max_distance: f32,
    ) -> Option<(CreatureId, RayHit)> {
        let dir = dir.try_normalize()?;
        let mut best: Option<(CreatureId, RayHit)> = None;
        for c in &self.creatures {
            let half = (c.def.body.size * 0.5).max(Vec3::splat(1e-3));
            let (centre, rot) = c.body_pose();
            let back = rot.inverse();
            // In the body's frame, scaled so the body is the unit sphere.
            let o = back * (origin - centre) / half;
            let d = back * dir / half;
            let (a, b, k) = (d.dot(d), o.dot(d), o.dot(o) - 1.0);
            let disc = b * b - a * k;
            if disc < 0.0 || a < 1e-12 {
                continue;
            }
            let root = disc.sqrt();
            let t = if (-b - root) / a >= 0.0 {
                (-b - root) / a
            } else {
                (-b + root) / a
            };
            if !(0.0..=max_distance).contains(&t)
                || best.as_ref().is_some_and(|(_, h)| h.distance <= t)
            {
                continue;
            }
            let local = o + d * t;
            let normal = (rot * (local / half)).normalize_or(Vec3::Y);
            best = Some((
                c.id,
                RayHit {
                    position: origin + dir * t,
                    normal,
                    distance: t,
                },
            ));
        }
        best
    }

    /// The surface point under `p`: a ray from 5 cm above it, 3 m down. A point buried in
    /// geometry reports the cast's start (so the error shows), never a surface far above.
    pub fn ground_below(&self, p: Vec3) -> Option<Vec3> {
        let origin = p + Vec3::Y * 0.05;
        ray_down(&level_query(&self.physics, &self.rigs), origin, 3.05)
            .map(|toi| origin - Vec3::Y * toi)
    }

    /// Ground casts alone for every leg of every creature, as locomotion would do them this
    /// tick: the measure the tick cost is compared against. Returns the hits found.
    pub fn cast_feet_only(&self) -> usize {
        let ground = RapierGround {
            query: level_query(&self.physics, &self.rigs),
        };
        let mut hits = 0;
        for c in &self.creatures {
            let y = c.loco.position.y + 0.5;
            for leg in &c.loco.legs {
                let origin = Vec3::new(leg.target.x, y, leg.target.z);
                hits += ground.cast_down(origin, y - leg.target.y + 1.5).is_some() as usize;
            }
        }
        hits
    }
}
