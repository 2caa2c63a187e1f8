//! Agents on a navmesh through `landmass`: one [`Navigator`] per baked navmesh (one per set
//! of agent settings); each creature with a destination is an agent. The World feeds each
//! agent its body's real position and velocity every tick and reads back the desired
//! velocity (path following plus avoidance between agents).

use std::collections::HashMap;
use std::sync::Arc;

use glam::Vec3;
use landmass::{
    Agent, Archipelago, ArchipelagoOptions, CoordinateSystem, FromAgentRadius, Island,
    NavigationMesh, PathStep, PermittedAnimationLinks, PointSampleDistance3d,
    TargetReachedCondition, Transform,
};

use super::avoid::{Borders, Mover};
use super::crowd::{Crowd, CrowdSlot, CrowdUpdate, SHARDS};
use super::links::NavLink;
use super::mesh::{BakeError, NavMesh};

/// skitter's coordinates (+Y up) for landmass (+Z up): a proper rotation about X.
pub(crate) struct YUp;

impl CoordinateSystem for YUp {
    type Coordinate = Vec3;
    type SampleDistance = PointSampleDistance3d;
    const FLIP_POLYGONS: bool = false;

    fn to_landmass(v: &Vec3) -> landmass::Vec3 {
        landmass::Vec3::new(v.x, -v.z, v.y)
    }

    fn from_landmass(v: &landmass::Vec3) -> Vec3 {
        Vec3::new(v.x, v.z, -v.y)
    }
}

/// Where an agent stands with its destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NavAgentState {
    /// No destination.
    Idle,
    /// Walking its path.
    Moving,
    /// Within its stopping distance of the destination.
    Arrived,
    /// Its body is off the navmesh.
    OffMesh,
    /// No path to the destination.
    NoPath,
    /// At the start of a link on its path (see [`NavAgent::link`]): it waits there until
    /// told to cross ([`Navigator::start_link`]) or given other orders.
    AtLink,
    /// Crossing a link: others avoid it where it is.
    OnLink,
}

/// What the navigator says about one agent after an update.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NavAgent {
    /// The velocity the agent wants (path and avoidance), world space.
    pub desired: Vec3,
    /// Its state.
    pub state: NavAgentState,
    /// The velocity along its path, before avoidance (zero when it has none).
    pub preferred: Vec3,
    /// The link it has reached ([`NavAgentState::AtLink`]).
    pub link: Option<ReachedLink>,
}

/// A link an agent has reached: which, and where it starts and ends for this agent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReachedLink {
    /// Its index in [`Navigator::links`].
    pub index: usize,
    /// Where the agent takes it from (on the start edge).
    pub from: Vec3,
    /// Where it leads (on the end edge).
    pub to: Vec3,
}

/// Agents and queries on one navmesh.
pub struct Navigator {
    /// The navmesh.
    pub mesh: Arc<NavMesh>,
    /// The queries' own archipelago (no agents: a query answers the same whatever the crowd
    /// is doing, and while its update runs elsewhere — see [`Navigator::take_crowd_update`]).
    query: Archipelago<YUp>,
    /// Each link's id in `query` (`None` once disabled: see [`Navigator::disable_link`]).
    query_links: Vec<Option<landmass::AnimationLinkId>>,
    sample: PointSampleDistance3d,
    /// The links on this mesh (the level's, then those the bake found).
    links: Vec<NavLink>,
    /// The agents: here, or away while their deferred update runs on another thread.
    crowd: CrowdSlot,
    /// The crowd's update planned this tick ([`Navigator::plan`]), not yet deferred.
    planned: Option<(f32, u64, u64)>,
}

/// A link as landmass takes it.
fn to_landmass(l: &NavLink) -> landmass::AnimationLink<YUp> {
    landmass::AnimationLink {
        start_edge: l.start,
        end_edge: l.end,
        kind: l.kind,
        cost: l.cost,
        bidirectional: l.bidirectional,
    }
}

/// How far a point may be from the mesh and still sample onto it (m).
fn sample_distance(radius: f32, horizontal: f32) -> PointSampleDistance3d {
    PointSampleDistance3d {
        horizontal_distance: horizontal,
        distance_above: 1.0 + radius,
        distance_below: 1.5 + radius,
        vertical_preference_ratio: 2.0,
        animation_link_max_vertical_distance: 0.5 * radius,
    }
}

