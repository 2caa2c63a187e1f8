//! Climbers of walls on their way (`climb.max_angle` of 90° or more): never navmesh agents,
//! they head for their destination over whatever is in the way, and are routed over the
//! surface graph (`sim/surfaces.rs`) where that makes no headway or leads onto a ceiling.
//! Also random points on any surface, for climbers to wander to.

use std::sync::Arc;

use glam::Vec3;

use super::navigation::unit_random;
use super::world::{Creature, CreatureId, World, WorldEvent};
use crate::locomotion::{GroundQuery, Intent};
use crate::math::frame::horizontal;

impl World {
    /// The tick's part for climbers of walls with destinations: routes planned where they
    /// need one, each new destination's face found, and every due one steered.
    pub(super) fn step_climbers(&mut self, version: u64, dt: f32) {
        if self.creatures.iter().any(|c| needs_route(c, version)) {
            self.plan_climbs(version);
        }
        // A climber's new destination: the face it lies on.
        if self
            .creatures
            .iter()
            .any(|c| over_surfaces(c) && c.nav.as_ref().is_some_and(|g| g.face.is_none()))
        {
            let ground =
                crate::sim::ground::RapierGround::new(&self.physics, &self.rigs, None, false);
            for c in self.creatures.iter_mut().filter(|c| over_surfaces(c)) {
                if let Some(g) = c.nav.as_mut().filter(|g| g.face.is_none()) {
                    g.face = Some(face_at(&ground, g.dest));
                }
            }
        }
        let World {
            creatures, events, ..
        } = self;
        for c in creatures.iter_mut() {
            if c.due && over_surfaces(c) {
                let dt = c.step_dt(dt);
                climb_route(c, events, dt);
            }
        }
    }

    /// Routes every climber of walls with a destination and no route on level `version`
    /// over the surface graph (baked for it first when it is not).
    fn plan_climbs(&mut self, version: u64) {
        let graph = match &self.surfaces {
            Some((v, g)) if *v == version => g.clone(),
            // Baking on a worker (the window): climbers head straight on until it is ready.
            _ if self.nav.background => match self.surfaces_in_background(version) {
                Some(g) => g,
                None => return,
            },
            _ => {
                let g = Arc::new(bake_surfaces(
                    &self.physics,
                    !self.rigs.rigs.is_empty(),
                    self.ground_collider,
                ));
                self.surfaces = Some((version, g.clone()));
                g
            }
        };
        let ground = crate::sim::ground::RapierGround::new(&self.physics, &self.rigs, None, false);
        for c in self
            .creatures
            .iter_mut()
            .filter(|c| needs_route(c, version))
        {
            let max_angle = c.def.climb.as_ref().map_or(180.0, |cd| cd.max_angle);
            // Room for its body over a point: nothing else within most of its ride height
            // of where its body would be (not in a crack, not in the wedge under a ramp).
            let h = c.def.body.height;
            let roomy = |n: &crate::sim::surfaces::Node| {
                use crate::locomotion::GroundQuery;
                ground.nearest(n.at + n.normal * h, 0.8 * h).is_none()
            };
            let up = c.loco.climb.map_or(Vec3::Y, |cl| cl.up());
            let feet = c.loco.position - up * c.def.body.height;
            if let Some(g) = c.nav.as_mut() {
                let route = graph
                    .route(feet, g.dest, max_angle, &roomy)
                    .unwrap_or_default();
                g.route = Some((version, route));
            }
        }
    }

    /// The surface graph of level `version` when its background bake has finished (then kept);
    /// else `None`, a bake started on a worker thread if none is running for it (one for an
    /// older level is left to finish and dropped). The worker queries a copy of the level's
    /// colliders: the tick never waits for the bake.
    fn surfaces_in_background(
        &mut self,
        version: u64,
    ) -> Option<Arc<crate::sim::surfaces::SurfaceGraph>> {
        match self.surface_bake.take() {
            Some((v, job)) if v == version && job.is_finished() => {
                let g = Arc::new(job.join().unwrap_or_default());
                self.surfaces = Some((version, g.clone()));
                return Some(g);
            }
            Some((v, job)) if v == version => {
                self.surface_bake = Some((v, job));
                return None;
            }
            _ => {}
        }
        let copy = crate::sim::ground::query_copy(&self.physics);
        let (exclude, field) = (!self.rigs.rigs.is_empty(), self.ground_collider);
        let job = std::thread::Builder::new()
            .name("surface graph".into())
            .spawn(move || bake_surfaces(&copy, exclude, field))
            .ok()?;
        self.surface_bake = Some((version, job));
        None
    }

