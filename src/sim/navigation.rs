//! The World's navigation: each creature with a destination as a landmass agent on the
//! navmesh of its type's settings (`sim::nav_world` bakes and keeps them) — agents placed
//! and stepped in the tick, their creatures steered, links reached handed to `sim::links`
//! — and the nav queries scripts make.

use std::sync::Arc;

use glam::Vec3;

use super::climb_nav::over_surfaces;
use super::links::{jump_settings, on_link, permitted, LinkUse};
use super::nav_world::{NavWorld, Status};
use super::world::{Creature, CreatureId, World, WorldEvent};
use crate::locomotion::def::NavDef;
use crate::locomotion::{Intent, Locomotor, ValidCreatureDef};
use crate::math::frame::horizontal;
use crate::nav::agents::ReachedLink;
use crate::nav::{NavAgentState, NavInput, NavSettings, Navigator};

/// An agent slower than this share of its cruise speed, short of its target, is stuck...
const STUCK_SPEED: f32 = 0.2;
/// ...once it has been so this long (s): it then sidesteps to its right (while the target is
/// more than a metre beyond its stopping distance).
const STUCK_AFTER: f32 = 0.5;
/// How far to its right a stuck agent turns its desired velocity (radians, 60°).
const SIDESTEP: f32 = 1.05;
/// An agent that has made no headway toward its target (less than [`STUCK_SPEED`] of its
/// cruise speed) for this long (s) within [`CROWDED_REACH`] radii of it (beyond its stopping
/// distance) arrives where it stands: others stand on or around its spot (a crowd filling
/// the end of a corridor, a spot already taken), and pushing at them, or circling them,
/// would go on for ever.
const CROWDED_AFTER: f32 = 2.0;
/// See [`CROWDED_AFTER`]: agent radii.
const CROWDED_REACH: f32 = 4.0;
/// A mover stuck this long (s; see [`STUCK_AFTER`]) far from its target asks the agents
/// standing in its way to make way (see `make_way`).
const MAKE_WAY_AFTER: f32 = 1.0;
/// How far from the mover's line (m, beyond the two radii) an agent making way steps.
const MAKE_WAY_ASIDE: f32 = 0.4;
/// Agents on one navmesh whose paths and avoidance update every tick; a bigger crowd updates
/// every `ceil(agents / CROWD_AT_60HZ)` ticks (with that many ticks' time), down to
/// [`MIN_NAV_HZ`], so a tick's navigation work stays near this many agents' worth.
const CROWD_AT_60HZ: usize = 128;
/// The slowest rate paths and avoidance update at, per second.
const MIN_NAV_HZ: u64 = 10;

// A navigator spreads a crowd over its archipelagos: never more ticks than it has them.
const _: () = assert!((60 / MIN_NAV_HZ) as usize <= crate::nav::crowd::SHARDS);

/// The next number in `[0, 1)` of a query's xorshift sequence (the World's `rng`).
pub(super) fn unit_random(rng: &mut u64) -> f32 {
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    (*rng >> 40) as f32 / (1u64 << 24) as f32
}

/// Ticks between navigation updates for `agents` agents on one navmesh.
pub(crate) fn nav_interval(agents: usize) -> u64 {
    (agents.div_ceil(CROWD_AT_60HZ) as u64).clamp(1, 60 / MIN_NAV_HZ)
}

/// A creature's destination.
#[derive(Clone, Debug, PartialEq)]
pub struct NavGoal {
    /// Where it was asked to go.
    pub dest: Vec3,
    /// The speed it was asked to go at (`c:set_destination(v, { speed })`; at most its
    /// type's `nav.speed`, which it goes at when `None`).
    pub speed: Option<f32>,
    /// A climber's: the way out of the level's surface nearest the destination (found at
    /// its first tick), for the way onto that face from an edge above or below it.
    pub face: Option<Vec3>,
    /// A climber of walls': its route over the surface graph (the points still ahead, each
    /// with its face's way out) and the level it was planned on, once it needs one (`None`
    /// until then, and after losing it); `Some(empty)` when the graph joins no way there.
    pub(crate) route: Option<(u64, Vec<super::surfaces::Node>)>,
    /// A climber of walls': the nearest it has come to its destination (m); `stuck` counts
    /// the seconds since it last came 0.3 m nearer. Stuck for [`ROUTE_AFTER`] (or headed
    /// for a ceiling), it is routed over the surface graph.
    pub closest: f32,
    /// Where it is going: `dest` on the navmesh (or the closest reachable point).
    pub target: Option<Vec3>,
    /// Reached (within `nav.stopping_distance`).
    pub arrived: bool,
    /// Not yet an agent (new, or the navmesh changed).
    pub pending: bool,
    /// Seconds it has been slower than `STUCK_SPEED` short of its target (a sidestep when
    /// the target is still far).
    pub stuck: f32,
    /// Seconds it has made almost no headway toward its target (standing, or going round
    /// others) while near it: see `CROWDED_AFTER`.
    pub held: f32,
    /// It arrived, then was asked to make way for one stuck behind it (see `make_way`): it
    /// is stepping aside, and arrives again there without an `Arrive` event.
    pub making_way: bool,
    /// The link on its path it is crossing, or holding at (see `sim::links`).
    pub link: Option<LinkUse>,
}

