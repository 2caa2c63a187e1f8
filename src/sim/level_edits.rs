//! Level edits: the level as pieces (`world.ground`, `world.box`, `world.stairs`, `world.link`), each
//! kept with the mod that added it so a reload can take out exactly its own.

use super::level::{BoxDesc, GroundDesc, GroundGrid, Level, StairsDesc};
use super::record::Input;
use super::World;
use crate::locomotion::DefError;

/// One level-building call, kept so a mod's pieces can be taken out when it reloads.
#[derive(Clone, Debug, PartialEq)]
pub enum LevelPiece {
    /// `world.ground` (and its sampled grid).
    Ground(GroundDesc, GroundGrid),
    /// `world.box`.
    Box(BoxDesc),
    /// `world.stairs`.
    Stairs(StairsDesc),
    /// `world.link`.
    Link(super::LinkDesc),
}

impl World {
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

    /// How many level pieces (ground, boxes, stairs) mod `owner` built.
    pub fn pieces_of(&self, owner: &str) -> usize {
        self.pieces.iter().filter(|(o, _)| o == owner).count()
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

    pub(super) fn level_changed(&mut self) {
        self.level_dirty = true;
        self.level_serial += 1;
        self.level_version = self.level_serial;
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

    pub(super) fn rebuild_level(&mut self) {
        let mut level = Level::default();
        for (_, p) in &self.pieces {
            match p {
                LevelPiece::Ground(_, g) => level.ground = Some(g.clone()),
                LevelPiece::Box(b) => level.boxes.push(b.clone()),
                LevelPiece::Stairs(st) => {
                    level.boxes.extend(st.blocks());
                    level.stairs.push(st.clone());
                }
                LevelPiece::Link(l) => level.links.push((l.clone(), 0)),
            }
        }
        for (l, kind) in level.links.iter_mut() {
            *kind = self.link_kind(&l.kind);
        }
        self.level = level;
        self.level_changed();
    }
}
