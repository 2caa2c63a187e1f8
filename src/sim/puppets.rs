//! A World shown, not simulated: a network viewer's. Its creatures carry the server's ids,
//! and each frame their roots and feet come from outside (`World::drive`); the lean, the
//! head, the leg IK and the model's skinning are the World's own code, as on the server.

use glam::Vec3;

use super::world::{Creature, CreatureId, TypeId, World};
use crate::locomotion::{Locomotor, PuppetFoot, PuppetRoot};

/// One creature's drive for a frame: its root and its feet (in its legs' order).
pub type Drive<'a> = (PuppetRoot, &'a [PuppetFoot]);

impl World {
    /// Spawns a creature under the id another World gave it (a viewer mirrors a server's
    /// creatures). `None` for an unknown type or an id already here.
    pub fn spawn_as(
        &mut self,
        id: CreatureId,
        type_id: TypeId,
        position: Vec3,
        yaw: f32,
    ) -> Option<CreatureId> {
        let i = match self.creatures.binary_search_by_key(&id, |c| c.id) {
            Ok(_) => return None,
            Err(i) => i,
        };
        self.refresh_level();
        let def = self.types.get(type_id.0 as usize)?.def.clone();
        let ground = self.ground_query();
        let loco = Locomotor::spawn(&def, position, yaw, &ground);
        self.next_id = self.next_id.max(id.0 + 1);
        self.creatures
            .insert(i, Creature::fresh(id, type_id, def, loco));
        Some(id)
    }

    /// Takes a creature out at once (a viewer's despawn). False when it is not here.
    pub fn remove_now(&mut self, id: CreatureId) -> bool {
        match self.creatures.binary_search_by_key(&id, |c| c.id) {
            Ok(i) => {
                self.creatures.remove(i);
                self.removals += 1;
                self.near = super::near::NearGrid::default();
                true
            }
            Err(_) => false,
        }
    }

    /// Shows the world at `frame`/`time` (the server's, as the viewer shows it): each
    /// creature `drive` answers for is put where its root and feet say, then leans, turns
    /// its head and solves its legs over `dt` seconds ([`Locomotor::puppet`]). The others
    /// stay as they were. Every creature's spring chains then swing over `dt`.
    pub fn drive<'a>(
        &mut self,
        frame: u64,
        time: f64,
        dt: f32,
        mut drive: impl FnMut(&Creature) -> Option<Drive<'a>>,
    ) {
        self.frame = frame;
        self.time = time;
        self.refresh_level();
        let mut scratch = std::mem::take(&mut self.scratch);
        for c in &mut self.creatures {
            let Some((root, feet)) = drive(c) else {
                continue;
            };
            let Creature {
                def, lean, loco, ..
            } = c;
            loco.puppet(def, lean, &root, feet, dt, &mut scratch);
        }
        self.scratch = scratch;
        // Breath, and tails and the like swinging on the bodies as shown (every creature:
        // a rig too).
        self.finish_bodies(time, dt, true);
    }

    /// Replaces the whole level with these pieces, each with its owner (a viewer's copy of
    /// the server's). The first piece that does not build is the error.
    pub fn replace_level(
        &mut self,
        pieces: Vec<(String, super::level::PieceDesc)>,
    ) -> Result<(), crate::locomotion::DefError> {
        let owners: std::collections::BTreeSet<String> =
            self.pieces.iter().map(|(o, _)| o.clone()).collect();
        for o in owners {
            self.remove_level_of(&o);
        }
        for (owner, p) in pieces {
            match p {
                super::level::PieceDesc::Ground(d) => self.set_ground_for(&owner, &d)?,
                super::level::PieceDesc::Box(d) => self.add_box_for(&owner, d)?,
                super::level::PieceDesc::Stairs(d) => self.add_stairs_for(&owner, d)?,
                super::level::PieceDesc::Link(d) => self.add_link_for(&owner, d)?,
            }
        }
        Ok(())
    }

    /// A hit's kick to a creature's lean (a viewer's copy of the server's hit: the body's
    /// push is already in the root it is given).
    pub fn kick_lean(&mut self, id: CreatureId, dir: Vec3, strength: f32) {
        if let Some(c) = self.creature_mut(id) {
            let yaw = c.loco.yaw;
            c.loco.lean.hit(&c.lean, yaw, dir, strength);
        }
    }
}