impl NavGoal {
    /// A new destination, not yet placed on the navmesh.
    pub fn to(dest: Vec3, speed: Option<f32>) -> NavGoal {
        NavGoal {
            dest,
            speed,
            face: None,
            route: None,
            closest: f32::INFINITY,
            target: None,
            arrived: false,
            pending: true,
            stuck: 0.0,
            held: 0.0,
            making_way: false,
            link: None,
        }
    }
}

/// The speed a goal is walked at: the one asked for, at most the type's `nav.speed`.
pub(crate) fn cruise(goal: &NavGoal, nv: &NavDef) -> f32 {
    goal.speed.map_or(nv.speed, |s| s.clamp(0.0, nv.speed))
}

/// The settings a creature type's `nav` table bakes for (with its jump limits when it
/// gives `nav.jump`: the bake then finds jump, drop and hop links for it).
pub fn settings_of(def: &ValidCreatureDef) -> NavSettings {
    let nav = &def.nav;
    NavSettings {
        radius: nav.radius,
        height: nav.height,
        max_slope: nav.max_slope,
        step_height: nav.step_height,
        jump: nav.jump.map(|_| jump_settings(def)),
    }
}

impl World {
    /// Drops every agent; creatures with a destination become agents again next tick.
    pub(super) fn replace_agents(&mut self) {
        self.nav.clear_agents();
        for c in self.creatures.iter_mut() {
            if let Some(g) = c.nav.as_mut() {
                // Arrived ones too: they stand as agents again (see `place_agents`).
                g.pending = true;
            }
        }
    }

    pub(super) fn drop_agent(&mut self, id: CreatureId) {
        for n in self.nav.ready() {
            n.remove_agent(id.0);
        }
    }

    /// Bake navmeshes on worker threads (the tick never waits; creatures with a destination
    /// stand until theirs is ready). Off by default: a bake then blocks the tick that needs
    /// it, which keeps runs deterministic.
    pub fn set_background_bakes(&mut self, on: bool) {
        self.nav.background = on;
    }

    /// The navmeshes baked so far (for drawing and reports), with each bake's duration.
    pub fn nav_meshes(&self) -> Vec<(Arc<crate::nav::NavMesh>, Option<std::time::Duration>)> {
        self.nav.meshes()
    }

    /// The links on every navmesh baked so far (for drawing), with whether each is still
    /// taken (a link found blocked is off its navmesh until the level changes).
    pub fn nav_links(&self) -> Vec<(crate::nav::NavLink, bool)> {
        self.nav.links()
    }

    /// Where a creature's agent stands: its body's ground point.
    pub(super) fn agent_point(c: &Creature) -> Vec3 {
        let ride = if c.def.legs.is_empty() {
            c.def.body.hover.unwrap_or(c.def.body.height)
        } else {
            c.def.body.height
        };
        c.loco.position - Vec3::Y * ride
    }

    /// Crowds update paths and avoidance at a lower rate (see `nav_interval`) unless this is
    /// on: every agent every tick, whatever the crowd (to compare, or for small scenes that
    /// want it).
    pub fn set_nav_full_rate(&mut self, on: bool) {
        self.nav_full_rate = on;
    }

    /// The navigation half of [`World::step`] alone (benches measure it): agents follow
    /// their paths (with avoidance) and set each creature's movement intent.
    pub fn nav_tick(&mut self, dt: f32) {
        self.step_nav(dt);
        self.nav.run_deferred();
    }