    /// A random point on any surface of the level within `radius` of `near` (deterministic
    /// from the seed), on a face no steeper than `caller`'s `climb.max_angle` (any face when
    /// there is no climbing caller): walls and tops for climbers to wander to. `None` when
    /// 16 tries find none.
    pub fn random_surface_point(
        &mut self,
        near: Vec3,
        radius: f32,
        caller: Option<CreatureId>,
    ) -> Option<Vec3> {
        use crate::locomotion::GroundQuery;
        self.refresh_level();
        let max_angle = caller
            .and_then(|id| self.creature(id))
            .and_then(|c| c.def.climb.as_ref())
            .map_or(180.0, |cd| cd.max_angle);
        let min_cos = max_angle.to_radians().cos() - 1e-4;
        let mut rng = self.rng;
        let mut unit = || unit_random(&mut rng);
        let ground = crate::sim::ground::RapierGround::new(
            &self.physics,
            &self.rigs,
            self.ground_collider,
            false,
        );
        let mut found = None;
        for _ in 0..16 {
            // A uniform point of the ball (not in the earth), put on the nearest surface.
            let d = Vec3::new(2.0 * unit() - 1.0, 2.0 * unit() - 1.0, 2.0 * unit() - 1.0);
            if d.length_squared() > 1.0 || ground.under_ground(near + d * radius) {
                continue;
            }
            let Some(h) = ground.nearest(near + d * radius, radius) else {
                continue;
            };
            if h.point.distance(near) <= radius && h.normal.y >= min_cos {
                found = Some(h.point);
                break;
            }
        }
        self.rng = rng;
        found
    }
}

/// Whether a creature goes to its destinations over the level's surfaces (a climbing type
/// that stands on walls: `climb.max_angle` of 90° or more) rather than as a navmesh agent (a
/// climber of slopes only walks a navmesh baked for its `max_angle`).
pub(super) fn over_surfaces(c: &Creature) -> bool {
    c.def.climb.as_ref().is_some_and(|cd| cd.max_angle >= 90.0)
}

/// Whether climber `c` needs a route on level `version`: a climber of walls with a
/// destination it has made no headway toward for [`ROUTE_AFTER`] seconds, or that lies on a
/// ceiling (which no bearing leads onto), and no route on this level.
fn needs_route(c: &Creature, version: u64) -> bool {
    over_surfaces(c)
        && c.nav.as_ref().is_some_and(|g| {
            !g.arrived
                && g.route.as_ref().is_none_or(|r| r.0 != version)
                && (g.stuck >= ROUTE_AFTER || g.face.is_some_and(|n| n.y < -0.5))
        })
}

/// Seconds without headway after which a climber is routed over the surface graph.
const ROUTE_AFTER: f32 = 3.0;
/// Headway (m) that counts.
const ROUTE_PROGRESS: f32 = 0.3;
/// A route's point this near (m) the climber's feet is passed.
const ROUTE_REACHED: f32 = 0.5;
/// A climber heads for the last point of its route within this distance (m).
const ROUTE_AHEAD: f32 = 1.2;
/// A climber this far (m) from the next point of its route has lost it: it is planned again.
const ROUTE_LOST: f32 = 3.0;

/// How far (m) off the surface a climber stands on its destination may lie and still be
/// on that surface (walked to along it rather than over whatever lies between).
const ON_SURFACE: f32 = 0.3;
/// A destination off a climber's surface nearer than this (m) in level terms lies above or
/// below it: it heads for the destination's face instead of its bearing.
const BEARING_MIN: f32 = 1.0;
/// Such a destination this far (m) or more to one side along the climber's surface is
/// headed for along it.
const ALONG_MIN: f32 = 0.3;

