//! The World: all simulation state as plain data, one `step(dt)` at a fixed 60 Hz.
//! Order inside a tick: commands → navigation → locomotion → events.
//!
//! The World's other concerns live beside it: `navigation` (agents, destinations, nav
//! queries), `checkpoint` (checkpoints, restore, retyping after a reload), `level_edits`
//! (level pieces by owner) and `ground` (the rapier level and its queries).

use std::sync::Arc;

use glam::Vec3;

use rapier3d::prelude::PhysicsWorld;

use super::level::Level;
use super::level_edits::LevelPiece;
use super::nav_world::NavWorld;
use super::navigation::NavGoal;
use super::ragdoll::{RagdollCause, RagdollRequest, Rigs, DEFAULT_MAX_RAGDOLLS};
use super::record::{Entry, Input};
use crate::locomotion::locomotor::Scratch;
use crate::locomotion::{GaitParams, Intent, LeanDef, Locomotor};

/// The fixed simulation step: 60 Hz.
pub const TICK_DT: f32 = 1.0 / 60.0;

/// A creature's identity. Ids are never reused within a World, so a stale id can never
/// name another creature (the generational guarantee, without the generation field).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct CreatureId(pub u32);

/// Index of a registered creature type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TypeId(pub u32);

pub use super::types::{CreatureType, TypeSounds};

pub use super::creature::Creature;

/// A climber on a surface steeper than this (the cosine of its up's angle from the world's)
/// holds on by its feet: a blow can knock it off (45°).
const CLIMB_HOLD_COS: f32 = std::f32::consts::FRAC_1_SQRT_2;

/// A write from outside the sim (scripts, input), applied at the start of the next tick.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Command {
    /// Set a creature's movement intent.
    SetIntent(CreatureId, Intent),
    /// What a creature's body faces while it moves (`None`: where it goes).
    SetFacing(CreatureId, Option<super::Facing>),
    /// What a creature's head looks at (`c:look_at`; `None`: where it goes).
    LookAt(CreatureId, Option<super::ReachTo>),
    /// Ease a creature's posture to this over so many seconds (`c:pose`).
    SetPose(CreatureId, crate::locomotion::BodyPose, f32),
    /// Reach arm `usize` toward a target (`None`: back to rest) by a weight at a speed
    /// (`c:reach`).
    Reach(CreatureId, usize, Option<super::ReachTo>, f32, f32),
    /// Replace a creature's gait parameters (already validated).
    SetGait(CreatureId, Box<GaitParams>),
    /// Replace a creature's lean settings (already validated).
    SetLean(CreatureId, Box<LeanDef>),
    /// A blow: pushes along `dir` (world space) with `strength` (lean and push).
    Hit(CreatureId, Vec3, f32),
    /// Walk to a point along the navmesh (replaces the movement intent).
    SetDestination(CreatureId, Vec3, Option<f32>),
    /// Forget the destination and stop.
    ClearDestination(CreatureId),
    /// Follow a path (replaces the movement intent until `SetIntent`).
    FollowPath(CreatureId, Box<crate::path::PathFollower>),
    /// Remove a creature.
    Despawn(CreatureId),
    /// Throw a creature into physics (`c:ragdoll{}`).
    Ragdoll(CreatureId, RagdollRequest),
    /// Start getting up now (`c:recover()`).
    Recover(CreatureId),
    /// A climber lets go of its surface and falls (`c:let_go()`).
    LetGo(CreatureId),
    /// Set a ragdoll's muscle strength, 0..1 (`c.muscle = s`).
    SetMuscle(CreatureId, f32),
    /// Jump to a ground point (`c:jump(to)`, checked when asked).
    Jump(CreatureId, Vec3),
    /// Its brain takes the crossing of the link it reached (`on_link` returned a value).
    HoldLink(CreatureId),
    /// The built-in crossing of the link it holds at (`c:cross_link()`).
    CrossLink(CreatureId),
    /// Put a creature in a team (`None`: none), for `world.creatures_near`.
    SetTeam(CreatureId, Option<u32>),
    /// Recolour a creature (rgb, each 0..4; `None`: as made).
    SetTint(CreatureId, Option<Vec3>),
    /// Scale a ragdoll's muscle stiffness and damping (multipliers on its type's, each
    /// 0.01..100; the window's inspector).
    SetMuscleGains(CreatureId, [f32; 2]),
    /// One creature's spring chain settings or spine shares (the inspector's sliders).
    Tune(CreatureId, Box<super::springs::Tune>),
}