    /// Navigation: agents follow their paths (with avoidance); each creature's movement
    /// intent comes from its agent's desired velocity, within its `nav` limits.
    pub(super) fn step_nav(&mut self, dt: f32) {
        if !self.creatures.iter().any(|c| c.nav.is_some()) {
            return;
        }
        self.refresh_level();
        self.finish_crossings();
        let version = self.level_version;
        if self.nav_version != version {
            self.nav_version = version;
            for c in self.creatures.iter_mut() {
                if let Some(g) = c.nav.as_mut() {
                    g.pending = true;
                }
            }
        }
        // Climbers of walls are never navmesh agents: they go over what is in their way.
        self.step_climbers(version, dt);
        let World {
            nav,
            creatures,
            level,
            events,
            nav_ticks,
            nav_full_rate,
            link_kinds,
            ..
        } = self;
        let input = || level.nav_input();
        place_agents(nav, creatures, events, version, &input, link_kinds);
        let tick = *nav_ticks;
        *nav_ticks += 1;
        let full = *nav_full_rate;
        // A crowd's share of path following and avoidance (navigators updated every few
        // ticks) is deferred: it runs beside the tick's locomotion (see `move_and_step_worlds`)
        // or beside the caller's work before the next tick (`take_crowd_updates`), on the
        // bodies fed above, and its agents steer by it from their next tick on. Navigators
        // updated every tick (up to `CROWD_AT_60HZ` agents) update here, before their agents
        // steer, as they always did.
        for n in nav.ready() {
            let every = if full {
                1
            } else {
                nav_interval(n.agent_count())
            };
            if every > 1 {
                n.plan(dt, tick, every);
            } else if n.agent_count() > 0 {
                n.step(dt, tick, every);
            }
        }
        let mut stuck: Vec<Pusher> = Vec::new();
        let mut reached: Vec<(usize, ReachedLink)> = Vec::new();
        for (i, c) in creatures.iter_mut().enumerate() {
            if !c.due
                || over_surfaces(c)
                || on_link(c)
                || c.nav.as_ref().is_none_or(|g| g.arrived || g.pending)
            {
                continue;
            }
            if let Status::Ready(n) = nav.get(settings_of(&c.def), version, &input) {
                let dt = c.step_dt(dt);
                match steer(n, c, events, dt) {
                    Steered::Stuck(p) => stuck.push(p),
                    Steered::AtLink(r) => reached.push((i, r)),
                    Steered::On => {}
                }
            }
        }
        if !stuck.is_empty() {
            make_way(nav, creatures, &mut stuck, version, &input, link_kinds);
        }
        self.begin_crossings(reached);
        // Done with the crowds this tick: their planned updates may run from here on.
        self.nav.defer_planned();
    }

    /// The navmesh for a query (`world.random_nav_point`, `world.nearest_nav_point`): that
    /// of the calling creature's type when one asks (from its callback), else that of the
    /// first registered legged type, else the default `nav` settings.
    fn query_navigator(
        &mut self,
        caller: Option<CreatureId>,
    ) -> Option<&mut crate::nav::Navigator> {
        self.refresh_level();
        let own = caller
            .and_then(|id| self.creature(id))
            .filter(|c| !c.def.legs.is_empty())
            .map(|c| c.def.clone());
        let nav_def = own.or_else(|| {
            self.types
                .iter()
                .find(|t| !t.def.legs.is_empty())
                .map(|t| t.def.clone())
        });
        let level = &self.level;
        let input = || level.nav_input();
        // Queries answer now: they bake, or wait for a bake under way.
        let settings = match &nav_def {
            Some(d) => settings_of(d),
            None => {
                let nav = crate::locomotion::def::NavDef::default();
                NavSettings {
                    radius: nav.radius,
                    height: nav.height,
                    max_slope: nav.max_slope,
                    step_height: nav.step_height,
                    jump: None,
                }
            }
        };
        match self.nav.get_now(settings, self.level_version, &input) {
            Status::Ready(n) => Some(n),
            _ => None,
        }
    }

    /// The nearest point to `p` on the navmesh of `caller`'s type (see `query_navigator`),
    /// if any within 10 m.
    pub fn nearest_nav_point(&mut self, p: Vec3, caller: Option<CreatureId>) -> Option<Vec3> {
        self.query_navigator(caller)?.nearest(p, 10.0)
    }