/// The way out of the level's face at `p` (a point on or near it): of the nearest surface
/// points to six points 10 cm around it, the one nearest `p` gives it (a point right on a
/// face has no way out of its own to measure). Up where there is no surface within 1 m.
fn face_at(ground: &impl GroundQuery, p: Vec3) -> Vec3 {
    [
        Vec3::X,
        Vec3::NEG_X,
        Vec3::Y,
        Vec3::NEG_Y,
        Vec3::Z,
        Vec3::NEG_Z,
    ]
    .iter()
    .filter_map(|d| ground.nearest(p + *d * 0.1, 1.0))
    .min_by(|a, b| {
        a.point
            .distance_squared(p)
            .total_cmp(&b.point.distance_squared(p))
    })
    .map_or(Vec3::Y, |h| h.normal)
}

/// A climber's way to its destination: over every surface in its way. Its feet's point on
/// its surface heads straight for the destination when the destination lies on that
/// surface; otherwise it keeps to the destination's horizontal bearing, which its surface
/// frame carries up walls, across tops and down far sides (`Climb::align`): the shortest
/// way over a block, straight up a wall to a point on it. A destination right under the
/// edge of the top it stands on (or over the foot of the wall it stands before) has no
/// bearing to keep: it heads over that edge toward the destination's face (into it).
/// Arrives within `nav.stopping_distance` of it (slowing down for it with
/// `nav.auto_brake`). Stuck for [`ROUTE_AFTER`], or headed for a ceiling, it follows its
/// route over the surface graph.
fn climb_route(c: &mut Creature, events: &mut Vec<WorldEvent>, dt: f32) {
    let (Some(goal), Some(cl)) = (c.nav.as_mut(), c.loco.climb) else {
        return;
    };
    goal.pending = false;
    goal.target = Some(goal.dest);
    if goal.arrived || !c.loco.is_climbing() {
        if goal.arrived {
            c.loco.intent = Intent::Idle;
        }
        return;
    }
    let nv = &c.def.nav;
    let up = cl.up();
    let feet = c.loco.position - up * c.def.body.height;
    let left = (goal.dest - feet).length() - nv.stopping_distance;
    if left <= 0.0 {
        goal.arrived = true;
        c.loco.intent = Intent::Idle;
        events.push(WorldEvent::Arrive { id: c.id });
        return;
    }
    if left < goal.closest - ROUTE_PROGRESS {
        goal.closest = left;
        goal.stuck = 0.0;
    } else {
        goal.stuck += dt;
    }
    // What it heads for: a point of its route a little way on (passed points dropped), or
    // the destination itself where it has no route or is near it.
    let (aim, face) = match goal.route.as_mut().map(|r| &mut r.1) {
        Some(route) if !route.is_empty() => {
            while route.len() > 1
                && (feet.distance(route[0].at) < ROUTE_REACHED
                    || feet.distance(route[1].at) < feet.distance(route[0].at))
            {
                route.remove(0);
            }
            if feet.distance(route[0].at) > ROUTE_LOST {
                // Knocked off its way (a fall, a blow): planned again when it needs one.
                goal.route = None;
                return;
            }
            let ahead = route
                .iter()
                .take_while(|n| n.at.distance(feet) <= ROUTE_AHEAD)
                .last()
                .unwrap_or(&route[0]);
            if route.len() <= 1 || ahead.at.distance(goal.dest) < ROUTE_REACHED {
                (goal.dest, goal.face)
            } else {
                (ahead.at, Some(ahead.normal))
            }
        }
        _ => (goal.dest, goal.face),
    };
    let to = aim - feet;
    let off = to.dot(up);
    let along = |d: Vec3| horizontal(cl.align.inverse() * d);
    let flat = to - up * off;
    let level = if off.abs() <= ON_SURFACE {
        along(flat)
    } else {
        let bearing = horizontal(to);
        match face {
            // Near it, off this surface but well to one side along it (round a block's
            // corner onto the floor beyond its far face): toward it along this surface,
            // whose edge or foot then takes it onto the aim's face. (Read as straight above
            // or below, an aim behind the wall's plane sent a climber up the wall again.)
            Some(_) if bearing.length() < BEARING_MIN && flat.length() >= ALONG_MIN => along(flat),
            // Straight above or below it (its face is a wall under the edge of the top it
            // stands on, or over the floor at its foot): over the edge toward that face's
            // outside from above, into it from below.
            Some(n) if bearing.length() < BEARING_MIN => {
                let want = if off < 0.0 { n } else { -n };
                let way = along(want - up * want.dot(up));
                if way.length() > 0.1 {
                    way
                } else {
                    bearing
                }
            }
            _ => bearing,
        }
    };
    let dir = level.normalize_or_zero();
    let mut speed = nv.speed;
    if nv.auto_brake {
        speed = speed.min((2.0 * nv.acceleration * left).sqrt() + 0.05);
    }
    c.loco.intent = Intent::Move {
        dir,
        speed,
        drop: true,
    };
}

