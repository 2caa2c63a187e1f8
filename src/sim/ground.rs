//! The static level in rapier and the queries on it: ground casts for locomotion
//! ([`GroundQuery`]), rays for scripts, the surface under a point for traces.

use glam::Vec3;
use rapier3d::parry::shape::HeightField;
use rapier3d::prelude::{ColliderHandle, PhysicsWorld, QueryFilter, QueryPipeline, Ray};

use super::world::CreatureId;
use super::World;
use crate::locomotion::{GroundHit, GroundQuery};

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

/// Time of impact of a ray from `origin` along `dir` (unit), and the normal of the face
/// hit. A ray exactly on a heightfield cell edge can slip between the two triangles (parry
/// misses about half the vertical casts at whole-metre coordinates on a noise ground): a
/// miss is retried once 1 mm aside. Every cast on the level goes through here — scripts'
/// `world.raycast`, locomotion's casts, the trace's ground — so none slips.
fn ray_hit(
    query: &QueryPipeline<'_>,
    origin: Vec3,
    dir: Vec3,
    max_distance: f32,
) -> Option<(f32, Vec3)> {
    let cast = |o: Vec3| {
        query
            .cast_ray_and_get_normal(&Ray::new(o, dir), max_distance, true)
            .map(|(_, hit)| (hit.time_of_impact, hit.normal))
    };
    cast(origin).or_else(|| {
        let (a, b) = dir.any_orthonormal_pair();
        cast(origin + a * 1e-3 + b * 7e-4)
    })
}

/// [`ray_hit`] straight down.
pub(super) fn ray_down(
    query: &QueryPipeline<'_>,
    origin: Vec3,
    max_distance: f32,
) -> Option<(f32, Vec3)> {
    ray_hit(query, origin, Vec3::NEG_Y, max_distance)
}

/// Queries on the level alone: with ragdolls in rapier, their parts (dynamic bodies) are
/// left out; without any, the plain pipeline (no filter to run per candidate).
pub(super) fn level_query<'a>(
    physics: &'a PhysicsWorld,
    rigs: &super::ragdoll::Rigs,
) -> QueryPipeline<'a> {
    physics.query_pipeline_with_filter(level_filter(rigs))
}

/// The filter of [`level_query`].
fn level_filter(rigs: &super::ragdoll::Rigs) -> QueryFilter<'static> {
    filter_of(!rigs.rigs.is_empty())
}

/// Every collider, or (`exclude_dynamic`: ragdolls are about) the level's only.
fn filter_of(exclude_dynamic: bool) -> QueryFilter<'static> {
    if exclude_dynamic {
        QueryFilter::exclude_dynamic()
    } else {
        QueryFilter::default()
    }
}

/// A copy of `physics`'s bodies, colliders and broad phase: what ground queries read, to
/// answer them on another thread (a background bake of the surface graph).
pub(super) fn query_copy(physics: &PhysicsWorld) -> PhysicsWorld {
    let mut w = physics_world();
    w.bodies = physics.bodies.clone();
    w.colliders = physics.colliders.clone();
    w.broad_phase = physics.broad_phase.clone();
    w
}

/// The level's ground heightfield, answered without the query pipeline: a ray straight down
/// meets it in the one cell under it (two triangles, parry's own), where a general ray cast
/// descends the pipeline's tree and walks the heightfield's cells along the ray. Ground casts
/// are most of locomotion's cost in a crowd.
#[derive(Clone, Copy)]
pub(super) struct Field<'a> {
    shape: &'a HeightField,
    /// The collider's translation (heightfields are never rotated here).
    at: Vec3,
    /// A flat ground's height and its x-z extent (the common case: no cell to look up).
    flat: Option<Flat>,
}

/// The ground's collider, and its height when it is flat (worked out once per level).
#[derive(Clone, Copy, Debug)]
pub(crate) struct GroundRef {
    handle: ColliderHandle,
    flat: Option<Flat>,
}

/// A flat ground: its height, and its lowest and highest corners in x-z.
#[derive(Clone, Copy, Debug)]
struct Flat {
    y: f32,
    min: glam::Vec2,
    max: glam::Vec2,
}

impl GroundRef {
    /// The ground of `grid`, built as collider `handle`.
    pub(super) fn new(handle: ColliderHandle, grid: &super::level::GroundGrid) -> GroundRef {
        let h0 = grid.heights.first().copied().unwrap_or(0.0);
        let flat = grid.heights.iter().all(|h| *h == h0).then(|| Flat {
            y: grid.origin.y + h0,
            min: glam::Vec2::new(grid.origin.x, grid.origin.z),
            max: glam::Vec2::new(
                grid.origin.x + grid.dx * (grid.nx - 1) as f32,
                grid.origin.z + grid.dz * (grid.nz - 1) as f32,
            ),
        });
        GroundRef { handle, flat }
    }
}