    /// A random point on the navmesh of `caller`'s type (deterministic from the seed),
    /// within `radius` of `near` when given.
    pub fn random_nav_point(
        &mut self,
        near: Option<(Vec3, f32)>,
        caller: Option<CreatureId>,
    ) -> Option<Vec3> {
        let mut rng = self.rng;
        let n = self.query_navigator(caller)?;
        let mut unit = || unit_random(&mut rng);
        let mut found = None;
        // Near a point: a uniform point of the disc, put on the mesh (a mesh many times the
        // disc would make drawing over its whole area miss nearly every time).
        if let Some((c, r)) = near {
            for _ in 0..8 {
                let (a, d) = (unit() * std::f32::consts::TAU, r * unit().sqrt());
                let p = c + Vec3::new(a.cos() * d, 0.0, a.sin() * d);
                if let Some(q) = n.nearest(p, r).filter(|q| horizontal(*q - c).length() <= r) {
                    found = Some(q);
                    break;
                }
            }
        }
        for _ in 0..if found.is_some() { 0 } else { 64 } {
            let Some(p) = n.point_at([unit(), unit(), unit()]) else {
                break;
            };
            if near.is_none_or(|(c, r)| horizontal(p - c).length() <= r) {
                found = Some(p);
                break;
            }
        }
        // Within a small radius: the mesh point nearest the centre.
        let found = found.or_else(|| near.and_then(|(c, r)| n.nearest(c, r.max(0.5))));
        self.rng = rng;
        found
    }

    /// The corners of the path a creature is walking (from where it is), if it has one
    /// (empty once arrived; `None` while its navmesh is not baked yet).
    pub fn nav_path(&self, id: CreatureId) -> Option<Vec<Vec3>> {
        let c = self.creature(id)?;
        let goal = c.nav.as_ref()?;
        if goal.arrived {
            return Some(Vec::new());
        }
        let kinds = permitted(&c.def, &self.link_kinds);
        self.nav
            .peek(settings_of(&c.def), self.level_version)?
            .find_path(
                Self::agent_point(c),
                goal.target.unwrap_or(goal.dest),
                kinds.as_ref(),
            )
    }

    /// Starts baking the navmesh of every registered type's settings (on worker threads
    /// when bakes run in the background; otherwise they wait until first needed).
    pub fn prebake(&mut self) {
        if !self.nav.background {
            return;
        }
        self.refresh_level();
        let version = self.level_version;
        let settings: Vec<_> = self
            .types
            .iter()
            .filter(|t| !t.def.legs.is_empty())
            .map(|t| settings_of(&t.def))
            .collect();
        let level = &self.level;
        let input = || level.nav_input();
        for s in settings {
            let _ = self.nav.get(s, version, &input);
        }
    }
}

/// Makes creature `c` (at `here`, going `v`) an agent of `n` headed for `target`, with its
/// type's radius, speed, stopping distance and link kinds (avoidance adds a margin: see
/// `nav::avoid`). `kinds`: the World's kind names by number.
fn add_agent_for(
    n: &mut Navigator,
    c: &Creature,
    here: Vec3,
    v: Vec3,
    target: Vec3,
    kinds: &[String],
) {
    let nv = &c.def.nav;
    n.add_agent(
        c.id.0,
        here,
        v,
        nv.radius,
        c.nav.as_ref().map_or(nv.speed, |g| cruise(g, nv)),
        nv.stopping_distance,
        target,
        permitted(&c.def, kinds).as_ref(),
    );
}

