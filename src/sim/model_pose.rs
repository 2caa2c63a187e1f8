//! A creature's model posed from its state: the points of its limbs as locomotion or its
//! ragdoll has them (legs, then arms), its body frame and its head, handed to the model
//! layer's poser. The trace's `tip` and the renderer's skinning both come from here.

use glam::{Mat4, Vec3};

use super::world::Creature;
use crate::model::{BoundModel, PoseInput};

/// Buffers a pose is made in (reused from creature to creature).
#[derive(Clone, Debug, Default)]
pub struct PoseScratch {
    /// Every limb's points, hip to foot, legs then arms.
    pub points: Vec<Vec3>,
    /// How many points each limb has.
    pub lens: Vec<usize>,
    /// Each joint's world matrix.
    pub world: Vec<Mat4>,
    /// Each joint's skinning matrix (bind-pose scene space to the world).
    pub skin: Vec<Mat4>,
}

/// Every limb's points of `c`, hip (or shoulder) to foot (or hand): legs, then arms.
pub fn limb_points(c: &Creature, points: &mut Vec<Vec3>, lens: &mut Vec<usize>) {
    points.clear();
    lens.clear();
    if let Some(rag) = c.rag.as_ref() {
        for chain in super::rig_chains(&c.def, &rag.parts) {
            lens.push(chain.len());
            points.extend(chain);
        }
        return;
    }
    for st in &c.loco.legs {
        let start = points.len();
        points.push(st.hip);
        if st.joints.is_empty() {
            points.push(st.knee);
        } else {
            points.extend_from_slice(&st.joints);
        }
        points.push(st.foot);
        lens.push(points.len() - start);
    }
    for chain in crate::locomotion::arm_chains(&c.def, &c.loco) {
        lens.push(chain.len());
        points.extend(chain);
    }
}

/// Poses `model` for `c` into `s` (its joints' world and skinning matrices).
pub fn pose_creature(c: &Creature, model: &BoundModel, s: &mut PoseScratch) {
    limb_points(c, &mut s.points, &mut s.lens);
    let (position, rotation) = c.body_pose();
    let counter = c.def.body.head.as_ref().map_or(0.0, |h| h.counter_yaw);
    let head = if c.rag.is_some() {
        None
    } else {
        Some(c.loco.head_rotation(counter))
    };
    model.posed.pose(
        &PoseInput {
            body: Mat4::from_rotation_translation(rotation, position),
            head,
            body_rotation: rotation,
            points: &s.points,
            chain_lens: &s.lens,
        },
        &mut s.world,
        &mut s.skin,
    );
}