/// Something that happened during a tick.
#[derive(Clone, Debug, PartialEq)]
pub enum WorldEvent {
    /// A foot landed.
    Step {
        /// Whose foot.
        id: CreatureId,
        /// Leg index in the definition.
        leg: usize,
        /// Where it landed.
        position: Vec3,
        /// How fast it came down, m/s.
        speed: f32,
    },
    /// A foot left the ground (a step starting, a jump, a fall).
    Lift {
        /// Whose foot.
        id: CreatureId,
        /// Leg index in the definition.
        leg: usize,
        /// Where it left from.
        position: Vec3,
    },
    /// A creature reached its destination.
    Arrive {
        /// Who.
        id: CreatureId,
    },
    /// Something about a creature's destination it should know (off the navmesh,
    /// unreachable, no navmesh).
    NavWarning {
        /// Who.
        id: CreatureId,
        /// What.
        message: String,
    },
    /// A creature was removed.
    Despawn {
        /// Who.
        id: CreatureId,
    },
    /// A creature went into physics.
    Ragdoll {
        /// Who.
        id: CreatureId,
        /// Why.
        cause: RagdollCause,
    },
    /// An agent reached a link on its path and starts crossing it (its brain's `on_link`
    /// may take the crossing over).
    Link {
        /// Who.
        id: CreatureId,
        /// The link's kind.
        kind: String,
        /// Where it takes it from.
        from: Vec3,
        /// Where it leads.
        to: Vec3,
    },
    /// A climber's body came onto a surface of another kind (floor, wall, ceiling).
    Surface {
        /// Who.
        id: CreatureId,
        /// The body's up there.
        normal: Vec3,
        /// The kind of surface.
        surface: crate::locomotion::Surface,
    },
    /// A part of a ragdoll landed hard: the hardest of a tick (a part falling faster than
    /// [`IMPACT_SPEED`](crate::sim::ragdoll::IMPACT_SPEED) stopped by what it hit).
    Impact {
        /// Whose.
        id: CreatureId,
        /// Where the part was.
        position: Vec3,
        /// How fast it was coming down, m/s.
        speed: f32,
    },
    /// A creature came down on its feet after a jump or a fall (its feet's own `Step`s
    /// come with it).
    Land {
        /// Who.
        id: CreatureId,
        /// Where its body was.
        position: Vec3,
        /// How fast it was coming down the tick before, m/s.
        speed: f32,
    },
    /// A ragdoll got up and walks again.
    Recover {
        /// Who.
        id: CreatureId,
    },
    /// A ragdoll gave up getting up after this many tries (it stays limp until
    /// `c:recover()`).
    RecoverFailed {
        /// Who.
        id: CreatureId,
        /// Tries made.
        tries: u32,
    },
    /// A request the world refused (an error for the mod that made it).
    Refused {
        /// About whom.
        id: CreatureId,
        /// What and why.
        message: String,
    },
    /// A creature was hit.
    Hit {
        /// Who.
        id: CreatureId,
        /// Push direction (unit, world space).
        dir: Vec3,
        /// Strength.
        strength: f32,
    },
}

