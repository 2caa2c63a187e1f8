//! The World: all simulation state as plain data, one `step(dt)` at a fixed 60 Hz.
//! Order inside a tick: commands → locomotion → events. (Nav and physics join later.)

use std::sync::Arc;

use glam::Vec3;
use rapier3d::prelude::{PhysicsWorld, QueryPipeline, Ray};

use super::level::{BoxDesc, GroundDesc, GroundGrid, Level, StairsDesc};
use super::navigation::{settings_of, NavGoal, NavWorld, Status};
use super::record::{Entry, Input};
use crate::locomotion::locomotor::Scratch;
use crate::locomotion::{
    DefError, GaitParams, GroundQuery, Intent, LeanDef, Locomotor, ValidCreatureDef,
};

/// Extra radius agents keep from each other in avoidance, metres.
const AVOID_MARGIN: f32 = 0.1;

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

/// A registered creature type.
#[derive(Clone, Debug)]
pub struct CreatureType {
    /// Qualified name, `mod/name`.
    pub name: String,
    /// The validated definition.
    pub def: Arc<ValidCreatureDef>,
}

/// One creature.
#[derive(Clone, Debug)]
pub struct Creature {
    /// Identity.
    pub id: CreatureId,
    /// Its type.
    pub type_id: TypeId,
    /// Its type's definition (shared).
    pub def: Arc<ValidCreatureDef>,
    /// This instance's gait (the type's plus overrides).
    pub gait: GaitParams,
    /// This instance's lean settings (the type's plus overrides).
    pub lean: LeanDef,
    /// Locomotion state.
    pub loco: Locomotor,
    /// Its destination on the navmesh, if it has one.
    pub nav: Option<NavGoal>,
}

/// A write from outside the sim (scripts, input), applied at the start of the next tick.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Command {
    /// Set a creature's movement intent.
    SetIntent(CreatureId, Intent),
    /// Replace a creature's gait parameters (already validated).
    SetGait(CreatureId, Box<GaitParams>),
    /// Replace a creature's lean settings (already validated).
    SetLean(CreatureId, Box<LeanDef>),
    /// A blow: pushes along `dir` (world space) with `strength` (lean and push).
    Hit(CreatureId, Vec3, f32),
    /// Walk to a point along the navmesh (replaces the movement intent).
    SetDestination(CreatureId, Vec3),
    /// Forget the destination and stop.
    ClearDestination(CreatureId),
    /// Follow a path (replaces the movement intent until `SetIntent`).
    FollowPath(CreatureId, Box<crate::path::PathFollower>),
    /// Remove a creature.
    Despawn(CreatureId),
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

/// One level-building call, kept so a mod's pieces can be taken out when it reloads.
#[derive(Clone, Debug, PartialEq)]
pub enum LevelPiece {
    /// `world.ground` (and its sampled grid).
    Ground(GroundDesc, GroundGrid),
    /// `world.box`.
    Box(BoxDesc),
    /// `world.stairs`.
    Stairs(StairsDesc),
}

/// What [`World::restore`] puts back.
#[derive(Clone, Debug)]
pub struct WorldCheckpoint {
    pieces: Vec<(String, LevelPiece)>,
    types: Vec<CreatureType>,
    creatures: Vec<Creature>,
    next_id: u32,
    commands: Vec<Command>,
}

/// Takes `new`'s value for every field where `current` still equals `old` (not overridden).
macro_rules! merge_fields {
    ($old:expr, $cur:expr, $new:expr; $($f:ident),*) => {{
        let mut out = $new.clone();
        $( if $cur.$f != $old.$f { out.$f = $cur.$f.clone(); } )*
        out
    }};
}

fn merge_gait(old: &GaitParams, cur: &GaitParams, new: &GaitParams) -> GaitParams {
    merge_fields!(old, cur, new; step_trigger, step_duration, step_height, step_arc,
        speed_scale, min_grounded, lead)
}

