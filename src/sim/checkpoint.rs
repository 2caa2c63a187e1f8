//! Checkpoints of the World (what a failed load or reload puts back), and what a reload
//! does to the creatures it keeps: new type definitions with instance overrides merged,
//! re-grounding after the level changed.

use std::sync::Arc;

use super::ground::RapierGround;
use super::level_edits::LevelPiece;
use super::world::{Command, Creature, CreatureId, CreatureType};
use super::World;
use crate::locomotion::tuning::{self, merge};

/// What [`World::restore`] puts back.
#[derive(Clone, Debug)]
pub struct WorldCheckpoint {
    pieces: Vec<(String, LevelPiece)>,
    level_version: u64,
    types: Vec<CreatureType>,
    creatures: Vec<Creature>,
    next_id: u32,
    commands: Vec<Command>,
    paths: std::collections::BTreeMap<String, Arc<crate::math::bezier::BezierPath>>,
}

impl World {
    /// Everything a failed reload must be able to undo: the level, types, creatures,
    /// named paths and queued commands (events and the physics world are derived or transient).
    pub fn checkpoint(&self) -> WorldCheckpoint {
        WorldCheckpoint {
            pieces: self.pieces.clone(),
            level_version: self.level_version,
            types: self.types.clone(),
            creatures: self.creatures.clone(),
            next_id: self.next_id,
            commands: self.commands.clone(),
            paths: self.paths.clone(),
        }
    }

    /// Puts the world back as it was at `cp` (the tick count and time go on).
    pub fn restore(&mut self, cp: WorldCheckpoint) {
        // Rigs are rebuilt from the restored creatures' plain ragdoll data.
        self.drop_all_rigs();
        let level_differs = cp.pieces != self.pieces;
        self.pieces = cp.pieces;
        if level_differs {
            self.rebuild_level();
        }
        // The checkpoint's level again: its number (and what was built for it) back.
        self.level_version = cp.level_version;
        self.types = cp.types;
        self.creatures = cp.creatures;
        self.removals += 1;
        // They come back as they were marked then (`sim::detail`): mark them again.
        self.all_due = false;
        self.next_id = cp.next_id;
        self.commands = cp.commands;
        self.paths = cp.paths;
        self.replace_agents();
    }

    /// After a reload went through (its mod's level pieces removed, its new version's
    /// added): when the pieces came back exactly as they were at `cp`, it is that level
    /// again and takes its number back, so what was built for it — navmeshes, agents' paths,
    /// the renderer's level meshes — stays valid (a scene saved with 1 000 creatures alive
    /// re-baked its navmesh on the next tick: 170–316 ms). Numbers handed out meanwhile are
    /// never reused (`level_serial`).
    pub fn keep_level_number(&mut self, cp: &WorldCheckpoint) {
        if self.pieces == cp.pieces {
            self.level_version = cp.level_version;
        }
    }

    /// Puts every creature back on the ground under it (after the level changed): same
    /// place, heading, motion and overrides; feet and height from the new ground.
    pub fn reground_all(&mut self) {
        self.refresh_level();
        let ground = RapierGround::new(
            &self.physics,
            &self.rigs,
            self.ground_collider,
            self.level.boxes.is_empty(),
        );
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
        let ground = RapierGround::new(
            &self.physics,
            &self.rigs,
            self.ground_collider,
            self.level.boxes.is_empty(),
        );
        let mut moved = Vec::new();
        for c in self.creatures.iter_mut() {
            let Some(t) = self.types.get(c.type_id.0 as usize) else {
                continue;
            };
            if Arc::ptr_eq(&t.def, &c.def) {
                continue;
            }
            let (old, new) = (c.def.clone(), t.def.clone());
            let gait = merge(tuning::GAIT, &old.gait, &c.gait, &new.gait);
            c.set_gait(if gait.validate(new.legs.len()).is_ok() {
                gait
            } else {
                new.gait.clone()
            });
            c.lean = merge(tuning::LEAN, &old.lean, &c.lean, &new.lean);
            let same_legs = old.legs.len() == new.legs.len()
                && old
                    .legs
                    .iter()
                    .zip(new.legs.iter())
                    .all(|(a, b)| a.name == b.name && a.segments.len() == b.segments.len());
            c.def = new;
            if !same_legs {
                c.loco = c.loco.regrounded(&c.def, &ground);
                if let Some(rag) = c.rag.as_mut() {
                    // New legs: the rig starts over from the new standing pose, here.
                    rag.parts = super::ragdoll::rig::parts_from_pose(&c.def, &c.loco);
                }
            }
            moved.push(c.id);
        }
        // Ragdolls of a new type are rebuilt (from their parts) with its muscles and limits.
        let rebuilt: Vec<CreatureId> = moved
            .iter()
            .copied()
            .filter(|id| self.rigs.rigs.contains_key(id))
            .collect();
        for id in rebuilt {
            self.drop_rig(id);
        }
        if !moved.is_empty() {
            self.replace_agents();
        }
        moved
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use crate::locomotion::{ClimbDef, Intent};
    use crate::sim::level::{BoxDesc, GroundDesc, HeightSource};
    use crate::sim::{Command, World};

    /// A climbing spider walked up a 3 m wall until it is half way up.
    fn on_a_wall() -> (World, crate::sim::CreatureId) {
        let mut w = World::new(3);
        w.set_ground(&GroundDesc {
            tag: Default::default(),
            position: Vec3::ZERO,
            width: 20.0,
            depth: 20.0,
            heights: HeightSource::Flat,
        })
        .expect("ground");
        w.add_box(BoxDesc {
            tag: Default::default(),
            position: Vec3::new(0.0, 1.5, 3.0),
            size: Vec3::new(6.0, 3.0, 2.0),
            rotation: Vec3::ZERO,
        })
        .expect("box");
        let mut def = crate::locomotion::def::tests::spider();
        def.climb = Some(ClimbDef::default());
        let t = w.register_type("climber", def.validate().expect("valid"));
        let id = w.spawn(t, Vec3::new(0.0, 0.0, 0.0), 0.0).expect("spawned");
        w.push(Command::SetIntent(id, Intent::walk(Vec3::Z, 0.8)));
        for _ in 0..600 {
            w.step(crate::sim::TICK_DT);
            let c = w.creature(id).expect("alive");
            if c.loco.position.y > 1.4 && c.loco.up.z < -0.99 {
                return (w, id);
            }
        }
        panic!("it never got half way up the wall");
    }

    #[test]
    fn a_climber_keeps_its_wall_through_a_restore_and_a_reground() {
        let (mut w, id) = on_a_wall();
        let before = w.creature(id).expect("alive").loco.clone();
        let cp = w.checkpoint();
        for _ in 0..30 {
            w.step(crate::sim::TICK_DT);
        }
        w.restore(cp);
        assert_eq!(
            w.creature(id).expect("alive").loco,
            before,
            "restored as it was"
        );
        // A reload that regrounds everyone (the level rebuilt) leaves it on its wall, its
        // feet where they were.
        w.reground_all();
        assert_eq!(
            w.creature(id).expect("alive").loco,
            before,
            "still on its wall"
        );
        for _ in 0..60 {
            w.step(crate::sim::TICK_DT);
        }
        let c = w.creature(id).expect("alive");
        assert!(
            c.loco.is_climbing() && c.loco.up.z < -0.99 && c.loco.position.y > 1.6,
            "it climbs on: {} up {}",
            c.loco.position,
            c.loco.up
        );
    }
}