/// Wall-clock time of a step's phases (profiling only; never read by the simulation).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepTimes {
    /// Commands, level refresh and navigation (agents, avoidance, steering).
    pub navigation: std::time::Duration,
    /// Locomotion of every animated creature (steering, feet, posture, lean, IK).
    pub locomotion: std::time::Duration,
    /// Ragdolls: phases, rigs synced and driven (muscles, balance, anchors), the rapier
    /// step, parts read back, recoveries judged.
    pub physics: std::time::Duration,
    /// Of `physics`: the groups' worlds — each its rigs driven, its rapier step (contacts,
    /// solver, integration) and its parts read back, apart, on the pool's threads.
    pub rapier: std::time::Duration,
    /// Of `locomotion`: the crowd navigation update that runs beside it (on the pool's other
    /// thread when there is one; its own time, not added to the phase's wall clock). Zero
    /// when the crowds' updates are left to the caller ([`World::set_crowds_to_caller`]).
    pub beside: std::time::Duration,
    /// How long `locomotion` and `physics` ran side by side (on a pool the walkers move
    /// while the ragdolls' worlds step): the step's wall clock is `navigation + locomotion
    /// + physics - overlap`.
    pub overlap: std::time::Duration,
}

/// All simulation state.
pub struct World {
    pub(super) frame: u64,
    pub(super) time: f64,
    pub(super) seed: u64,
    pub(super) physics: PhysicsWorld,
    pub(super) level: Level,
    /// What built `level`, piece by piece, with the mod that added each.
    pub(super) pieces: Vec<(String, LevelPiece)>,
    pub(super) level_dirty: bool,
    /// The ground's collider in `physics` (ground casts answer it directly).
    pub(super) ground_collider: Option<super::ground::GroundRef>,
    /// Which level this is: a number no other level had (see `level_changed`); a reload
    /// that gives the level back unchanged, or a restore, keeps its number
    /// (`keep_level_number`, `restore`).
    pub(super) level_version: u64,
    /// The last level number handed out (a level's number is never reused for another).
    pub(super) level_serial: u64,
    pub(super) types: Vec<CreatureType>,
    pub(super) creatures: Vec<Creature>,
    pub(super) next_id: u32,
    pub(super) commands: Vec<Command>,
    pub(super) events: Vec<WorldEvent>,
    pub(super) scratch: Scratch,
    /// Inputs received since recording started (taken by the recorder each tick).
    pub(super) recording: Option<Vec<Entry>>,
    /// Inputs received so far, recorded or not (see `inputs`).
    pub(super) inputs: u64,
    /// Navmeshes and agents.
    pub(super) nav: NavWorld,
    /// The level version the agents were placed on.
    pub(super) nav_version: u64,
    /// Random numbers for queries (`random_nav_point`), from the seed.
    pub(super) rng: u64,
    /// The rapier side of the ragdolls (derived from their plain data).
    pub(super) rigs: Rigs,
    /// Cap on simultaneous ragdolls.
    pub(super) max_ragdolls: usize,
    /// The last step's phase times.
    pub(super) step_times: StepTimes,
    /// Threads for the per-creature work (`None`: the calling thread).
    pub(super) pool: Option<Arc<rayon::ThreadPool>>,
    /// Navigation steps so far (crowds update paths and avoidance every few of them).
    pub(super) nav_ticks: u64,
    /// Every agent updates every tick, whatever the crowd.
    pub(super) nav_full_rate: bool,
    /// The crowds' updates `step_nav` defers are left for the caller to run beside its own
    /// work (see [`World::take_crowd_updates`]) instead of beside locomotion.
    pub(super) crowds_to_caller: bool,
    /// The surface graph climbers of walls are routed on, and the level it was baked for.
    pub(super) surfaces: Option<(u64, Arc<super::surfaces::SurfaceGraph>)>,
    /// The surface graph being baked on a worker (background bakes), for that level version.
    pub(super) surface_bake: Option<(u64, std::thread::JoinHandle<super::surfaces::SurfaceGraph>)>,
    /// Bumped whenever creatures leave `creatures` (a despawn, a restore): see `removals`.
    pub(super) removals: u64,
    /// Level of detail (`None`: every creature at full detail).
    pub(super) detail: Option<super::detail::Detail>,
    /// Every creature is `due` (as it is without a level of detail): nothing to mark.
    pub(super) all_due: bool,
    /// Named paths (`path.load`), by `"mod/name"`.
    pub(super) paths: std::collections::BTreeMap<String, Arc<crate::math::bezier::BezierPath>>,
    /// Link kind names by number (see `sim::links`).
    pub(super) link_kinds: Vec<String>,
    /// Creatures by place, for `creatures_near` (built on the first query of a tick).
    pub(super) near: super::near::NearGrid,
}