fn merge_lean(old: &LeanDef, cur: &LeanDef, new: &LeanDef) -> LeanDef {
    merge_fields!(old, cur, new; turn_gain, turn_max, turn_speed, accel_gain, accel_speed,
        accel_max, rise, fall, land, hit_gain, hit_max, hit_push, response, damping, filter_hz)
}

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

/// Ground queries against the rapier level.
struct RapierGround<'a> {
    query: QueryPipeline<'a>,
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

/// All simulation state.
pub struct World {
    frame: u64,
    time: f64,
    seed: u64,
    physics: PhysicsWorld,
    level: Level,
    /// What built `level`, piece by piece, with the mod that added each.
    pieces: Vec<(String, LevelPiece)>,
    level_dirty: bool,
    level_version: u64,
    types: Vec<CreatureType>,
    creatures: Vec<Creature>,
    next_id: u32,
    commands: Vec<Command>,
    events: Vec<WorldEvent>,
    scratch: Scratch,
    /// Inputs received since recording started (taken by the recorder each tick).
    recording: Option<Vec<Entry>>,
    /// Navmeshes and agents.
    nav: NavWorld,
    /// The level version the agents were placed on.
    nav_version: u64,
    /// Random numbers for queries (`random_nav_point`), from the seed.
    rng: u64,
}

