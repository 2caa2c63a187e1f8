//! The World: all simulation state as plain data, one `step(dt)` at a fixed 60 Hz.
//! Order inside a tick: commands → locomotion → events. (Nav and physics join later.)

use std::sync::Arc;

use glam::Vec3;
use rapier3d::prelude::{PhysicsWorld, QueryPipeline, Ray};

use super::level::{BoxDesc, GroundDesc, GroundGrid, Level, StairsDesc};
use super::record::{Entry, Input};
use crate::locomotion::locomotor::Scratch;
use crate::locomotion::{
    DefError, GaitParams, GroundQuery, Intent, LeanDef, Locomotor, ValidCreatureDef,
};

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
        if let Some(r) = self.recording.as_mut() {
            r.push(Entry {
                frame: self.frame,
                input: Input::Command { cmd: cmd.clone() },
            });
        }
        self.commands.push(cmd);
    }

    /// The gait a creature will have at the next tick (pending overrides included).
    pub fn pending_gait(&self, id: CreatureId) -> Option<&GaitParams> {
        for cmd in self.commands.iter().rev() {
            if let Command::SetGait(cid, g) = cmd {
                if *cid == id {
                    return Some(g);
                }
            }
        }
        self.creature(id).map(|c| &c.gait)
    }

    /// The lean settings a creature will have at the next tick (pending overrides included).
    pub fn pending_lean(&self, id: CreatureId) -> Option<&LeanDef> {
        for cmd in self.commands.iter().rev() {
            if let Command::SetLean(cid, l) = cmd {
                if *cid == id {
                    return Some(l);
                }
            }
        }
        self.creature(id).map(|c| &c.lean)
    }

    fn apply_commands(&mut self) {
        let commands = std::mem::take(&mut self.commands);
        for cmd in &commands {
            match cmd {
                Command::SetIntent(id, intent) => {
                    if let Some(c) = self.creature_mut(*id) {
                        c.loco.intent = *intent;
                        c.loco.follow = None;
                    }
                }
                Command::FollowPath(id, f) => {
                    if let Some(c) = self.creature_mut(*id) {
                        c.loco.intent = Intent::Idle;
                        c.loco.follow = Some((**f).clone());
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