/// Makes every creature with a new destination an agent (its target moved onto the mesh,
/// or to the closest reachable point, with a warning saying so), and tells every agent
/// where its body is. Creatures whose navmesh failed lose their destination.
fn place_agents(
    nav: &mut NavWorld,
    creatures: &mut [Creature],
    events: &mut Vec<WorldEvent>,
    version: u64,
    input: &dyn Fn() -> NavInput,
    kinds: &[String],
) {
    let mut failed: Vec<(usize, String)> = Vec::new();
    for (i, c) in creatures.iter_mut().enumerate() {
        let Some(goal) = c.nav.as_ref().filter(|_| !over_surfaces(c)) else {
            continue;
        };
        if !c.due && !goal.pending {
            // Far, between its turns (`sim::detail`): its body has not moved.
            continue;
        }
        let here = World::agent_point(c);
        if goal.arrived {
            // Arrived: it stands as an agent others walk round (see `steer`); after a
            // restore or a level change it is made one again where it stands.
            if let Status::Ready(n) = nav.get(settings_of(&c.def), version, input) {
                let v = horizontal(c.loco.velocity);
                if let Some(g) = c.nav.as_mut().filter(|g| g.pending) {
                    g.pending = false;
                    add_agent_for(n, c, here, v, here, kinds);
                    n.stand(c.id.0);
                }
                n.set_body(c.id.0, here, v);
            }
            continue;
        }
        let n = match nav.get(settings_of(&c.def), version, input) {
            Status::Ready(n) => n,
            Status::Baking => {
                // Stand while the navmesh bakes.
                c.loco.intent = Intent::Idle;
                continue;
            }
            Status::Failed(e) => {
                failed.push((i, e));
                continue;
            }
        };
        let v = horizontal(c.loco.velocity);
        let Some(goal) = c.nav.as_mut() else { continue };
        if goal.pending {
            goal.pending = false;
            let (dest, crossing) = (goal.dest, goal.link.is_some());
            let Some(target) = agent_target(n, c, dest, here, events, kinds) else {
                n.remove_agent(c.id.0);
                failed.push((i, "the navmesh is empty".into()));
                continue;
            };
            if let Some(g) = c.nav.as_mut() {
                g.target = Some(target);
            }
            add_agent_for(n, c, here, v, target, kinds);
            if crossing {
                // Crossing a link when the agents were replaced (a restore, a level change):
                // others avoid it where it is until it lands.
                n.start_link(c.id.0);
            }
        }
        n.set_body(c.id.0, here, v);
        n.set_far(c.id.0, c.far);
    }
    for (i, why) in failed {
        let c = &mut creatures[i];
        c.nav = None;
        c.loco.intent = Intent::Idle;
        events.push(WorldEvent::NavWarning {
            id: c.id,
            message: format!("no navigation: {why}"),
        });
    }
}

/// Where an agent at `here` asked to go to `dest` really goes: the nearest point on the
/// mesh, or the closest point reachable from `here`, with a warning for each move. `None`
/// when the mesh is empty.
fn agent_target(
    n: &Navigator,
    c: &Creature,
    dest: Vec3,
    here: Vec3,
    events: &mut Vec<WorldEvent>,
    kinds: &[String],
) -> Option<Vec3> {
    let id = c.id;
    let on_mesh = n.nearest(dest, 1.0e4)?;
    let mut target = on_mesh;
    let off = horizontal(on_mesh - dest).length();
    if off > 0.25 || (on_mesh.y - dest.y).abs() > 1.5 {
        events.push(WorldEvent::NavWarning {
            id,
            message: format!(
                "destination ({:.2}, {:.2}, {:.2}) is off the navmesh: going to the nearest point on it ({:.2}, {:.2}, {:.2})",
                dest.x, dest.y, dest.z, on_mesh.x, on_mesh.y, on_mesh.z
            ),
        });
    }
    if n.find_path(here, target, permitted(&c.def, kinds).as_ref())
        .is_none()
    {
        if let Some(q) = n.closest_reachable(here, target) {
            events.push(WorldEvent::NavWarning {
                id,
                message: format!(
                    "destination ({:.2}, {:.2}, {:.2}) cannot be reached from here: going to the closest reachable point ({:.2}, {:.2}, {:.2})",
                    target.x, target.y, target.z, q.x, q.y, q.z
                ),
            });
            target = q;
        }
    }
    Some(target)
}

/// What steering an agent's creature came to.
enum Steered {
    /// On its way.
    On,
    /// Stuck far from its target for [`MAKE_WAY_AFTER`].
    Stuck(Pusher),
    /// At the start of a link on its path: it stands until the crossing begins.
    AtLink(ReachedLink),
}