impl<'a> Field<'a> {
    /// The ground `g` as a field, when its collider is a heightfield.
    pub(super) fn of(physics: &'a PhysicsWorld, g: GroundRef) -> Option<Field<'a>> {
        let c = physics.colliders.get(g.handle)?;
        Some(Field {
            shape: c.shape().as_heightfield()?,
            at: c.position().translation,
            flat: g.flat,
        })
    }

    /// The height of the surface straight below (or above) `p` and the normal of the
    /// triangle there, `None` off the field.
    fn surface_at(&self, p: Vec3) -> Option<(f32, Vec3)> {
        if let Some(f) = &self.flat {
            let q = glam::Vec2::new(p.x, p.z);
            return (q.cmpge(f.min).all() && q.cmple(f.max).all()).then_some((f.y, Vec3::Y));
        }
        let local = p - self.at;
        let (i, j) = self.shape.cell_at_point(local)?;
        let (t1, t2) = self.shape.triangles_at(i, j);
        // Barycentric weights in the x-z plane; of the cell's two triangles, the one that
        // holds the point (the larger smallest weight: no gap between them at the diagonal).
        let mut best: Option<(f32, f32, Vec3)> = None;
        for t in [t1, t2].into_iter().flatten() {
            let (e0, e1, q) = (t.b - t.a, t.c - t.a, local - t.a);
            let d = e0.x * e1.z - e1.x * e0.z;
            if d.abs() < 1e-12 {
                continue;
            }
            let u = (q.x * e1.z - e1.x * q.z) / d;
            let v = (e0.x * q.z - q.x * e0.z) / d;
            let w = 1.0 - u - v;
            let inside = u.min(v).min(w);
            let y = t.a.y * w + t.b.y * u + t.c.y * v;
            if best.is_none_or(|(m, _, _)| inside > m) {
                best = Some((inside, y, e0.cross(e1)));
            }
        }
        // The triangle's normal, turned up (the winding is the field's own).
        best.map(|(_, y, n)| {
            let n = n.normalize_or(Vec3::Y);
            (y + self.at.y, if n.y < 0.0 { -n } else { n })
        })
    }
}

/// Ground queries against the rapier level.
pub(super) struct RapierGround<'a> {
    /// Every collider of the level (sphere sweeps).
    query: QueryPipeline<'a>,
    /// The ground heightfield, cast against directly, and the query for the rest of the
    /// level (`None` when there is nothing but the ground).
    field: Option<(Field<'a>, Option<QueryPipeline<'a>>)>,
}

impl<'a> RapierGround<'a> {
    /// Ground queries on `world`'s level (its ragdolls' parts left out).
    pub(super) fn new(
        physics: &'a PhysicsWorld,
        rigs: &super::ragdoll::Rigs,
        ground: Option<GroundRef>,
        only_ground: bool,
    ) -> RapierGround<'a> {
        Self::excluding(physics, !rigs.rigs.is_empty(), ground, only_ground)
    }

    /// [`RapierGround::new`] with the ragdolls' parts left out by their being dynamic (no
    /// rigs at hand: a copy of the physics world on another thread).
    pub(super) fn excluding(
        physics: &'a PhysicsWorld,
        exclude_dynamic: bool,
        ground: Option<GroundRef>,
        only_ground: bool,
    ) -> RapierGround<'a> {
        let query = physics.query_pipeline_with_filter(filter_of(exclude_dynamic));
        let field = ground
            .and_then(|g| Field::of(physics, g).map(|f| (g.handle, f)))
            .map(|(h, f)| {
                let rest = (!only_ground).then(|| {
                    physics.query_pipeline_with_filter(QueryFilter {
                        exclude_collider: Some(h),
                        ..filter_of(exclude_dynamic)
                    })
                });
                (f, rest)
            });
        RapierGround { query, field }
    }
}

impl RapierGround<'_> {
    /// Whether `p` lies under the level's ground heightfield (inside the earth: a
    /// heightfield has no inside of its own to tell).
    pub(super) fn under_ground(&self, p: Vec3) -> bool {
        self.field
            .as_ref()
            .and_then(|(f, _)| f.surface_at(p))
            .is_some_and(|(y, _)| p.y < y - 1e-3)
    }
}

