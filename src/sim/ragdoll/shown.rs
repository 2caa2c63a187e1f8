//! A ragdoll shown, not simulated: a network viewer's. Its parts come from the server's
//! body pose and each limb segment's rotation; each segment hangs from the one above it
//! (the first from its hip or shoulder on the body), as `rig_chains` draws them.

use glam::{Quat, Vec3};

use super::rig::limbs;
use super::{Part, Ragdoll, RagdollPhase};
use crate::locomotion::ValidCreatureDef;
use crate::sim::{CreatureId, World};

/// A rig's parts from its body's pose and its limb segments' rotations (legs then arms,
/// each from the hip down; missing ones hang as the body is turned).
pub fn parts_from(def: &ValidCreatureDef, body: (Vec3, Quat), rotations: &[Quat]) -> Vec<Part> {
    let still = |position, rotation| Part {
        position,
        rotation,
        linvel: Vec3::ZERO,
        angvel: Vec3::ZERO,
    };
    let mut parts = vec![still(body.0, body.1)];
    let mut k = 0;
    for limb in limbs(def) {
        let mut top = body.0 + body.1 * limb.attach;
        for len in limb.segments {
            let rot = rotations.get(k).copied().unwrap_or(body.1);
            let half = rot * Vec3::new(0.0, len * 0.5, 0.0);
            parts.push(still(top + half, rot));
            top += 2.0 * half;
            k += 1;
        }
    }
    parts
}

impl World {
    /// Shows creature `id` in physics with these parts (a viewer's copy of the server's
    /// rig): no rapier body is made, nothing steps it.
    pub fn show_rig(&mut self, id: CreatureId, parts: Vec<Part>, recovering: bool) {
        let Some(c) = self.creature_mut(id) else {
            return;
        };
        let phase = if recovering {
            RagdollPhase::Recovering
        } else {
            RagdollPhase::Limp
        };
        match c.rag.as_mut() {
            Some(r) => {
                r.parts = parts;
                r.phase = phase;
            }
            None => {
                c.rag = Some(Box::new(Ragdoll {
                    phase,
                    ..Ragdoll::limp(parts, 0.0)
                }))
            }
        }
    }

    /// Ends a shown rig: the creature is animated again.
    pub fn end_rig(&mut self, id: CreatureId) {
        if let Some(c) = self.creature_mut(id) {
            c.rag = None;
        }
    }
}