/// One agent's creature after the avoidance update: arrives, or takes the agent's desired
/// velocity (braking to stop at its stopping distance) as its movement intent.
fn steer(n: &mut Navigator, c: &mut Creature, events: &mut Vec<WorldEvent>, dt: f32) -> Steered {
    let here = World::agent_point(c);
    let Some(goal) = c.nav.as_mut() else {
        return Steered::On;
    };
    let Some(a) = n.agent(c.id.0) else {
        return Steered::On;
    };
    if let Some(r) = a.link.filter(|_| a.state == NavAgentState::AtLink) {
        c.loco.intent = Intent::Idle;
        return Steered::AtLink(r);
    }
    let target = goal.target.unwrap_or(goal.dest);
    let nv = &c.def.nav;
    let id = c.id;
    let desired = match a.state {
        NavAgentState::Arrived => {
            arrive(id, goal, n, &mut c.loco.intent, events);
            return Steered::On;
        }
        NavAgentState::Moving | NavAgentState::Idle | NavAgentState::AtLink => a.desired,
        NavAgentState::OnLink => Vec3::ZERO,
        // Pushed off the mesh: head back onto it.
        NavAgentState::OffMesh => match n.nearest(here, 5.0) {
            Some(q) => (q - here).normalize_or_zero() * cruise(goal, nv) * 0.5,
            None => Vec3::ZERO,
        },
        NavAgentState::NoPath => {
            goal.pending = true;
            n.remove_agent(c.id.0);
            Vec3::ZERO
        }
    };
    let left = track_progress(goal, &c.loco, nv, target - here, dt);
    if goal.held > CROWDED_AFTER {
        arrive(id, goal, n, &mut c.loco.intent, events);
        return Steered::On;
    }
    let desired = brake_and_sidestep(horizontal(desired), goal, nv, target - here, left);
    let speed = desired.length();
    c.loco.intent = if speed > 1e-3 {
        Intent::Move {
            dir: desired / speed,
            speed,
            drop: false,
        }
    } else {
        Intent::Idle
    };
    let way = horizontal(a.preferred).normalize_or_zero();
    if goal.stuck > MAKE_WAY_AFTER && left > CROWDED_REACH * nv.radius && way != Vec3::ZERO {
        return Steered::Stuck(Pusher {
            at: here,
            way,
            radius: nv.radius,
            mesh: settings_of(&c.def),
        });
    }
    Steered::On
}

/// An agent's creature at its destination: it stays an agent, standing, until it is given
/// other orders (others walk round it instead of through it), and its brain hears of it
/// unless it was only stepping aside for another (it had arrived already).
fn arrive(
    id: CreatureId,
    goal: &mut NavGoal,
    n: &mut Navigator,
    intent: &mut Intent,
    events: &mut Vec<WorldEvent>,
) {
    goal.arrived = true;
    n.stand(id.0);
    *intent = Intent::Idle;
    if !std::mem::take(&mut goal.making_way) {
        events.push(WorldEvent::Arrive { id });
    }
}

/// The goal's clocks of no headway: `stuck` (slower than [`STUCK_SPEED`] of its cruise,
/// short of its stopping distance) and `held` (within [`CROWDED_REACH`] radii of its target
/// and not closing on it). `to_target`: from the agent's point to its target. Returns how
/// far it has left to its stopping distance.
fn track_progress(
    goal: &mut NavGoal,
    loco: &Locomotor,
    nv: &NavDef,
    to_target: Vec3,
    dt: f32,
) -> f32 {
    let left = horizontal(to_target).length() - nv.stopping_distance;
    let speed = cruise(goal, nv);
    if left > 0.0 && loco.speed() < STUCK_SPEED * speed {
        goal.stuck += dt;
    } else {
        goal.stuck = 0.0;
    }
    let toward = horizontal(to_target).normalize_or_zero();
    if left > 0.0
        && left <= CROWDED_REACH * nv.radius
        && horizontal(loco.velocity).dot(toward) < STUCK_SPEED * speed
    {
        goal.held += dt;
    } else {
        goal.held = 0.0;
    }
    left
}

/// The agent's desired (level) velocity as its creature is told it: no faster than it may
/// go and still stop at its stopping distance at `nav.acceleration` (with `auto_brake`),
/// and, stuck a while far from its target, turned to its right. Two agents meeting
/// head-on can hold each other still for ever (avoidance is symmetric): both sidestep to
/// their right, as people keep right, so they pass. Near its target a slow agent is
/// braking (or waiting for the spot): no sidestep.
fn brake_and_sidestep(
    desired: Vec3,
    goal: &NavGoal,
    nv: &NavDef,
    to_target: Vec3,
    left: f32,
) -> Vec3 {
    let mut top = cruise(goal, nv);
    if nv.auto_brake {
        let rest = (horizontal(to_target).length() - nv.stopping_distance).max(0.0);
        top = top.min((2.0 * nv.acceleration * rest).sqrt() + 0.05);
    }
    let mut desired = desired.clamp_length_max(top);
    if goal.stuck > STUCK_AFTER && left > 1.0 && desired.length_squared() > 1e-6 {
        let right = Vec3::new(-desired.z, 0.0, desired.x);
        desired = desired * SIDESTEP.cos() + right * SIDESTEP.sin();
    }
    desired
}