impl RapierGround<'_> {
    /// Whether a body (the capsule of `js`, lying along the way) flies `arc` without
    /// touching the level (see `nav::links::arc_sweeps`).
    pub(super) fn arc_clear(
        &self,
        arc: &crate::math::Ballistic,
        js: &crate::nav::JumpSettings,
    ) -> bool {
        use rapier3d::parry::query::ShapeCastOptions;
        crate::nav::links::arc_sweeps(arc, js)
            .iter()
            .all(|(capsule, at, motion)| {
                let pose = rapier3d::math::Pose::from_translation(*at);
                let opts = ShapeCastOptions::with_max_time_of_impact(1.0);
                self.query
                    .cast_shape(&pose, *motion, capsule, opts)
                    .is_none()
            })
    }
}

impl GroundQuery for RapierGround<'_> {
    #[inline]
    fn cast_down(&self, origin: Vec3, max_distance: f32) -> Option<Vec3> {
        self.cast_down_hit(origin, max_distance).map(|h| h.point)
    }

    fn cast_down_hit(&self, origin: Vec3, max_distance: f32) -> Option<GroundHit> {
        let hit = match &self.field {
            None => ray_down(&self.query, origin, max_distance),
            Some((field, rest)) => {
                let on_field = field
                    .surface_at(origin)
                    .map(|(y, n)| (origin.y - y, n))
                    .filter(|(t, _)| (0.0..=max_distance).contains(t));
                let on_rest = rest
                    .as_ref()
                    .and_then(|q| ray_down(q, origin, max_distance));
                match (on_field, on_rest) {
                    (Some(a), Some(b)) => Some(if b.0 < a.0 { b } else { a }),
                    (a, b) => a.or(b),
                }
            }
        };
        // A cast that starts inside solid geometry (a foot spot inside a wall) is a miss:
        // locomotion then keeps the last good spot instead of planting a foot in the wall.
        match hit {
            Some((toi, normal)) if toi > 1e-4 => Some(GroundHit {
                point: origin - Vec3::Y * toi,
                normal,
            }),
            _ => None,
        }
    }

    fn cast(&self, origin: Vec3, dir: Vec3, max_distance: f32) -> Option<GroundHit> {
        let (toi, normal) = ray_hit(&self.query, origin, dir, max_distance)?;
        // Started inside solid geometry: a miss (as a ray down's).
        (toi > 1e-4 && normal.is_finite()).then(|| GroundHit {
            point: origin + dir * toi,
            normal,
        })
    }

    fn nearest(&self, point: Vec3, max_distance: f32) -> Option<GroundHit> {
        // Onto the nearest boundary, from outside or inside a solid.
        let (_, proj) = self.query.project_point(point, max_distance, false)?;
        let d = point - proj.point;
        let len = d.length();
        let normal = match (len > 1e-6, proj.is_inside) {
            (true, false) => d / len,
            // Inside: the way out is toward the boundary point.
            (true, true) => -d / len,
            (false, _) => Vec3::Y,
        };
        (proj.point.is_finite() && len <= max_distance).then_some(GroundHit {
            point: proj.point,
            normal,
        })
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

/// Solver iterations of the rapier step. Two, not rapier's four: a shoving crowd's step is
/// nearly all solver and contacts, and two hold a motorised spider's standing pose within
/// 2.4° on average (3.6° at worst) against 1.8° (2.6°) with four — the hold test's bar is
/// 5° (12°) — for about a quarter less time a step (`benches/ragdoll`).
pub(super) const SOLVER_ITERATIONS: usize = 2;

/// An empty physics world with skitter's integration settings.
pub(super) fn physics_world() -> PhysicsWorld {
    let mut w = PhysicsWorld::default();
    w.integration_parameters.num_solver_iterations = SOLVER_ITERATIONS;
    w
}

impl World {
    /// Rebuilds the physics level if it changed since the last query.
    pub(super) fn refresh_level(&mut self) {
        if !self.level_dirty {
            return;
        }
        self.physics = physics_world();
        // Rigs lived in the old physics world: they are rebuilt from their plain data.
        self.rigs.rigs.clear();
        self.rigs.worlds.clear();
        let ground = self.level.build_colliders(&mut self.physics.colliders);
        self.ground_collider = ground
            .zip(self.level.ground.as_ref())
            .map(|(h, g)| GroundRef::new(h, g));
        // One step brings the broad phase (used by every query) up to date.
        self.physics.step();
        self.level_dirty = false;
    }

    /// Ground queries for locomotion on the level as it stands (its ragdolls left out).
    pub(super) fn ground_query(&self) -> RapierGround<'_> {
        RapierGround::new(
            &self.physics,
            &self.rigs,
            self.ground_collider,
            self.level.boxes.is_empty(),
        )
    }

    /// Casts a ray against the static level.
    pub fn raycast(&mut self, origin: Vec3, dir: Vec3, max_distance: f32) -> Option<RayHit> {
        self.refresh_level();
        let dir = dir.try_normalize()?;
        if !origin.is_finite() || !(max_distance >= 0.0) {
            return None;
        }
        ray_hit(
            &level_query(&self.physics, &self.rigs),
            origin,
            dir,
            max_distance,
        )
        .map(|(toi, normal)| RayHit {
            position: origin + dir * toi,
            normal,
            distance: toi,
        })
    }

    /// What the level has just under `p` (a foot's landing spot): the piece's name and
    /// surface, looked for from 10 cm above it to 30 cm below.
    pub fn surface_under(&mut self, p: Vec3) -> Option<crate::sim::PieceTag> {
        self.refresh_level();
        self.surface_at(p)
    }

    /// [`World::surface_under`] on the level as the last step left it (after a tick it is
    /// current: a step brings the level's colliders up to date).
    pub fn surface_at(&self, p: Vec3) -> Option<crate::sim::PieceTag> {
        if !p.is_finite() {
            return None;
        }
        let query = level_query(&self.physics, &self.rigs);
        let ray = Ray::new(p + Vec3::Y * 0.1, Vec3::NEG_Y);
        let (h, _) = query.cast_ray(&ray, 0.4, true)?;
        let data = self.physics.colliders.get(h)?.user_data;
        self.level.tag_of(data).cloned()
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

    /// The height of the level's ground (its heightfield alone, boxes ignored) at `(x, z)`;
    /// `None` off it or with no ground.
    pub fn ground_height(&self, x: f32, z: f32) -> Option<f32> {
        let q = self.ground_query();
        let (field, _) = q.field.as_ref()?;
        field.surface_at(Vec3::new(x, 0.0, z)).map(|(y, _)| y)
    }

    /// The surface point under `p`: a ray from 5 cm above it, 3 m down. A point buried in
    /// geometry reports the cast's start (so the error shows), never a surface far above.
    pub fn ground_below(&self, p: Vec3) -> Option<Vec3> {
        let origin = p + Vec3::Y * 0.05;
        ray_down(&level_query(&self.physics, &self.rigs), origin, 3.05)
            .map(|(toi, _)| origin - Vec3::Y * toi)
    }

    /// The level's surface nearest `p` within `max_distance`, and the way out of the solid
    /// there (unit): `(p − point)·normal` is `p`'s clearance, negative inside a collider.
    pub fn nearest_surface(&self, p: Vec3, max_distance: f32) -> Option<GroundHit> {
        RapierGround::new(&self.physics, &self.rigs, None, false).nearest(p, max_distance)
    }

    /// Ground casts alone for every leg of every creature, as locomotion would do them this
    /// tick: the measure the tick cost is compared against. Returns the hits found.
    pub fn cast_feet_only(&self) -> usize {
        let ground = self.ground_query();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::level::{BoxDesc, GroundDesc, HeightSource};

    /// A rough ground (noise, 0.25 m cells), or a flat one, with a box standing on it or not.
    fn rough_world(with_box: bool, flat: bool) -> World {
        let mut w = World::new(1);
        w.set_ground(&GroundDesc {
            tag: Default::default(),
            position: Vec3::new(0.5, -0.3, -0.25),
            width: 12.0,
            depth: 9.0,
            heights: if flat {
                HeightSource::Flat
            } else {
                HeightSource::Noise {
                    amplitude: 0.8,
                    scale: 3.0,
                    seed: 7,
                }
            },
        })
        .expect("ground");
        if with_box {
            w.add_box(BoxDesc {
                tag: Default::default(),
                position: Vec3::new(1.0, 0.4, 1.0),
                size: Vec3::new(1.5, 0.8, 1.0),
                rotation: Vec3::new(0.0, 30.0, 0.0),
            })
            .expect("box");
        }
        w.refresh_level();
        w
    }

    /// Issue 45: a script's vertical `world.raycast` never slips between a heightfield's
    /// triangles: at 10 000 points — whole metres, cell edges and corners, and between —
    /// over a noise ground, every cast hits, where the surface is.
    #[test]
    fn vertical_raycasts_on_a_noise_ground_all_hit() {
        let mut w = rough_world(false, false);
        let mut casts = Vec::new();
        for i in 0..100 {
            for k in 0..100 {
                // Whole metres, and cell edges and corners (0.25 m cells).
                let (x, z) = (-5.0 + 0.11 * i as f32, -4.0 + 0.08 * k as f32);
                let (x, z) = if (i + k) % 2 == 0 {
                    (x.round(), z.round())
                } else {
                    (
                        (x * 4.0).round() / 4.0 + 0.25,
                        (z * 4.0).round() / 4.0 - 0.25,
                    )
                };
                let origin = Vec3::new(x, 10.0, z);
                casts.push((origin, w.raycast(origin, Vec3::NEG_Y, 20.0)));
            }
        }
        let q = w.ground_query();
        let field = &q.field.as_ref().expect("a field").0;
        let mut misses = Vec::new();
        for (origin, hit) in casts {
            match hit {
                Some(h) => {
                    let (y, _) = field.surface_at(origin).expect("over the field");
                    assert!(
                        (h.position.y - y).abs() < 1e-3,
                        "at {origin}: {} vs {y}",
                        h.position.y
                    );
                }
                None => misses.push(origin),
            }
        }
        assert!(
            misses.is_empty(),
            "{} of 10 000 casts missed: {:?}",
            misses.len(),
            &misses[..misses.len().min(8)]
        );
    }

    #[test]
    fn ground_casts_answer_what_a_ray_cast_on_the_whole_level_answers() {
        for (with_box, flat) in [(false, false), (true, false), (false, true), (true, true)] {
            let w = rough_world(with_box, flat);
            let fast = w.ground_query();
            assert!(fast.field.is_some(), "the ground is cast against directly");
            assert_eq!(
                fast.field.as_ref().map(|f| f.0.flat.is_some()),
                Some(flat),
                "a flat ground needs no cell"
            );
            assert_eq!(fast.field.as_ref().map(|f| f.1.is_some()), Some(with_box));
            let full = level_query(&w.physics, &w.rigs);
            // A fixed sequence of points (xorshift).
            let mut state = 0x9e37_79b9_u32;
            let mut range = |lo: f32, hi: f32| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                lo + (hi - lo) * (state as f32 / u32::MAX as f32)
            };
            let (mut hits, mut misses) = (0, 0);
            for k in 0..4000 {
                // Points over the field, past its edges, on cell corners and edges, inside
                // and over the box, and some below the ground.
                let mut p = Vec3::new(range(-7.0, 8.0), range(-1.5, 2.5), range(-6.0, 5.5));
                if k % 5 == 0 {
                    p.x = (p.x * 4.0).round() / 4.0 + 0.5;
                    p.z = (p.z * 4.0).round() / 4.0 - 0.25;
                }
                let max = range(0.2, 3.0);
                let want = match ray_down(&full, p, max) {
                    Some((t, n)) if t > 1e-4 => Some((p - Vec3::Y * t, n)),
                    _ => None,
                };
                let got = fast.cast_down_hit(p, max);
                // Off the cells' edges, the face hit is the same one (its normal too).
                if let (Some((_, n)), Some(h), false) = (want, got, k % 5 == 0) {
                    assert!(
                        n.dot(h.normal) > 0.9999,
                        "at {p}: ray cast normal {n}, direct {}",
                        h.normal
                    );
                }
                match (want.map(|w| w.0), got.map(|h| h.point)) {
                    (Some(a), Some(b)) => {
                        hits += 1;
                        // On a cell's edge the ray cast may slip between two triangles and
                        // look again 1 mm aside (`ray_down`): the slope over that millimetre.
                        let tol = if k % 5 == 0 { 3e-3 } else { 1e-4 };
                        assert!(
                            (a.y - b.y).abs() < tol,
                            "at {p} (max {max}): ray cast {a}, direct {b}"
                        );
                    }
                    (None, None) => misses += 1,
                    // A hit exactly at the cast's reach may fall either side of it.
                    (a, b) => {
                        let y = a.or(b).map_or(f32::NAN, |q| q.y);
                        assert!(
                            ((p.y - y) - max).abs() < 1e-3 || (p.y - y) < 2e-4,
                            "at {p} (max {max}): ray cast {a:?}, direct {b:?}"
                        );
                    }
                }
            }
            assert!(hits > 800 && misses > 400, "{hits} hits, {misses} misses");
        }
    }
}