impl Navigator {
    /// Agents on `mesh` (whose settings give the agent radius), with `links` on it.
    pub fn new(mesh: Arc<NavMesh>, links: Vec<NavLink>) -> Result<Navigator, BakeError> {
        let radius = mesh.settings.map(|s| s.radius).unwrap_or(0.5);
        let nav = NavigationMesh::<YUp> {
            vertices: mesh.vertices.clone(),
            polygons: mesh.polygons.clone(),
            polygon_type_indices: vec![0; mesh.polygons.len()],
            height_mesh: None,
        };
        let valid = nav
            .validate()
            .map_err(|e| BakeError::Invalid(e.to_string()))?;
        let valid = Arc::new(valid);
        let arch = || {
            let mut arch = Archipelago::new(ArchipelagoOptions {
                point_sample_distance: sample_distance(radius, radius + 0.3),
                // landmass only follows paths: avoidance (of agents and of the mesh's
                // borders) is skitter's own (`avoid`), so landmass's is off (our patch,
                // vendor/landmass/SKITTER-PATCH.md).
                neighbourhood: 0.0,
                avoidance: false,
                ..ArchipelagoOptions::from_agent_radius(radius)
            });
            arch.add_island(Island::new(
                Transform {
                    translation: Vec3::ZERO,
                    rotation: 0.0,
                },
                valid.clone(),
            ));
            arch
        };
        let mut archs: Vec<Archipelago<YUp>> = (0..SHARDS).map(|_| arch()).collect();
        let mut query = arch();
        let link_ids = links
            .iter()
            .map(|l| {
                Some(
                    archs
                        .iter_mut()
                        .map(|a| a.add_animation_link(to_landmass(l)))
                        .collect(),
                )
            })
            .collect();
        let query_links = links
            .iter()
            .map(|l| Some(query.add_animation_link(to_landmass(l))))
            .collect();
        for arch in archs.iter_mut().chain(std::iter::once(&mut query)) {
            // Islands and links join the queries at the next update.
            arch.update(0.0);
        }
        // Avoidance looks 0.5 s ahead: neighbours beyond a few radii never matter, and in a
        // crowd each one costs.
        let crowd = Crowd::new(archs, link_ids, Borders::new(&mesh), 5.0 * radius);
        Ok(Navigator {
            links,
            query,
            query_links,
            mesh,
            sample: sample_distance(radius, 1.0e4),
            crowd: CrowdSlot::Here(Box::new(crowd)),
            planned: None,
        })
    }

    /// The links on this mesh.
    pub fn links(&self) -> &[NavLink] {
        &self.links
    }

    /// Whether link `index` is still taken (not disabled).
    pub fn link_enabled(&self, index: usize) -> bool {
        self.query_links.get(index).is_some_and(|l| l.is_some())
    }

    /// Takes link `index` off this mesh (found blocked): paths no longer use it; agents
    /// whose path did are re-planned at their next update.
    pub fn disable_link(&mut self, index: usize) {
        if let Some(id) = self.query_links.get_mut(index).and_then(Option::take) {
            self.query.remove_animation_link(id);
            // Queries refuse a changed archipelago until it updates (no time passes).
            self.query.update(0.0);
        }
        self.crowd.here().disable_link(index);
    }

    /// Plans one tick of the crowd's update ([`Navigator::step`]'s arguments) for later:
    /// [`Navigator::defer_planned`] defers it once the tick's navigation is done with the
    /// crowd (its agents steer by the update from their next tick on).
    pub fn plan(&mut self, dt: f32, tick: u64, every: u64) {
        self.planned = Some((dt, tick, every));
    }

    /// Defers the planned update: it runs before anything else touches the crowd — on
    /// another thread when it is taken by [`Navigator::take_crowd_update`], else at the
    /// crowd's next use here.
    pub fn defer_planned(&mut self) {
        if let Some(planned) = self.planned.take() {
            self.crowd.here().defer(planned);
        }
    }

    /// The crowd's deferred update, if it has one, to run elsewhere ([`CrowdUpdate::run`]);
    /// this navigator waits for it at its next use of the crowd. Queries do not wait.
    pub fn take_crowd_update(&mut self) -> Option<CrowdUpdate> {
        self.crowd.take_update()
    }

    /// Runs the crowd's deferred update now, if it has one.
    pub fn run_deferred(&mut self) {
        self.crowd.here();
    }

    /// Agent `key`, at a link, starts crossing it: landmass leaves it be until it is added
    /// again (its body still fed: others avoid it).
    pub fn start_link(&mut self, key: u32) {
        self.crowd.here().start_link(key);
    }