impl World {
    /// An empty world (no ground, no creatures). `seed` feeds everything random.
    pub fn new(seed: u64) -> World {
        World {
            frame: 0,
            time: 0.0,
            seed,
            physics: PhysicsWorld::default(),
            level: Level::default(),
            pieces: Vec::new(),
            level_dirty: false,
            level_version: 0,
            types: Vec::new(),
            creatures: Vec::new(),
            next_id: 1,
            commands: Vec::new(),
            events: Vec::new(),
            scratch: Scratch::default(),
            recording: None,
            nav: NavWorld::default(),
            nav_version: 0,
            rng: seed ^ 0x9e37_79b9_7f4a_7c15 | 1,
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

    fn log(&mut self, input: impl FnOnce() -> Input) {
        if let Some(r) = self.recording.as_mut() {
            r.push(Entry {
                frame: self.frame,
                input: input(),
            });
        }
    }

    /// Replaces the ground.
    pub fn set_ground(&mut self, desc: &GroundDesc) -> Result<(), DefError> {
        self.set_ground_for("", desc)
    }

    /// Adds a static box.
    pub fn add_box(&mut self, desc: BoxDesc) -> Result<(), DefError> {
        self.add_box_for("", desc)
    }

    /// Adds static stairs.
    pub fn add_stairs(&mut self, desc: StairsDesc) -> Result<(), DefError> {
        self.add_stairs_for("", desc)
    }

    /// Replaces the ground on behalf of `owner` (a mod: its pieces go when it reloads).
    pub fn set_ground_for(&mut self, owner: &str, desc: &GroundDesc) -> Result<(), DefError> {
        let sampled = desc.sample()?;
        self.log(|| Input::Ground { desc: desc.clone() });
        self.level.ground = Some(sampled.clone());
        self.pieces
            .push((owner.to_string(), LevelPiece::Ground(desc.clone(), sampled)));
        self.level_changed();
        Ok(())
    }

    /// Adds a static box on behalf of `owner`.
    pub fn add_box_for(&mut self, owner: &str, desc: BoxDesc) -> Result<(), DefError> {
        desc.validate()?;
        self.log(|| Input::Box { desc: desc.clone() });
        self.level.boxes.push(desc.clone());
        self.pieces.push((owner.to_string(), LevelPiece::Box(desc)));
        self.level_changed();
        Ok(())
    }

    /// Adds static stairs on behalf of `owner`.
    pub fn add_stairs_for(&mut self, owner: &str, desc: StairsDesc) -> Result<(), DefError> {
        desc.validate()?;
        self.log(|| Input::Stairs { desc: desc.clone() });
        self.level.boxes.extend(desc.blocks());
        self.level.stairs.push(desc.clone());
        self.pieces
            .push((owner.to_string(), LevelPiece::Stairs(desc)));
        self.level_changed();
        Ok(())
    }

    fn level_changed(&mut self) {
        self.level_dirty = true;
        self.level_version += 1;
    }

    /// The level pieces, with the mod that added each, in the order they were added.
    pub fn level_pieces(&self) -> &[(String, LevelPiece)] {
        &self.pieces
    }

    /// Removes every level piece `owner` added (a mod about to reload) and rebuilds the level
    /// from the rest. Returns whether anything went.
    pub fn remove_level_of(&mut self, owner: &str) -> bool {
        let before = self.pieces.len();
        self.pieces.retain(|(o, _)| o != owner);
        if self.pieces.len() == before {
            return false;
        }
        self.rebuild_level();
        true
    }

    fn rebuild_level(&mut self) {
        let mut level = Level::default();
        for (_, p) in &self.pieces {
            match p {
                LevelPiece::Ground(_, g) => level.ground = Some(g.clone()),
                LevelPiece::Box(b) => level.boxes.push(b.clone()),
                LevelPiece::Stairs(st) => {
                    level.boxes.extend(st.blocks());
                    level.stairs.push(st.clone());
                }
            }
        }
        self.level = level;
        self.level_changed();
    }

    /// Everything a failed reload must be able to undo: the level, types, creatures and
    /// queued commands (events and the physics world are derived or transient).
    pub fn checkpoint(&self) -> WorldCheckpoint {
        WorldCheckpoint {
            pieces: self.pieces.clone(),
            types: self.types.clone(),
            creatures: self.creatures.clone(),
            next_id: self.next_id,
            commands: self.commands.clone(),
        }
    }

    /// Puts the world back as it was at `cp` (the tick count and time go on).
    pub fn restore(&mut self, cp: WorldCheckpoint) {
        let level_differs = cp.pieces != self.pieces;
        self.pieces = cp.pieces;
        if level_differs {
            self.rebuild_level();
        }
        self.types = cp.types;
        self.creatures = cp.creatures;
        self.next_id = cp.next_id;
        self.commands = cp.commands;
        self.replace_agents();
    }

    /// Drops every agent; creatures with a destination become agents again next tick.
    fn replace_agents(&mut self) {
        self.nav.clear_agents();
        for c in self.creatures.iter_mut() {
            if let Some(g) = c.nav.as_mut() {
                g.pending = !g.arrived;
            }
        }
    }

    /// Puts every creature back on the ground under it (after the level changed): same
    /// place, heading, motion and overrides; feet and height from the new ground.
    pub fn reground_all(&mut self) {
        self.refresh_level();
        let ground = RapierGround {
            query: self.physics.query_pipeline(),
        };
        for c in self.creatures.iter_mut() {
            c.loco = c.loco.regrounded(&c.def, &ground);
        }
    }

    /// Points every creature of a replaced type at its type's new definition. Per-instance
    /// overrides (fields where the creature's gait or lean differ from its old type's) are
    /// kept; the other fields take the new type's values. A creature whose legs changed in
    /// number or names is re-stood on the ground at its place. Returns the ids migrated.
    pub fn retype(&mut self) -> Vec<CreatureId> {
        self.refresh_level();
        let ground = RapierGround {
            query: self.physics.query_pipeline(),
        };
        let mut moved = Vec::new();
        for c in self.creatures.iter_mut() {
            let Some(t) = self.types.get(c.type_id.0 as usize) else {
                continue;
            };
            if Arc::ptr_eq(&t.def, &c.def) {
                continue;
            }
            let (old, new) = (c.def.clone(), t.def.clone());
            c.gait = merge_gait(&old.gait, &c.gait, &new.gait);
            if c.gait.validate(new.legs.len()).is_err() {
                c.gait = new.gait.clone();
            }
            c.lean = merge_lean(&old.lean, &c.lean, &new.lean);
            let same_legs = old.legs.len() == new.legs.len()
                && old
                    .legs
                    .iter()
                    .zip(new.legs.iter())
                    .all(|(a, b)| a.name == b.name && a.segments.len() == b.segments.len());
            c.def = new;
            if !same_legs {
                c.loco = c.loco.regrounded(&c.def, &ground);
            }
            moved.push(c.id);
        }
        if !moved.is_empty() {
            self.replace_agents();
        }
        moved
    }

    /// Rebuilds the physics level if it changed since the last query.
    fn refresh_level(&mut self) {
        if !self.level_dirty {
            return;
        }
        self.physics = PhysicsWorld::default();
        self.level.build_colliders(&mut self.physics.colliders);
        // One step brings the broad phase (used by every query) up to date.
        self.physics.step();
        self.level_dirty = false;
    }

    /// Registers (or replaces, by qualified name) a creature type.
    pub fn register_type(&mut self, name: &str, def: ValidCreatureDef) -> TypeId {
        let def = Arc::new(def);
        if let Some(i) = self.types.iter().position(|t| t.name == name) {
            self.types[i].def = def;
            return TypeId(i as u32);
        }
        self.types.push(CreatureType {
            name: name.to_string(),
            def,
        });
        TypeId(self.types.len() as u32 - 1)
    }

    /// The type registered under a qualified name.
    pub fn type_by_name(&self, name: &str) -> Option<TypeId> {
        self.types
            .iter()
            .position(|t| t.name == name)
            .map(|i| TypeId(i as u32))
    }

    /// A registered type.
    pub fn creature_type(&self, id: TypeId) -> Option<&CreatureType> {
        self.types.get(id.0 as usize)
    }

    /// All registered types.
    pub fn types(&self) -> &[CreatureType] {
        &self.types
    }

    /// Spawns a creature of `type_id` at `position` (x, z; dropped onto the ground) facing
    /// `yaw` radians. Returns `None` for an unknown type.
    pub fn spawn(&mut self, type_id: TypeId, position: Vec3, yaw: f32) -> Option<CreatureId> {
        self.refresh_level();
        let def = self.types.get(type_id.0 as usize)?.def.clone();
        let ground = RapierGround {
            query: self.physics.query_pipeline(),
        };
        let loco = Locomotor::spawn(&def, position, yaw, &ground);
        let id = CreatureId(self.next_id);
        self.next_id += 1;
        let type_name = &self.types[type_id.0 as usize].name;
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
        self.creatures.push(Creature {
            id,
            type_id,
            gait: def.gait.clone(),
            lean: def.lean.clone(),
            def,
            loco,
            nav: None,
        });
        Some(id)
    }

    /// All creatures, in id order.
    pub fn creatures(&self) -> &[Creature] {
        &self.creatures
    }

    /// One creature.
    pub fn creature(&self, id: CreatureId) -> Option<&Creature> {
        self.creatures
            .binary_search_by_key(&id, |c| c.id)
            .ok()
            .map(|i| &self.creatures[i])
    }

    fn creature_mut(&mut self, id: CreatureId) -> Option<&mut Creature> {
        self.creatures
            .binary_search_by_key(&id, |c| c.id)
            .ok()
            .map(move |i| &mut self.creatures[i])
    }

    /// Queues a command for the start of the next tick.
    pub fn push(&mut self, cmd: Command) {
        self.log(|| Input::Command { cmd: cmd.clone() });
        self.commands.push(cmd);
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
            .any(|c| matches!(c, Command::SetDestination(i, _) if *i == id))
    }

    /// The lean settings a creature will have at the next tick (pending overrides included).
    pub fn pending_lean(&self, id: CreatureId) -> Option<&LeanDef> {
        let queued = self.commands.iter().rev().find_map(|c| match c {
            Command::SetLean(cid, l) if *cid == id => Some(&**l),
            _ => None,
        });
        queued.or_else(|| self.creature(id).map(|c| &c.lean))
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
                Command::FollowPath(id, f) => {
                    self.drop_agent(*id);
                    if let Some(c) = self.creature_mut(*id) {
                        c.loco.intent = Intent::Idle;
                        c.loco.follow = Some((**f).clone());
                        c.nav = None;
                    }
                }
                Command::SetDestination(id, dest) => {
                    self.drop_agent(*id);
                    if let Some(c) = self.creature_mut(*id) {
                        c.loco.follow = None;
                        c.nav = Some(NavGoal {
                            dest: *dest,
                            target: None,
                            arrived: false,
                            pending: true,
                        });
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
                        c.gait = (**gait).clone();
                    }
                }
                Command::SetLean(id, lean) => {
                    if let Some(c) = self.creature_mut(*id) {
                        c.lean = (**lean).clone();
                    }
                }
                Command::Hit(id, dir, strength) => {
                    let Some(c) = self.creature_mut(*id) else {
                        continue;
                    };
                    let dir = dir.normalize_or_zero();
                    if dir == Vec3::ZERO || !(*strength > 0.0) || !strength.is_finite() {
                        continue;
                    }
                    c.loco.hit(&c.lean, dir, *strength);
                    let id = c.id;
                    self.events.push(WorldEvent::Hit {
                        id,
                        dir,
                        strength: *strength,
                    });
                }
                Command::Despawn(id) => {
                    self.drop_agent(*id);
                    if let Ok(i) = self.creatures.binary_search_by_key(id, |c| c.id) {
                        self.creatures.remove(i);
                    }
                }
            }
        }
        self.commands = commands;
        self.commands.clear();
    }

