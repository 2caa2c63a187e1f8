//! One creature: its identity, type, locomotion, navigation, physics and the script-facing
//! state the World keeps for it.

use std::sync::Arc;

use glam::Vec3;

use super::navigation::NavGoal;
use super::ragdoll::Ragdoll;
use super::world::{CreatureId, TypeId};
use crate::locomotion::{GaitParams, LeanDef, Locomotor, ValidCreatureDef};

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
    /// In physics (an active ragdoll), or `None` while animated.
    pub rag: Option<Box<Ragdoll>>,
    /// Ticks since its locomotion last ran (far creatures skip ticks: see `sim::detail`).
    pub behind: u32,
    /// Its locomotion and steering run this tick (see `sim::detail`).
    pub due: bool,
    /// Far from every focus of the level of detail (false without one; see `sim::detail`).
    pub far: bool,
    /// Its team (`world.spawn{ team = n }`, `c:set_team`): what `world.creatures_near`
    /// filters on.
    pub team: Option<u32>,
    /// Its colour tint (`world.spawn{ tint = vec3(r, g, b) }`, `c:set_tint`): its model or
    /// sticks recoloured in it, their lightness kept (an army's colours); `None`: as made.
    pub tint: Option<Vec3>,
    /// What its body faces while it moves (`c:set_facing`), `None`: where it goes.
    pub facing: Option<super::Facing>,
    /// Arms reaching for creatures (`c:reach(arm, creature)`): arm, whom.
    pub reach_to: Vec<(usize, CreatureId)>,
    /// What its head looks at (`c:look_at`), resolved to a point each tick.
    pub look: Option<super::ReachTo>,
    /// Its model's spring chains as they swing now (see `sim::springs`).
    pub(crate) springs: Vec<crate::math::spring_chain::SpringChain>,
    /// Its spring chains' settings and its spine's shares as tuned for it alone (the
    /// inspector's sliders); `None`: its type's.
    pub tuned: Option<Box<super::springs::Tuned>>,
    /// The last tick (the world's frame after it) it breathed and its chains stepped.
    pub(super) finished: u64,
}

impl Creature {
    /// A creature just spawned: its type's gait and lean, no brain's requests yet.
    pub(super) fn fresh(
        id: CreatureId,
        type_id: TypeId,
        def: Arc<ValidCreatureDef>,
        loco: Locomotor,
    ) -> Creature {
        Creature {
            id,
            type_id,
            gait: def.gait.clone(),
            lean: def.lean.clone(),
            def,
            loco,
            nav: None,
            rag: None,
            behind: 0,
            due: true,
            far: false,
            team: None,
            tint: None,
            facing: None,
            reach_to: Vec::new(),
            look: None,
            springs: Vec::new(),
            tuned: None,
            finished: 0,
        }
    }

    /// Sets this instance's gait (its locomotion makes its styled copy again from it).
    pub(super) fn set_gait(&mut self, gait: GaitParams) {
        self.gait = gait;
        self.loco.gait_changed();
    }

    /// The time its locomotion and steering advance by this tick: `dt` for every tick it
    /// has not run.
    pub fn step_dt(&self, dt: f32) -> f32 {
        dt * (self.behind + 1) as f32
    }

    /// Its locomotion's turn this tick: the time to advance by (and it is no longer
    /// behind), or `None` when it skips the tick (one tick more behind).
    pub(super) fn take_turn(&mut self, dt: f32) -> Option<f32> {
        if !self.due {
            self.behind += 1;
            return None;
        }
        let dt = self.step_dt(dt);
        self.behind = 0;
        Some(dt)
    }
}

impl Creature {
    /// The body's pose as drawn: the rig's body part when in physics.
    pub fn body_pose(&self) -> (Vec3, glam::Quat) {
        match &self.rag {
            Some(r) => (r.parts[0].position, r.parts[0].rotation),
            None => (self.loco.body_position(), self.loco.rotation()),
        }
    }

    /// `"animated"`, `"limp"` or `"recovering"`.
    pub fn ragdoll_state(&self) -> &'static str {
        self.rag.as_ref().map_or("animated", |r| r.phase.name())
    }
}