    /// Adds (or replaces) agent `key`, allowed the links of `kinds` (all when `None`).
    #[allow(clippy::too_many_arguments)]
    pub fn add_agent(
        &mut self,
        key: u32,
        position: Vec3,
        velocity: Vec3,
        radius: f32,
        speed: f32,
        stopping_distance: f32,
        target: Vec3,
        kinds: Option<&Arc<std::collections::HashSet<usize>>>,
    ) {
        // landmass aims at `speed` and may go up to 1.25× it (avoidance uses that top speed).
        let max_speed = speed * 1.25;
        let mut a = Agent::create(position, velocity, radius, speed, max_speed);
        a.current_target = Some(target);
        a.target_reached_condition =
            TargetReachedCondition::Distance(Some(stopping_distance.max(0.05)));
        a.permitted_animation_links = match kinds {
            Some(k) => PermittedAnimationLinks::Kinds(k.clone()),
            None => PermittedAnimationLinks::All,
        };
        let mover = Mover {
            key,
            position,
            velocity,
            radius,
            max_speed,
            preferred: Vec3::ZERO,
            desired: Vec3::ZERO,
            state: NavAgentState::Idle,
            yielding: 0.0,
            far: false,
        };
        self.crowd.here().add(key, a, mover);
    }

    /// Removes agent `key`.
    pub fn remove_agent(&mut self, key: u32) {
        self.crowd.here().remove_agent(key);
    }

    /// Removes every agent.
    pub fn clear_agents(&mut self) {
        self.crowd.here().clear_agents();
    }

    /// Agent `key` stays an agent (others avoid it) without a destination: arrived, it
    /// stands until it is given another.
    pub fn stand(&mut self, key: u32) {
        self.crowd.here().stand(key);
    }

    /// How many agents there are.
    pub fn agent_count(&mut self) -> usize {
        self.crowd.here().len()
    }

    /// Where agent `key`'s body really is, and how fast it goes.
    pub fn set_body(&mut self, key: u32, position: Vec3, velocity: Vec3) {
        self.crowd.here().set_body(key, position, velocity);
    }

    /// Marks agent `key` far from the camera (level of detail; see [`Navigator::step`]).
    pub fn set_far(&mut self, key: u32, far: bool) {
        self.crowd.here().set_far(key, far);
    }

    /// Steps path following (landmass) and avoidance (`avoid`) by `dt`, every agent.
    pub fn update(&mut self, dt: f32) {
        self.step(dt, 0, 1);
    }

    /// One tick of `dt` for a crowd whose paths update every `every` ticks (at most
    /// [`SHARDS`]): each tick the agents whose turn it is (those of the archipelagos whose
    /// index modulo `every` is `tick` modulo `every`) follow their paths and avoid, with
    /// `every` ticks' time; the others keep what they were told on their last turn, fed
    /// where their bodies are. So a crowd's navigation is spread evenly over the ticks
    /// instead of landing on one. landmass sees an agent's body only on its turn. In a crowd
    /// (`every` > 1) an agent marked far (`set_far`) works out its avoidance on every other
    /// turn only (its path on each), keeping its velocity in between: far from the camera
    /// its body moves every few ticks anyway (`sim::detail`).
    pub fn step(&mut self, dt: f32, tick: u64, every: u64) {
        self.crowd.here().step(dt, tick, every);
    }

    /// What agent `key` wants (as of its last turn).
    pub fn agent(&mut self, key: u32) -> Option<NavAgent> {
        self.crowd.here().agent(key)
    }
}

impl Navigator {
    /// The nearest point on the mesh to `p` within `horizontal` metres (any height within
    /// a metre or so), if any.
    pub fn nearest(&self, p: Vec3, horizontal: f32) -> Option<Vec3> {
        let d = PointSampleDistance3d {
            horizontal_distance: horizontal,
            ..self.sample.clone()
        };
        self.query.sample_point(p, &d).ok().map(|s| s.point())
    }