impl World {
    /// An empty world (no ground, no creatures). `seed` feeds everything random.
    pub fn new(seed: u64) -> World {
        World {
            frame: 0,
            time: 0.0,
            seed,
            physics: super::ground::physics_world(),
            level: Level::default(),
            pieces: Vec::new(),
            level_dirty: false,
            ground_collider: None,
            level_version: 0,
            level_serial: 0,
            types: Vec::new(),
            creatures: Vec::new(),
            next_id: 1,
            commands: Vec::new(),
            events: Vec::new(),
            scratch: Scratch::default(),
            recording: None,
            inputs: 0,
            nav: NavWorld::default(),
            nav_version: 0,
            rng: seed ^ 0x9e37_79b9_7f4a_7c15 | 1,
            rigs: Rigs::default(),
            max_ragdolls: DEFAULT_MAX_RAGDOLLS,
            step_times: StepTimes::default(),
            pool: None,
            paths: std::collections::BTreeMap::new(),
            nav_ticks: 0,
            nav_full_rate: false,
            crowds_to_caller: false,
            surfaces: None,
            surface_bake: None,
            removals: 0,
            detail: None,
            all_due: true,
            link_kinds: super::links::generated_kinds(),
            near: Default::default(),
        }
    }

    /// The run's seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Ticks stepped so far.
    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// Simulation seconds.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// The static level as described.
    pub fn level(&self) -> &Level {
        &self.level
    }

    /// Bumped on every level change: views rebuild their static meshes when it moves.
    pub fn level_version(&self) -> u64 {
        self.level_version
    }

    /// From now on, log every input the world receives (see [`super::record`]).
    pub fn start_recording(&mut self) {
        self.recording.get_or_insert_with(Vec::new);
    }

