//! Each tick, every creature's spring chains (a model's tail, abdomen, antennae: see
//! `model::springs`) chase where its body carries them now: the rest shape from the body's
//! frame (the ragdoll's body part while in physics) and, for chains on the head, the head's
//! turn; the ground under each point stops it. State per creature, in id order: the same
//! trace at any thread count.

use glam::{Affine3A, Vec3};

use super::ground::RapierGround;
use super::world::{Creature, World};
use crate::locomotion::GroundQuery;
use crate::math::spring_chain::SpringChain;
use crate::model::BoundModel;

/// How far a chain's points keep above the ground (m).
const CLEARANCE: f32 = 0.02;
/// How far above a point the ground under it is looked for (m), and below.
const CAST_ABOVE: f32 = 0.5;
const CAST_BELOW: f32 = 1.5;

impl World {
    /// Steps every creature's spring chains by `dt`.
    pub(super) fn step_springs(&mut self, dt: f32) {
        let World {
            creatures,
            types,
            physics,
            rigs,
            ground_collider,
            level,
            ..
        } = self;
        if !types
            .iter()
            .any(|t| t.model.as_ref().is_some_and(|m| !m.springs.is_empty()))
        {
            return;
        }
        let ground = RapierGround::new(physics, rigs, *ground_collider, level.boxes.is_empty());
        let mut rest = Vec::new();
        for c in creatures.iter_mut() {
            match types
                .get(c.type_id.0 as usize)
                .and_then(|t| t.model.as_deref())
            {
                Some(m) if !m.springs.is_empty() => step_creature(c, m, dt, &ground, &mut rest),
                _ => c.springs.clear(),
            }
        }
    }
}

/// Steps `c`'s spring chains (of its type's model `m`) by `dt`; `rest` a buffer.
pub(crate) fn step_creature(
    c: &mut Creature,
    m: &BoundModel,
    dt: f32,
    ground: &dyn GroundQuery,
    rest: &mut Vec<Vec3>,
) {
    if c.springs.len() != m.springs.len() {
        c.springs.clear();
        c.springs.resize(m.springs.len(), SpringChain::default());
    }
    let (position, rotation) = c.body_pose();
    let body = Affine3A::from_rotation_translation(rotation, position)
        * Affine3A::from_mat4(m.binding.fix);
    let head = match (m.binding.head, c.rag.is_none(), c.def.body.head.as_ref()) {
        (Some(h), true, Some(hd)) => {
            let turn = c.loco.head_rotation(hd.counter_yaw) * rotation.inverse();
            Some((m.model.joints[h].head(), turn))
        }
        _ => None,
    };
    let mut floor = |p: Vec3| {
        ground
            .cast_down(p + Vec3::Y * CAST_ABOVE, CAST_ABOVE + CAST_BELOW)
            .map(|g| g.y)
    };
    for (chain, state) in m.springs.iter().zip(c.springs.iter_mut()) {
        crate::model::rest_points(chain, &body, head, rest);
        state.step(rest, &chain.params, dt, CLEARANCE, &mut floor);
    }
}

/// `c`'s spring chains' points, chain after chain (what [`crate::model::PoseInput::springs`]
/// takes).
pub(crate) fn spring_points(c: &Creature, out: &mut Vec<Vec3>) {
    out.clear();
    for s in &c.springs {
        out.extend_from_slice(&s.points);
    }
}