/// The surface graph of the level in `physics` (ragdolls' parts left out by being dynamic
/// when `exclude_dynamic`), with the ground heightfield `field` named so that points under it
/// (in the earth) are told apart: they neither sample a surface nor join two (a point under
/// the floor projects onto it with the way out pointing down).
fn bake_surfaces(
    physics: &rapier3d::prelude::PhysicsWorld,
    exclude_dynamic: bool,
    field: Option<crate::sim::ground::GroundRef>,
) -> crate::sim::surfaces::SurfaceGraph {
    let ground =
        crate::sim::ground::RapierGround::excluding(physics, exclude_dynamic, field, false);
    let (mut min, mut max) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for (_, c) in physics.colliders.iter() {
        if c.parent()
            .is_some_and(|b| physics.bodies.get(b).is_some_and(|b| b.is_dynamic()))
        {
            continue;
        }
        let aabb = c.compute_aabb();
        min = min.min(aabb.mins);
        max = max.max(aabb.maxs);
    }
    let under = |p: Vec3| ground.under_ground(p);
    if min.x <= max.x {
        crate::sim::surfaces::SurfaceGraph::bake(&ground, &under, min, max)
    } else {
        crate::sim::surfaces::SurfaceGraph::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::level::{BoxDesc, GroundDesc, HeightSource};

    #[test]
    fn the_surface_graph_bakes_on_a_worker_to_the_graph_the_tick_would_bake() {
        let mut w = World::new(1);
        w.set_background_bakes(true);
        w.set_ground(&GroundDesc {
            tag: Default::default(),
            position: Vec3::ZERO,
            width: 12.0,
            depth: 12.0,
            heights: HeightSource::Flat,
        })
        .expect("ground");
        w.add_box(BoxDesc {
            tag: Default::default(),
            position: Vec3::new(0.0, 1.0, 2.0),
            size: Vec3::new(3.0, 2.0, 0.5),
            rotation: Vec3::ZERO,
        })
        .expect("box");
        w.refresh_level();
        let v = w.level_version;
        // Asked first: the bake starts on a worker and the tick goes on without it.
        assert!(w.surfaces_in_background(v).is_none());
        assert!(w.surface_bake.is_some());
        let start = std::time::Instant::now();
        let g = loop {
            if let Some(g) = w.surfaces_in_background(v) {
                break g;
            }
            assert!(start.elapsed().as_secs() < 30, "the bake never finished");
            std::thread::sleep(std::time::Duration::from_millis(2));
        };
        // Kept for the level, and the graph the tick would have baked itself.
        assert!(w.surfaces.as_ref().is_some_and(|(sv, _)| *sv == v));
        let inline = bake_surfaces(&w.physics, false, w.ground_collider);
        assert!(g.len() > 100, "{}", g.len());
        assert_eq!(g.len(), inline.len());
        assert_eq!(format!("{g:?}").len(), format!("{inline:?}").len());
    }
}