    /// The inputs logged since the last call (empty when not recording).
    pub fn take_recorded(&mut self) -> Vec<Entry> {
        self.recording
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// How many inputs (commands, spawns, level edits: what a record holds) the world has
    /// received so far, recorded or not: a caller that must leave the world untouched when
    /// it fails (the console) compares it before and after.
    pub fn inputs(&self) -> u64 {
        self.inputs
    }

    /// Inputs logged and not yet taken (see [`World::take_recorded`]).
    pub fn recorded_len(&self) -> usize {
        self.recording.as_ref().map_or(0, Vec::len)
    }

    /// Forgets the inputs logged after the first `n` not yet taken (what an undone console
    /// line sent: a replay must not see it).
    pub fn truncate_recorded(&mut self, n: usize) {
        if let Some(r) = self.recording.as_mut() {
            r.truncate(n);
        }
    }

    pub(super) fn log(&mut self, input: impl FnOnce() -> Input) {
        self.inputs += 1;
        if let Some(r) = self.recording.as_mut() {
            r.push(Entry {
                frame: self.frame,
                input: input(),
            });
        }
    }

    /// Spawns a creature of `type_id` at `position` (x, z; dropped onto the ground) facing
    /// `yaw` radians. Returns `None` for an unknown type.
    pub fn spawn(&mut self, type_id: TypeId, position: Vec3, yaw: f32) -> Option<CreatureId> {
        self.refresh_level();
        let def = self.types.get(type_id.0 as usize)?.def.clone();
        let ground = self.ground_query();
        let loco = Locomotor::spawn(&def, position, yaw, &ground);
        let id = CreatureId(self.next_id);
        self.next_id += 1;
        let type_name = &self.types[type_id.0 as usize].name;
        self.inputs += 1;
        if let Some(r) = self.recording.as_mut() {
            r.push(Entry {
                frame: self.frame,
                input: Input::Spawn {
                    type_name: type_name.clone(),
                    position,
                    yaw,
                    id,
                },
            });
        }
        self.creatures.push(Creature::fresh(id, type_id, def, loco));
        Some(id)
    }

    /// All creatures, in id order.
    pub fn creatures(&self) -> &[Creature] {
        &self.creatures
    }

    /// One creature.
    pub fn creature(&self, id: CreatureId) -> Option<&Creature> {
        self.index_of(id).map(|i| &self.creatures[i])
    }

    pub(super) fn creature_mut(&mut self, id: CreatureId) -> Option<&mut Creature> {
        self.index_of(id).map(move |i| &mut self.creatures[i])
    }

    /// Where creature `id` is in `creatures`. Ids are handed out in rising order, so it is
    /// never past `id - first id`, and there exactly until a creature before it goes: one
    /// look, then a binary search of the creatures up to there (a brain's every handle call
    /// asks; searching the whole array of large creatures read a cache line a probe).
    pub(super) fn index_of(&self, id: CreatureId) -> Option<usize> {
        let first = self.creatures.first()?.id.0;
        let at = (id.0.checked_sub(first)? as usize).min(self.creatures.len() - 1);
        if self.creatures[at].id == id {
            return Some(at);
        }
        self.creatures[..at]
            .binary_search_by_key(&id, |c| c.id)
            .ok()
    }

    /// Queues a command for the start of the next tick.
    pub fn push(&mut self, cmd: Command) {
        self.log(|| Input::Command { cmd: cmd.clone() });
        self.commands.push(cmd);
    }

    /// Recolours creature `id` (`None`: as made) now, not at the next tick (a spawn's tint
    /// shows on its first frame), and in a recording.
    pub fn set_tint(&mut self, id: CreatureId, tint: Option<Vec3>) {
        self.log(|| Input::Command {
            cmd: Command::SetTint(id, tint),
        });
        if let Some(c) = self.creature_mut(id) {
            c.tint = tint;
        }
    }

    /// The gait a creature will have at the next tick (pending overrides included).
    pub fn pending_gait(&self, id: CreatureId) -> Option<&GaitParams> {
        let queued = self.commands.iter().rev().find_map(|c| match c {
            Command::SetGait(cid, g) if *cid == id => Some(&**g),
            _ => None,
        });
        queued.or_else(|| self.creature(id).map(|c| &c.gait))
    }

    /// Whether a destination command for `id` waits for the next tick.
    pub fn pending_destination(&self, id: CreatureId) -> bool {
        self.commands
            .iter()
            .any(|c| matches!(c, Command::SetDestination(i, ..) if *i == id))
    }

    /// The lean settings a creature will have at the next tick (pending overrides included).
    pub fn pending_lean(&self, id: CreatureId) -> Option<&LeanDef> {
        let queued = self.commands.iter().rev().find_map(|c| match c {
            Command::SetLean(cid, l) if *cid == id => Some(&**l),
            _ => None,
        });
        queued.or_else(|| self.creature(id).map(|c| &c.lean))
    }

    /// The commands a brain poses a body with: facing, posture, reaching arms.
    fn apply_posture(&mut self, cmd: &Command) {
        match cmd {
            Command::Reach(id, arm, to, weight, speed) => {
                if let Some(c) = self.creature_mut(*id) {
                    c.reach_arm(*arm, *to, *weight, *speed);
                }
            }
            Command::SetPose(id, pose, time) => {
                if let Some(c) = self.creature_mut(*id) {
                    c.loco.stance.set(*pose, *time);
                }
            }
            Command::SetFacing(id, f) => {
                if let Some(c) = self.creature_mut(*id) {
                    c.facing = *f;
                    if f.is_none() {
                        c.loco.face_yaw = None;
                    }
                }
            }
            Command::LookAt(id, t) => {
                if let Some(c) = self.creature_mut(*id) {
                    c.look = *t;
                    c.loco.look_at = None;
                }
            }
            _ => {}
        }
    }

    fn apply_commands(&mut self) {
        let commands = std::mem::take(&mut self.commands);
        for cmd in &commands {
            match cmd {
                Command::SetIntent(id, intent) => {
                    self.drop_agent(*id);
                    if let Some(c) = self.creature_mut(*id) {
                        c.loco.intent = *intent;
                        c.loco.follow = None;
                        c.nav = None;
                    }
                }
                Command::Reach(..)
                | Command::SetPose(..)
                | Command::SetFacing(..)
                | Command::LookAt(..) => {
                    self.apply_posture(cmd);
                }
                Command::FollowPath(id, f) => {
                    self.drop_agent(*id);
                    if let Some(c) = self.creature_mut(*id) {
                        c.loco.intent = Intent::Idle;
                        c.loco.follow = Some((**f).clone());
                        c.nav = None;
                    }
                }
                Command::SetDestination(id, dest, speed) => {
                    // An agent stays one: its new destination resets it in place at the next
                    // placement (`place_agents`), not by leaving the dense agent array and
                    // entering it again (two moves of the array's tail).
                    if let Some(c) = self.creature_mut(*id) {
                        c.loco.follow = None;
                        // New orders: a jump that has not left the ground stops.
                        c.loco.cancel_jump();
                        c.nav = Some(NavGoal::to(*dest, *speed));
                    }
                }
                Command::ClearDestination(id) => {
                    self.drop_agent(*id);
                    if let Some(c) = self.creature_mut(*id) {
                        if c.nav.take().is_some() {
                            c.loco.intent = Intent::Idle;
                        }
                    }
                }
                Command::SetGait(id, gait) => {
                    if let Some(c) = self.creature_mut(*id) {
                        c.set_gait((**gait).clone());
                    }
                }
                Command::SetLean(id, lean) => {
                    if let Some(c) = self.creature_mut(*id) {
                        c.lean = (**lean).clone();
                    }
                }
                Command::Hit(id, dir, strength) => self.apply_hit(*id, *dir, *strength),
                Command::Ragdoll(id, req) => {
                    self.enter_ragdoll(*id, *req, RagdollCause::Script, Vec3::ZERO)
                }
                Command::Recover(id) => self.request_recover(*id),
                Command::LetGo(id) => {
                    if let Some(c) = self.creature_mut(*id) {
                        c.loco.let_go();
                    }
                }
                Command::SetMuscle(id, s) => self.set_muscle(*id, *s),
                Command::Jump(id, to) => self.apply_jump(*id, *to),
                Command::HoldLink(id) => self.hold_link(*id),
                Command::CrossLink(id) => self.cross_link(*id),
                Command::SetTeam(id, team) => {
                    if let Some(c) = self.creature_mut(*id) {
                        c.team = *team;
                    }
                }
                Command::SetTint(id, tint) => {
                    if let Some(c) = self.creature_mut(*id) {
                        c.tint = *tint;
                    }
                }
                Command::SetMuscleGains(id, g) => self.set_muscle_gains(*id, *g),
                Command::Tune(id, t) => self.tune(*id, t),
                Command::Despawn(id) => {
                    self.drop_agent(*id);
                    self.drop_rig(*id);
                    if let Ok(i) = self.creatures.binary_search_by_key(id, |c| c.id) {
                        self.creatures.remove(i);
                        self.removals += 1;
                        self.events.push(WorldEvent::Despawn { id: *id });
                    }
                }
            }
        }
        self.commands = commands;
        self.commands.clear();
    }

    /// Advances the world by `dt` seconds (call with [`TICK_DT`]).
    pub fn step(&mut self, dt: f32) {
        let t0 = std::time::Instant::now();
        self.refresh_level();
        self.apply_commands();
        self.plan_detail();
        self.step_nav(dt);
        self.resolve_targets();
        let t1 = std::time::Instant::now();
        // Those in physics finish their bodies after the ragdolls (the walkers did already).
        if self.step_bodies(dt) {
            self.finish_bodies(self.time + f64::from(dt), dt, false);
        }
        // Wall-clock phase times, for profiling only: nothing in the simulation reads them
        // (`step_bodies` set locomotion's and physics's; the bodies' springs are physics's).
        self.step_times.navigation = t1 - t0;
        let bodies = self.step_times.locomotion + self.step_times.physics;
        let rest = t1
            .elapsed()
            .saturating_sub(bodies.saturating_sub(self.step_times.overlap));
        self.step_times.physics += rest;
        self.frame += 1;
        self.time += dt as f64;
    }

    /// Runs the tick's per-creature locomotion on `n` threads (1: on the calling thread).
    /// Results are identical at any count.
    pub fn set_threads(&mut self, n: usize) {
        self.pool = if n <= 1 {
            None
        } else {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .thread_name(|i| format!("skitter-tick-{i}"))
                .build()
                .ok()
                .map(Arc::new)
        };
    }

    /// The pool the tick's per-creature work runs on (`None` on one thread): a caller may
    /// run its own jobs there between steps (see [`World::take_crowd_updates`]).
    pub fn pool(&self) -> Option<Arc<rayon::ThreadPool>> {
        self.pool.clone()
    }

    /// Leaves the crowds' deferred navigation updates of each step for the caller to take
    /// ([`World::take_crowd_updates`]) and run beside its own work before the next step —
    /// the script host runs them on the pool while the brains run — instead of running
    /// them beside the step's locomotion. Not taken, each runs at its crowd's next use
    /// (the next step's navigation at the latest): the same updates in the same order
    /// either way, so traces do not change.
    pub fn set_crowds_to_caller(&mut self, on: bool) {
        self.crowds_to_caller = on;
    }

    /// The crowd navigation updates the last step deferred (see
    /// [`World::set_crowds_to_caller`]), to run anywhere (another thread) before the next
    /// step: each navigator waits for its crowd at the crowd's next use; queries of the
    /// navmesh (`random_nav_point`, paths) do not wait.
    pub fn take_crowd_updates(&mut self) -> Vec<crate::nav::CrowdUpdate> {
        self.nav.take_crowd_updates()
    }

    /// Threads the tick's locomotion runs on.
    pub fn threads(&self) -> usize {
        self.pool.as_ref().map_or(1, |p| p.current_num_threads())
    }

    /// How long the last `step`'s phases took (wall clock; for benches and the overlay).
    pub fn last_step_times(&self) -> StepTimes {
        self.step_times
    }

    /// A blow: at or above the type's `physics.hit_threshold` the creature goes into
    /// physics with the hit's impulse; below it, the lean and push (a ragdoll just takes the
    /// impulse).
    fn apply_hit(&mut self, id: CreatureId, dir: Vec3, strength: f32) {
        let Some(c) = self.creature_mut(id) else {
            return;
        };
        let dir = dir.normalize_or_zero();
        if dir == Vec3::ZERO || !(strength > 0.0) || !strength.is_finite() {
            return;
        }
        let p = &c.def.physics;
        let impulse = dir * p.impulse_of(strength, c.def.body.mass, c.lean.hit_push);
        let hard = strength >= p.hit_threshold && !c.def.legs.is_empty();
        if hard {
            self.enter_ragdoll(id, RagdollRequest::default(), RagdollCause::Hit, impulse);
        } else if c.rag.is_some() {
            self.push_ragdoll(id, impulse);
        } else {
            // A blow of half what throws it into physics knocks a climber off a wall or a
            // ceiling (its push carries it as it falls); a weaker one sweeps a share of its
            // feet off their holds (its strength over that), and it lets go if too few are
            // left holding.
            if c.loco.is_climbing() && c.loco.up.y < CLIMB_HOLD_COS {
                let knock = 0.5 * p.hit_threshold;
                if strength >= knock {
                    c.loco.let_go();
                } else {
                    c.loco.sweep_feet(dir, strength / knock);
                }
            }
            c.loco.hit(&c.lean, dir, strength);
        }
        self.events.push(WorldEvent::Hit { id, dir, strength });
    }

    /// A count that changes whenever creatures may have left the world (despawned, or a
    /// checkpoint restored): who keeps per-creature data can skip looking for the gone while
    /// it stands still.
    pub fn removals(&self) -> u64 {
        self.removals
    }

    /// Takes the events of the ticks since the last call.
    pub fn drain_events(&mut self) -> Vec<WorldEvent> {
        std::mem::take(&mut self.events)
    }
}

#[cfg(test)]
#[path = "world_tests.rs"]
pub(crate) mod tests;