    /// The corners of the shortest path from `from` to `to` (both sampled onto the mesh),
    /// start and end included, taking the links of `kinds` (all when `None`); `None` when
    /// there is none.
    pub fn find_path(
        &self,
        from: Vec3,
        to: Vec3,
        kinds: Option<&Arc<std::collections::HashSet<usize>>>,
    ) -> Option<Vec<Vec3>> {
        let a = self.query.sample_point(from, &self.sample).ok()?;
        let b = self.query.sample_point(to, &self.sample).ok()?;
        let permitted = match kinds {
            Some(k) => PermittedAnimationLinks::Kinds(k.clone()),
            None => PermittedAnimationLinks::All,
        };
        let steps = self
            .query
            .find_path(&a, &b, &HashMap::new(), permitted)
            .ok()?;
        let mut out = vec![a.point()];
        for s in steps {
            match s {
                PathStep::Waypoint(p) => out.push(p),
                PathStep::AnimationLink {
                    start_point,
                    end_point,
                    ..
                } => out.extend([start_point, end_point]),
            }
        }
        if out.last().is_none_or(|l| l.distance(b.point()) > 1e-4) {
            out.push(b.point());
        }
        Some(out)
    }

    /// The point reachable from `from` that is closest to `to` (for an unreachable
    /// destination): over the polygons connected to the one under `from`.
    pub fn closest_reachable(&self, from: Vec3, to: Vec3) -> Option<Vec3> {
        let start = self.nearest(from, 2.0)?;
        let poly = self.mesh.polygon_at(start, 1.5)?;
        let reach = self.mesh.connected(poly);
        let mut best: Option<(f32, Vec3)> = None;
        for (i, ok) in reach.iter().enumerate() {
            if !ok {
                continue;
            }
            let q = self.mesh.closest_in_polygon(i, to);
            let d = q.distance_squared(to);
            if best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, q));
            }
        }
        best.map(|(_, q)| q)
    }

    /// A point on the mesh, chosen by `u` (three uniform numbers in [0, 1)): a polygon
    /// weighted by area, then a point inside it.
    pub fn point_at(&self, u: [f32; 3]) -> Option<Vec3> {
        let n = self.mesh.polygons.len();
        if n == 0 {
            return None;
        }
        let total = self.mesh.total_area();
        let mut pick = u[0] * total;
        let mut poly = n - 1;
        for i in 0..n {
            let a = self.mesh.area(i);
            if pick < a {
                poly = i;
                break;
            }
            pick -= a;
        }
        // A fan triangle of the polygon by area, then a uniform point in it.
        let pts: Vec<Vec3> = self.mesh.polygon(poly).collect();
        let tri_area = |k: usize| {
            let (a, b, c) = (pts[0], pts[k], pts[k + 1]);
            ((b - a).cross(c - a)).length() * 0.5
        };
        let areas: Vec<f32> = (1..pts.len() - 1).map(tri_area).collect();
        let sum: f32 = areas.iter().sum();
        let mut t = u[1] * sum;
        let mut k = areas.len();
        for (j, a) in areas.iter().enumerate() {
            if t < *a || j + 1 == areas.len() {
                k = j + 1;
                break;
            }
            t -= a;
        }
        // What is left of u[1] inside the chosen triangle is uniform too.
        let (mut r1, mut r2) = ((t / areas[k - 1].max(1e-9)).clamp(0.0, 1.0), u[2]);
        if r1 + r2 > 1.0 {
            r1 = 1.0 - r1;
            r2 = 1.0 - r2;
        }
        let (a, b, c) = (pts[0], pts[k], pts[k + 1]);
        Some(a + (b - a) * r1 + (c - a) * r2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nav::mesh::tests::baked_floor_with_wall;

    fn nav() -> Navigator {
        Navigator::new(Arc::new(baked_floor_with_wall()), Vec::new()).expect("nav")
    }

    #[test]
    fn far_agents_in_a_crowd_work_out_their_avoidance_every_other_turn() {
        // Two agents coming head-on (the side rule and then avoidance turn them every time
        // they are worked out), updated as a crowd every 2 ticks: agent 1 (shard 1, odd
        // ticks) far, agent 2 (shard 2, even ticks) near.
        let mut n = nav();
        let from = [Vec3::new(-2.0, 0.0, 3.0), Vec3::new(2.0, 0.0, 3.0)];
        let to = [Vec3::new(5.0, 0.0, 3.0), Vec3::new(-5.0, 0.0, 3.0)];
        for i in 0..2 {
            n.add_agent(
                i as u32 + 1,
                from[i],
                Vec3::ZERO,
                0.4,
                2.0,
                0.3,
                to[i],
                None,
            );
        }
        n.set_far(1, true);
        let dt = 1.0 / 60.0;
        let (mut p, mut v) = (from, [Vec3::ZERO; 2]);
        let mut changed: [Vec<u64>; 2] = Default::default();
        for tick in 0..90u64 {
            for i in 0..2 {
                n.set_body(i as u32 + 1, p[i], v[i]);
            }
            n.step(dt, tick, 2);
            for i in 0..2 {
                let d = n.agent(i as u32 + 1).expect("agent").desired;
                if d != v[i] {
                    changed[i].push(tick);
                }
                v[i] = d;
                p[i] += d * dt;
            }
        }
        // The far one: its first turn (tick 1) takes its path's velocity; after that only
        // every other turn of its shard (ticks 3, 7, 11, ...) changes it.
        let far = &changed[0];
        assert_eq!(far.first(), Some(&1), "{far:?}");
        assert!(far[1..].iter().all(|t| t % 4 == 3), "{far:?}");
        assert!(far.len() > 5, "{far:?}");
        // The near one: on every turn of its shard, both halves of the rounds.
        let near = &changed[1];
        assert!(near.iter().all(|t| t % 2 == 0), "{near:?}");
        assert!(
            near.iter().any(|t| t % 4 == 0) && near.iter().any(|t| t % 4 == 2),
            "{near:?}"
        );
    }

    #[test]
    fn agents_walk_round_one_crossing_a_link() {
        // Agent 1 crosses a link (it stands where its body is, as a link's crossing leaves
        // it); agent 2's path runs within 0.3 m of that spot and goes round it. (Dead on,
        // ORCA alone holds both still: the World's stuck sidestep breaks that, as for any
        // agent standing in the way.)
        let mut n = nav();
        let spot = Vec3::new(0.0, 0.0, 3.0);
        n.add_agent(
            1,
            spot,
            Vec3::ZERO,
            0.4,
            2.0,
            0.3,
            Vec3::new(6.0, 0.0, 3.0),
            None,
        );
        n.start_link(1);
        let (mut p, mut v) = (Vec3::new(-5.0, 0.0, 3.3), Vec3::ZERO);
        n.add_agent(2, p, v, 0.4, 2.0, 0.3, Vec3::new(5.0, 0.0, 3.3), None);
        let mut closest = f32::MAX;
        for _ in 0..60 * 10 {
            n.set_body(1, spot, Vec3::ZERO);
            n.set_body(2, p, v);
            n.update(1.0 / 60.0);
            assert_eq!(n.agent(1).expect("agent").state, NavAgentState::OnLink);
            let s = n.agent(2).expect("agent");
            if s.state == NavAgentState::Arrived {
                break;
            }
            v = s.desired;
            p += v / 60.0;
            closest = closest.min(p.distance(spot));
        }
        assert!(p.x > 4.0, "stuck at {p}");
        assert!(
            closest > 0.75,
            "came within {closest} of the one on the link"
        );
    }

    #[test]
    fn paths_go_round_the_wall_and_agents_get_there() {
        let mut n = nav();
        let (a, b) = (Vec3::new(-6.0, 0.0, -4.0), Vec3::new(-6.0, 0.0, 4.0));
        let path = n.find_path(a, b, None).expect("a path");
        let len: f32 = path.windows(2).map(|w| w[0].distance(w[1])).sum();
        // Round the wall's end at x = 6 (plus the agent radius): about 2 × √(12.4² + 4²).
        assert!(len > 24.0 && len < 29.0, "length {len}: {path:?}");
        assert!(
            path.iter().any(|p| p.x > 6.0),
            "goes round the end: {path:?}"
        );
        // An agent walked by its desired velocity reaches the other side.
        let mut p = a;
        let mut v = Vec3::ZERO;
        n.add_agent(1, p, v, 0.4, 2.0, 0.3, b, None);
        let mut arrived = false;
        for _ in 0..60 * 30 {
            n.set_body(1, p, v);
            n.update(1.0 / 60.0);
            let s = n.agent(1).expect("agent");
            if s.state == NavAgentState::Arrived {
                arrived = true;
                break;
            }
            v = s.desired;
            p += v / 60.0;
            assert!(
                !(p.z.abs() < 0.5 && p.x < 6.0),
                "walked through the wall at {p}"
            );
        }
        assert!(arrived, "stuck at {p}");
        assert!(p.distance(b) < 0.5);
    }

    #[test]
    fn a_crowd_updates_a_share_each_tick_and_everyone_within_the_interval() {
        let mut n = nav();
        for k in 0..6u32 {
            let p = Vec3::new(-8.0 + k as f32 * 2.0, 0.0, -6.0);
            n.add_agent(
                k,
                p,
                Vec3::ZERO,
                0.4,
                2.0,
                0.3,
                p + Vec3::new(0.0, 0.0, -3.0),
                None,
            );
        }
        let moving = |n: &mut Navigator| -> Vec<u32> {
            (0..6)
                .filter(|k| n.agent(*k).is_some_and(|a| a.desired.length() > 0.5))
                .collect()
        };
        n.step(1.0 / 60.0, 0, 3);
        assert_eq!(moving(&mut n), vec![0, 3], "tick 0: keys 0 and 3 only");
        n.step(1.0 / 60.0, 1, 3);
        assert_eq!(moving(&mut n), vec![0, 1, 3, 4]);
        n.step(1.0 / 60.0, 2, 3);
        assert_eq!(
            moving(&mut n),
            vec![0, 1, 2, 3, 4, 5],
            "all within the interval"
        );
        // A new destination voids what the agent was told: it waits for its turn.
        n.add_agent(
            1,
            Vec3::new(-6.0, 0.0, -6.0),
            Vec3::ZERO,
            0.4,
            2.0,
            0.3,
            Vec3::new(-6.0, 0.0, -2.0),
            None,
        );
        assert!(n.agent(1).is_some_and(|a| a.desired == Vec3::ZERO));
    }

    #[test]
    fn a_planned_update_runs_once_deferred_before_the_crowds_next_use_wherever_it_runs() {
        // Six agents walking off in a crowd updated every 2 ticks (keys 0, 2, 4: tick 0's
        // turn): stepped in place, deferred and used here, and taken to run on a thread.
        let dt = 1.0 / 60.0;
        let setup = || {
            let mut n = nav();
            for k in 0..6u32 {
                let p = Vec3::new(-8.0 + k as f32 * 2.0, 0.0, -6.0);
                let to = p + Vec3::new(0.0, 0.0, -3.0);
                n.add_agent(k, p, Vec3::ZERO, 0.4, 2.0, 0.3, to, None);
            }
            n
        };
        let mut stepped = setup();
        stepped.step(dt, 0, 2);
        let mut here = setup();
        here.plan(dt, 0, 2);
        // Planned, not deferred: the tick's navigation still sees the crowd as it was.
        assert_eq!(here.agent(0).map(|a| a.desired), Some(Vec3::ZERO));
        here.defer_planned();
        let mut away = setup();
        away.plan(dt, 0, 2);
        away.defer_planned();
        let update = away.take_crowd_update().expect("a deferred update");
        assert!(away.take_crowd_update().is_none(), "taken once");
        // The update waits on its thread for a word from here (or 10 s): queries answer
        // while the crowd is away, without waiting for it.
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let job = std::thread::spawn(move || {
            let late = wait
                .recv_timeout(std::time::Duration::from_secs(10))
                .is_err();
            update.run();
            late
        });
        let q = away.nearest(Vec3::new(0.0, 0.0, -6.0), 1.0);
        assert!(away
            .find_path(Vec3::new(-6.0, 0.0, -4.0), Vec3::new(-6.0, 0.0, 4.0), None)
            .is_some());
        let _ = go.send(());
        assert!(
            !job.join().expect("the update ran"),
            "a query waited for the crowd"
        );
        assert_eq!(q, stepped.nearest(Vec3::new(0.0, 0.0, -6.0), 1.0));
        for k in 0..6u32 {
            let want = stepped.agent(k);
            assert_eq!(here.agent(k), want, "agent {k} deferred here");
            assert_eq!(away.agent(k), want, "agent {k} updated on a thread");
        }
        assert!(stepped.agent(0).is_some_and(|a| a.desired.length() > 0.5));
        assert!(stepped.agent(1).is_some_and(|a| a.desired == Vec3::ZERO));
    }

    #[test]
    fn off_mesh_points_snap_and_random_points_are_on_the_mesh() {
        let n = nav();
        let q = n
            .nearest(Vec3::new(0.0, 0.0, 0.1), 5.0)
            .expect("near the wall");
        assert!(q.z.abs() > 0.5, "snapped off the wall: {q}");
        assert!(n.nearest(Vec3::new(100.0, 0.0, 0.0), 5.0).is_none());
        for i in 0..200 {
            let u = [
                (i as f32 * 0.618_034).fract(),
                (i as f32 * 0.414_214).fract(),
                (i as f32 * 0.732_051).fract(),
            ];
            let p = n.point_at(u).expect("point");
            assert!(
                n.mesh.polygon_at(p, 0.5).is_some(),
                "{p} is not on the mesh"
            );
        }
    }
}