/// A mover stuck far from its target (see [`MAKE_WAY_AFTER`]): where it stands, the way its
/// path goes, its radius, and the navmesh it walks (only agents of that one are in its way:
/// avoidance sees no other).
struct Pusher {
    at: Vec3,
    way: Vec3,
    radius: f32,
    mesh: NavSettings,
}

/// Agents that have arrived stand still, and others walk round them; but a few standing
/// at the mouth of a corridor, or shoulder to shoulder, can leave no way round, and one
/// whose path leads through them would push at them for ever. So an arrived agent standing
/// in the way of a stuck mover (ahead of it, within the two radii of its line and a body
/// length) steps aside: to the side of the mover's line it already stands on, to
/// [`MAKE_WAY_ASIDE`] beyond touching it, and stands there (its brain is not told: it had
/// arrived). People in a doorway do the same.
fn make_way(
    nav: &mut NavWorld,
    creatures: &mut [Creature],
    stuck: &mut [Pusher],
    version: u64,
    input: &dyn Fn() -> NavInput,
    kinds: &[String],
) {
    // By x (ties in id order), so each standing agent looks only at those within reach.
    stuck.sort_by(|a, b| a.at.x.total_cmp(&b.at.x));
    let widest = stuck.iter().map(|p| p.radius).fold(0.0, f32::max);
    for c in creatures.iter_mut() {
        if !c.due || c.nav.as_ref().is_none_or(|g| !g.arrived || g.pending) {
            continue;
        }
        let here = World::agent_point(c);
        let (r, mesh) = (c.def.nav.radius, settings_of(&c.def));
        let reach = 2.0 * (widest + r) + 0.5;
        let from = stuck.partition_point(|p| p.at.x < here.x - reach);
        let mut near = stuck[from..]
            .iter()
            .take_while(|p| p.at.x <= here.x + reach);
        // The first in its way, and where it stands from that mover.
        let Some((p, d)) = near.find_map(|p| {
            let d = horizontal(here - p.at);
            let ahead = d.dot(p.way);
            let across = (d - p.way * ahead).length();
            let in_way = ahead > 0.0 && ahead < 2.0 * (p.radius + r) + 0.5 && across < p.radius + r;
            // As avoidance sees it: one on another floor is not in the way.
            let same_floor = (here.y - p.at.y).abs() <= crate::nav::avoid::FLOOR_GAP;
            (in_way && same_floor && p.mesh == mesh).then_some((p, d))
        }) else {
            continue;
        };
        let mut side = d - p.way * d.dot(p.way);
        if side.length_squared() < 1e-6 {
            // Dead ahead: step to the mover's right, as it would sidestep.
            side = Vec3::new(-p.way.z, 0.0, p.way.x);
        }
        let side = side.normalize();
        let across = d.dot(side);
        let aside = here + side * (p.radius + r + MAKE_WAY_ASIDE - across).max(0.0);
        let Status::Ready(n) = nav.get(settings_of(&c.def), version, input) else {
            continue;
        };
        let Some(spot) = n.nearest(aside, 1.0) else {
            continue;
        };
        let v = horizontal(c.loco.velocity);
        add_agent_for(n, c, here, v, spot, kinds);
        if let Some(g) = c.nav.as_mut() {
            g.arrived = false;
            g.making_way = true;
            g.target = Some(spot);
            g.stuck = 0.0;
            g.held = 0.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::nav_interval;

    #[test]
    fn crowds_update_less_often_but_never_below_ten_hertz() {
        assert_eq!(nav_interval(0), 1);
        assert_eq!(nav_interval(1), 1);
        assert_eq!(nav_interval(128), 1);
        assert_eq!(nav_interval(129), 2);
        assert_eq!(nav_interval(300), 3);
        assert_eq!(nav_interval(1000), 6);
        assert_eq!(nav_interval(100_000), 6);
    }
}