    /// Advances the world by `dt` seconds (call with [`TICK_DT`]).
    pub fn step(&mut self, dt: f32) {
        self.refresh_level();
        self.apply_commands();
        self.step_nav(dt);
        let ground = RapierGround {
            query: self.physics.query_pipeline(),
        };
        for c in self.creatures.iter_mut() {
            c.loco
                .update(&c.def, &c.gait, &c.lean, &ground, dt, &mut self.scratch);
            for s in self.scratch.events.drain(..) {
                self.events.push(WorldEvent::Step {
                    id: c.id,
                    leg: s.leg,
                    position: s.position,
                });
            }
        }
        self.frame += 1;
        self.time += dt as f64;
    }

    fn drop_agent(&mut self, id: CreatureId) {
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

    /// Where a creature's agent stands: its body's ground point.
    fn agent_point(c: &Creature) -> Vec3 {
        let ride = if c.def.legs.is_empty() {
            c.def.body.hover.unwrap_or(c.def.body.height)
        } else {
            c.def.body.height
        };
        c.loco.position - Vec3::Y * ride
    }

    /// The navigation half of [`World::step`] alone (benches measure it): agents follow
    /// their paths (with avoidance) and set each creature's movement intent.
    pub fn nav_tick(&mut self, dt: f32) {
        self.step_nav(dt);
    }

    /// Navigation: agents follow their paths (with avoidance); each creature's movement
    /// intent comes from its agent's desired velocity, within its `nav` limits.
    fn step_nav(&mut self, dt: f32) {
        if !self.creatures.iter().any(|c| c.nav.is_some()) {
            return;
        }
        self.refresh_level();
        let version = self.level_version;
        if self.nav_version != version {
            self.nav_version = version;
            for c in self.creatures.iter_mut() {
                if let Some(g) = c.nav.as_mut() {
                    g.pending = !g.arrived;
                }
            }
        }
        let World {
            nav,
            creatures,
            level,
            events,
            ..
        } = self;
        let input = || level.nav_input();
        let mut failed: Vec<(usize, String)> = Vec::new();
        for (i, c) in creatures.iter_mut().enumerate() {
            if c.nav.as_ref().is_none_or(|g| g.arrived) {
                continue;
            }
            let here = Self::agent_point(c);
            let Some(goal) = c.nav.as_mut() else { continue };
            let n = match nav.get(settings_of(&c.def.nav), version, &input) {
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
            let v = crate::math::frame::horizontal(c.loco.velocity);
            if goal.pending {
                goal.pending = false;
                let Some(on_mesh) = n.nearest(goal.dest, 1.0e4) else {
                    failed.push((i, "the navmesh is empty".into()));
                    continue;
                };
                let mut target = on_mesh;
                let off = crate::math::frame::horizontal(on_mesh - goal.dest).length();
                if off > 0.25 || (on_mesh.y - goal.dest.y).abs() > 1.5 {
                    events.push(WorldEvent::NavWarning {
                        id: c.id,
                        message: format!(
                            "destination ({:.2}, {:.2}, {:.2}) is off the navmesh: going to the nearest point on it ({:.2}, {:.2}, {:.2})",
                            goal.dest.x, goal.dest.y, goal.dest.z, on_mesh.x, on_mesh.y, on_mesh.z
                        ),
                    });
                }
                if n.find_path(here, target).is_none() {
                    if let Some(q) = n.closest_reachable(here, target) {
                        events.push(WorldEvent::NavWarning {
                            id: c.id,
                            message: format!(
                                "destination ({:.2}, {:.2}, {:.2}) cannot be reached from here: going to the closest reachable point ({:.2}, {:.2}, {:.2})",
                                target.x, target.y, target.z, q.x, q.y, q.z
                            ),
                        });
                        target = q;
                    }
                }
                goal.target = Some(target);
                let nv = &c.def.nav;
                n.add_agent(
                    c.id.0,
                    here,
                    v,
                    // Avoidance keeps a margin: bodies follow their desired velocity
                    // within acceleration and turn limits, not exactly.
                    nv.radius + AVOID_MARGIN,
                    nv.speed,
                    nv.stopping_distance,
                    target,
                );
            }
            n.set_body(c.id.0, here, v);
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
        for n in nav.ready() {
            if n.agent_keys().next().is_some() {
                n.update(dt);
            }
        }
        for c in creatures.iter_mut() {
            if c.nav.as_ref().is_none_or(|g| g.arrived || g.pending) {
                continue;
            }
            let here = Self::agent_point(c);
            let Some(goal) = c.nav.as_mut() else { continue };
            let Status::Ready(n) = nav.get(settings_of(&c.def.nav), version, &input) else {
                continue;
            };
            let Some(a) = n.agent(c.id.0) else { continue };
            let target = goal.target.unwrap_or(goal.dest);
            let nv = &c.def.nav;
            use crate::nav::NavAgentState as S;
            let desired = match a.state {
                S::Arrived => {
                    goal.arrived = true;
                    n.remove_agent(c.id.0);
                    c.loco.intent = Intent::Idle;
                    events.push(WorldEvent::Arrive { id: c.id });
                    continue;
                }
                S::Moving | S::Idle => a.desired,
                // Pushed off the mesh: head back onto it.
                S::OffMesh => match n.nearest(here, 5.0) {
                    Some(q) => (q - here).normalize_or_zero() * nv.speed * 0.5,
                    None => Vec3::ZERO,
                },
                S::NoPath => {
                    goal.pending = true;
                    n.remove_agent(c.id.0);
                    Vec3::ZERO
                }
            };
            let mut desired = crate::math::frame::horizontal(desired);
            let mut top = nv.speed;
            if nv.auto_brake {
                // Slow down to stop at the stopping distance, at `nav.acceleration`.
                let left = (crate::math::frame::horizontal(target - here).length()
                    - nv.stopping_distance)
                    .max(0.0);
                top = top.min((2.0 * nv.acceleration * left).sqrt() + 0.05);
            }
            desired = desired.clamp_length_max(top);
            let speed = desired.length();
            c.loco.intent = if speed > 1e-3 {
                Intent::Move {
                    dir: desired / speed,
                    speed,
                }
            } else {
                Intent::Idle
            };
        }
    }

    /// The navmesh used for queries that name no creature (`world.random_nav_point`,
    /// `world.nearest_nav_point`): that of the first registered legged type, else the
    /// default `nav` settings.
    fn query_navigator(&mut self) -> Option<&mut crate::nav::Navigator> {
        self.refresh_level();
        let nav_def = self
            .types
            .iter()
            .find(|t| !t.def.legs.is_empty())
            .map(|t| t.def.nav.clone())
            .unwrap_or_default();
        let level = &self.level;
        let input = || level.nav_input();
        // Queries answer now: they bake, or wait for a bake under way.
        match self
            .nav
            .get_now(settings_of(&nav_def), self.level_version, &input)
        {
            Status::Ready(n) => Some(n),
            _ => None,
        }
    }

    /// The nearest point on the navmesh to `p`, if any within 10 m.
    pub fn nearest_nav_point(&mut self, p: Vec3) -> Option<Vec3> {
        self.query_navigator()?.nearest(p, 10.0)
    }

    /// A random point on the navmesh (deterministic from the seed), within `radius` of
    /// `near` when given.
    pub fn random_nav_point(&mut self, near: Option<(Vec3, f32)>) -> Option<Vec3> {
        let mut rng = self.rng;
        let n = self.query_navigator()?;
        let mut unit = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng >> 40) as f32 / (1u64 << 24) as f32
        };
        let mut found = None;
        for _ in 0..64 {
            let Some(p) = n.point_at([unit(), unit(), unit()]) else {
                break;
            };
            if near.is_none_or(|(c, r)| crate::math::frame::horizontal(p - c).length() <= r) {
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
        self.nav
            .peek(settings_of(&c.def.nav), self.level_version)?
            .find_path(Self::agent_point(c), goal.target.unwrap_or(goal.dest))
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
            .map(|t| settings_of(&t.def.nav))
            .collect();
        let level = &self.level;
        let input = || level.nav_input();
        for s in settings {
            let _ = self.nav.get(s, version, &input);
        }
    }

    /// Takes the events of the ticks since the last call.
    pub fn drain_events(&mut self) -> Vec<WorldEvent> {
        std::mem::take(&mut self.events)
    }

    /// Casts a ray against the static level.
    pub fn raycast(&mut self, origin: Vec3, dir: Vec3, max_distance: f32) -> Option<RayHit> {
        self.refresh_level();
        let dir = dir.try_normalize()?;
        if !origin.is_finite() || !(max_distance >= 0.0) {
            return None;
        }
        let ray = Ray::new(origin, dir);
        self.physics
            .query_pipeline()
            .cast_ray_and_get_normal(&ray, max_distance, true)
            .map(|(_, hit)| RayHit {
                position: origin + dir * hit.time_of_impact,
                normal: hit.normal,
                distance: hit.time_of_impact,
            })
    }

    /// The surface point under `p`: a ray from 5 cm above it, 3 m down. A point buried in
    /// geometry reports the cast's start (so the error shows), never a surface far above.
    pub fn ground_below(&self, p: Vec3) -> Option<Vec3> {
        let origin = p + Vec3::Y * 0.05;
        ray_down(&self.physics.query_pipeline(), origin, 3.05).map(|toi| origin - Vec3::Y * toi)
    }

    /// Ground casts alone for every leg of every creature, as locomotion would do them this
    /// tick: the measure the tick cost is compared against. Returns the hits found.
    pub fn cast_feet_only(&self) -> usize {
        let ground = RapierGround {
            query: self.physics.query_pipeline(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locomotion::def::tests::spider;
    use crate::sim::level::HeightSource;

    #[test]
    fn spider_stands_and_walks_on_rapier_ground() {
        let mut w = World::new(1);
        w.set_ground(&GroundDesc {
            position: Vec3::ZERO,
            width: 40.0,
            depth: 40.0,
            heights: HeightSource::Flat,
        })
        .expect("ground");
        let t = w.register_type("test/spider", spider().validate().expect("valid"));
        let id = w.spawn(t, Vec3::new(0.0, 3.0, 0.0), 0.0).expect("spawned");
        let c = w.creature(id).expect("exists");
        assert!(
            (c.loco.position.y - 0.35).abs() < 1e-3,
            "{}",
            c.loco.position
        );
        w.push(Command::SetIntent(
            id,
            Intent::Move {
                dir: Vec3::Z,
                speed: 1.0,
            },
        ));
        for _ in 0..300 {
            w.step(TICK_DT);
        }
        let c = w.creature(id).expect("exists");
        assert!(c.loco.position.z > 3.5, "{}", c.loco.position);
        assert!(w.drain_events().len() > 10);
        let hit = w
            .raycast(Vec3::new(1.0, 5.0, 1.0), Vec3::NEG_Y, 10.0)
            .expect("hit");
        assert!((hit.distance - 5.0).abs() < 1e-4 && hit.normal.y > 0.99);
        w.push(Command::Despawn(id));
        w.step(TICK_DT);
        assert!(w.creature(id).is_none());
    }

    #[test]
    fn a_background_bake_never_blocks_and_creatures_stand_until_it_is_ready() {
        let mut w = World::new(1);
        w.set_background_bakes(true);
        w.set_ground(&GroundDesc {
            position: Vec3::ZERO,
            width: 40.0,
            depth: 40.0,
            heights: HeightSource::Flat,
        })
        .expect("ground");
        let t = w.register_type("test/spider", spider().validate().expect("valid"));
        let id = w.spawn(t, Vec3::ZERO, 0.0).expect("spawned");
        w.push(Command::SetDestination(id, Vec3::new(0.0, 0.0, 6.0)));
        w.step(TICK_DT);
        let c = w.creature(id).expect("exists");
        assert_eq!(
            c.loco.intent,
            Intent::Idle,
            "stands while the navmesh bakes"
        );
        let start = std::time::Instant::now();
        let mut frames = 1;
        while w.creature(id).is_some_and(|c| c.loco.speed() < 0.1) {
            assert!(start.elapsed().as_secs() < 20, "the bake never finished");
            std::thread::sleep(std::time::Duration::from_millis(2));
            w.step(TICK_DT);
            frames += 1;
        }
        assert!(frames >= 2);
        for _ in 0..60 * 12 {
            w.step(TICK_DT);
        }
        let ev = w.drain_events();
        assert!(
            ev.iter()
                .any(|e| matches!(e, WorldEvent::Arrive { id: a } if *a == id)),
            "arrived"
        );
        let p = w.creature(id).expect("exists").loco.position;
        assert!((p.z - 6.0).abs() < 0.5 && p.x.abs() < 0.5, "{p}");
        assert_eq!(w.nav_meshes().len(), 1);
    }

    #[test]
    fn boxes_and_stairs_are_solid() {
        let mut w = World::new(1);
        w.add_stairs(StairsDesc {
            position: Vec3::ZERO,
            yaw: 0.0,
            steps: 4,
            step_height: 0.2,
            step_depth: 0.5,
            width: 2.0,
        })
        .expect("stairs");
        let hit = w
            .raycast(Vec3::new(0.0, 5.0, 1.75), Vec3::NEG_Y, 10.0)
            .expect("hit the 4th step");
        assert!((hit.position.y - 0.8).abs() < 1e-4, "{}", hit.position);
        assert!(w
            .add_box(BoxDesc {
                position: Vec3::ZERO,
                size: Vec3::new(1.0, -1.0, 1.0),
                rotation: Vec3::ZERO
            })
            .is_err());
    }
}
