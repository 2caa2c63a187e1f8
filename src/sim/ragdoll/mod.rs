//! Active ragdolls (seed 003): a creature thrown into physics becomes rigid parts on
//! joints (rapier impulse joints), held toward its standing pose by muscles, and gets back
//! up on its own.
//!
//! States: **animated** (the locomotor runs; the creature is not in rapier) → **limp**
//! (`c:ragdoll{}` or a hit at or above `physics.hit_threshold`; muscles at the limp
//! strength) → **recovering** (after `physics.getup_delay` once the body is slower than
//! [`GETUP_SPEED`], or `c:recover()`: a kinematic anchor pulls the body upright to ride
//! height over the ground under it while the muscles ramp to full) → animated (the stepper
//! takes over from the rig's pose: body where the rig left it, feet planted where the rig's
//! feet stand when they are within reach, else at their rest spots). A try that has not
//! stood the body up after `physics.recovery_time` falls back to limp and tries again;
//! after `physics.recovery_tries` failures the creature stays limp and says so
//! ([`WorldEvent::RecoverFailed`]) until a script calls `c:recover()`.
//!
//! All ragdoll state is plain data in [`Ragdoll`] (part poses and velocities, phase,
//! timers): checkpoints keep it, and the rapier side ([`rig::Rig`]) is rebuilt from it when
//! the physics world is replaced (level edits) or the World is restored.

mod anchor;
mod groups;
pub(crate) mod rig;
pub(crate) mod righting;
mod shown;
mod step;
pub(super) use groups::step_worlds;
pub use shown::parts_from;

use std::collections::BTreeMap;

use glam::{Quat, Vec3};

use super::world::{CreatureId, WorldEvent};
use super::World;
use crate::locomotion::ValidCreatureDef;

/// The interaction groups of a World's ragdolls (see [`World::physics_groups`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhysicsGroups {
    /// Groups (each its own physics world) now.
    pub groups: usize,
    /// Rigs in the largest group.
    pub largest: usize,
    /// Rigs rebuilt in another group's world so far.
    pub moved: u64,
}

/// A limp body slower than this (m/s) may start to get up.
pub(crate) const GETUP_SPEED: f32 = 0.3;
/// Seconds a rig must be still (see [`STILL_SPEED`], [`STILL_DRIFT`]) before it settles
/// (and rapier may put it to sleep with its island: see `rig::set_settled`).
pub(crate) const SLEEP_AFTER: f32 = 0.5;
/// A rig is still while no part is faster than this (m/s; rad/s × 0.2 m) and none strays
/// [`STILL_DRIFT`] from where the stillness began; a faster part unsettles a settled rig.
/// Loose on speed, strict on travel: a limp limb resting on a joint limit is never quite at
/// rest in the solver — each substep it sags past the limit and is pushed back, at about
/// gravity × the substep (≈ 0.1 m/s at three substeps a tick) — yet it goes nowhere.
pub(crate) const STILL_SPEED: f32 = 0.2;
/// How far (m) a part of a still rig may stray from where the stillness began.
pub(crate) const STILL_DRIFT: f32 = 0.01;
/// Spin a hit gives the body about the axis across it, rad/s per m/s of push.
pub(crate) const TUMBLE: f32 = 1.5;
/// A limp duration that never ends (`math.huge` from a script): finite, so records of it
/// stay plain JSON.
pub const FOREVER: f32 = 1e9;
/// How far above the ground a turned rig's lowest point starts, m.
const LIFT_CLEARANCE: f32 = 0.02;
/// Default cap on simultaneous rigs (`--max-ragdolls`).
pub const DEFAULT_MAX_RAGDOLLS: usize = 256;

/// One rigid part, world space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Part {
    /// Centre.
    pub position: Vec3,
    /// Orientation.
    pub rotation: Quat,
    /// Linear velocity, m/s.
    pub linvel: Vec3,
    /// Angular velocity, rad/s.
    pub angvel: Vec3,
}

/// Where a ragdoll is in its cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RagdollPhase {
    /// Falling or lying, muscles at the limp strength.
    Limp,
    /// Getting up.
    Recovering,
}

impl RagdollPhase {
    /// The name scripts and traces see.
    pub fn name(self) -> &'static str {
        match self {
            RagdollPhase::Limp => "limp",
            RagdollPhase::Recovering => "recovering",
        }
    }
}

/// A part coming down faster than this (m/s) and stopped by more than this within a tick
/// landed: an impact (heard, see `audio`). Gravity alone changes a speed by 0.16 m/s a tick.
pub(crate) const IMPACT_SPEED: f32 = 0.8;

/// A creature in physics. Plain data.
#[derive(Clone, Debug, PartialEq)]
pub struct Ragdoll {
    /// Limp or recovering.
    pub phase: RagdollPhase,
    /// Live muscle strength, 0..1 (`c.muscle`).
    pub muscle: f32,
    /// The strength the muscles hold while limp.
    pub hold: f32,
    /// Seconds in the current phase.
    pub time: f32,
    /// Stay limp this long before getting up (`c:ragdoll{ duration = }`); `None`: the
    /// type's `getup_delay`.
    pub duration: Option<f32>,
    /// Tries to get up so far.
    pub tries: u32,
    /// Gave up getting up (until `c:recover()`).
    pub gave_up: bool,
    /// Seconds the body has been slower than [`GETUP_SPEED`].
    pub slow: f32,
    /// Seconds every part has been still.
    pub still: f32,
    /// Where each part was when the stillness began (empty: not still).
    pub(crate) rest: Vec<Vec3>,
    /// Parts: the body, then each leg's segments from the hip down.
    pub parts: Vec<Part>,
    /// The body's pose when the current try began, and the pose it is pulled to.
    pub from: (Vec3, Quat),
    /// Where the current try stands the body.
    pub goal: (Vec3, Quat),
    /// The current try's roll onto its feet, when it began far from upright (see
    /// [`righting`]); the rise to `goal` starts where it ends.
    pub(crate) righting: Option<righting::Righting>,
    /// This creature's stiffness and damping multipliers (the inspector's sliders).
    pub gains: [f32; 2],
    /// This tick's hardest landing of a part: where, and how fast it was coming down (m/s)
    /// — a [`WorldEvent::Impact`] once the tick's physics is read back.
    pub(crate) impact: Option<(Vec3, f32)>,
}

impl Ragdoll {
    /// Just gone limp with these parts, its muscles held at `hold`.
    pub(crate) fn limp(parts: Vec<Part>, hold: f32) -> Ragdoll {
        let body = (parts[0].position, parts[0].rotation);
        Ragdoll {
            phase: RagdollPhase::Limp,
            muscle: hold,
            hold,
            time: 0.0,
            duration: None,
            tries: 0,
            gave_up: false,
            slow: 0.0,
            still: 0.0,
            rest: Vec::new(),
            parts,
            from: body,
            goal: body,
            righting: None,
            impact: None,
            gains: [1.0, 1.0],
        }
    }

    /// The body part.
    pub fn body(&self) -> &Part {
        &self.parts[0]
    }

    /// Seconds the current try spends rolling onto its feet before the rise (0 without a
    /// roll), for a type whose tries last `recovery_time`.
    pub fn roll_time(&self, recovery_time: f32) -> f32 {
        self.righting
            .as_ref()
            .map_or(0.0, |r| r.duration(recovery_time))
    }
}

/// One ragdoll joint for the debug layer (see [`World::rig_joints`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RigJointView {
    /// The joint.
    pub at: Vec3,
    /// The child segment's far end now.
    pub now: Vec3,
    /// Where the muscle pulls it (the standing pose relative to the parent).
    pub target: Vec3,
    /// Limit, degrees.
    pub limit: f32,
    /// A hip (spherical) rather than a knee.
    pub hip: bool,
}

/// Why a creature went into physics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum RagdollCause {
    /// A script asked (`c:ragdoll{}`).
    Script,
    /// A hit at or above the type's threshold.
    Hit,
}

impl RagdollCause {
    /// The name `on_ragdoll(self, why)` receives.
    pub fn name(self) -> &'static str {
        match self {
            RagdollCause::Script => "script",
            RagdollCause::Hit => "hit",
        }
    }
}

/// What `c:ragdoll{ muscle =, duration = }` asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RagdollRequest {
    /// Muscle strength while limp (0..1); `None`: the type's `limp_strength`.
    pub muscle: Option<f32>,
    /// Seconds limp before getting up; `None`: the type's `getup_delay`.
    pub duration: Option<f32>,
    /// Turns the body first (pitch, yaw, roll degrees about its own axes, as a level box's
    /// `rotation`), about its centre, lifted so no part is below the ground: a creature
    /// thrown on its back is `turn = vec3(0, 0, 180)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<Vec3>,
}

/// The rapier side of every ragdoll, keyed by creature (derived, never checkpointed).
#[derive(Default)]
pub(crate) struct Rigs {
    pub(crate) rigs: BTreeMap<CreatureId, rig::Rig>,
    /// The interaction groups' physics worlds (each with the level's colliders and its
    /// rigs), by key: groups touch nothing of each other's within a tick, so they step
    /// apart — in parallel, each in its own order, the result the same at any thread count
    /// (see `groups`).
    pub(crate) worlds: BTreeMap<u32, rapier3d::prelude::PhysicsWorld>,
    /// The next new world's key.
    pub(crate) next_key: u32,
    /// Rigs rebuilt in another world because their group changed (for benches).
    pub(crate) moved: u64,
    /// Physics steps run (a step runs only when a rig is awake).
    pub(crate) steps: u64,
}

impl Rigs {
    /// A rig and the world it lives in.
    pub(crate) fn get_mut(
        &mut self,
        id: CreatureId,
    ) -> Option<(&mut rapier3d::prelude::PhysicsWorld, &mut rig::Rig)> {
        let Rigs { rigs, worlds, .. } = self;
        let r = rigs.get_mut(&id)?;
        let w = worlds.get_mut(&r.world)?;
        Some((w, r))
    }
}

impl World {
    /// Knocks `id` over along `dir` (the window's `K`, a viewer's): a hit of 1.5 × its
    /// type's threshold, tipped up a little so it leaves the ground. Queued as a command,
    /// recorded like any. False for a creature not here.
    pub fn knock_over(&mut self, id: CreatureId, dir: Vec3) -> bool {
        let Some(c) = self.creature(id) else {
            return false;
        };
        let strength = c.def.physics.hit_threshold * 1.5;
        let flat = Vec3::new(dir.x, 0.0, dir.z).normalize_or(Vec3::Z);
        self.push(super::Command::Hit(id, flat + Vec3::Y * 0.3, strength));
        true
    }
}

impl World {
    /// The most creatures that may be in physics at once (`--max-ragdolls`).
    pub fn set_max_ragdolls(&mut self, n: usize) {
        self.max_ragdolls = n;
    }

    /// The cap on simultaneous rigs.
    pub fn max_ragdolls(&self) -> usize {
        self.max_ragdolls
    }

    /// Creatures in physics now.
    pub fn ragdoll_count(&self) -> usize {
        self.creatures.iter().filter(|c| c.rag.is_some()).count()
    }

    /// Physics steps run so far (steps run only while some rig is awake).
    pub fn physics_steps(&self) -> u64 {
        self.rigs.steps
    }

    /// Interaction groups (physics worlds) now, the largest's rigs, and rigs rebuilt in
    /// another group's world so far (see `groups`).
    pub fn physics_groups(&self) -> PhysicsGroups {
        let mut sizes: BTreeMap<u32, usize> = BTreeMap::new();
        for r in self.rigs.rigs.values() {
            *sizes.entry(r.world).or_default() += 1;
        }
        PhysicsGroups {
            groups: self.rigs.worlds.len(),
            largest: sizes.values().copied().max().unwrap_or(0),
            moved: self.rigs.moved,
        }
    }

    /// Rigs asleep now.
    pub fn sleeping_rigs(&self) -> usize {
        self.rigs.rigs.values().filter(|r| r.asleep).count()
    }

    /// The masses of a ragdolled creature's parts, kg, in the order of its
    /// [`Ragdoll::parts`] (None when it is not in physics).
    pub fn ragdoll_masses(&self, id: CreatureId) -> Option<&[f32]> {
        self.rigs.rigs.get(&id).map(|r| r.masses.as_slice())
    }

    /// Per joint of a ragdolled creature: degrees between each part and where the standing
    /// pose puts it relative to its parent (empty when animated).
    pub fn joint_deviation_deg(&self, id: CreatureId) -> Vec<f32> {
        let (Some(c), Some(rig)) = (self.creature(id), self.rigs.rigs.get(&id)) else {
            return Vec::new();
        };
        let Some(rag) = c.rag.as_ref() else {
            return Vec::new();
        };
        rig::joint_deviation(rig, &rag.parts)
            .into_iter()
            .map(f32::to_degrees)
            .collect()
    }

    /// For drawing: each muscle-driven joint of a ragdoll as (joint point, where its child
    /// segment's far end is, where the standing pose wants it, the joint's limit in degrees:
    /// the hip's swing, or the knee's larger bend).
    pub fn rig_joints(&self, id: CreatureId, out: &mut Vec<RigJointView>) {
        let (Some(c), Some(rig)) = (self.creature(id), self.rigs.rigs.get(&id)) else {
            return;
        };
        let Some(rag) = c.rag.as_ref() else { return };
        let chains = rig::rig_chains(&c.def, &rag.parts);
        let mut k = 1;
        for (leg, chain) in rig::limbs(&c.def).iter().zip(&chains) {
            for (si, len) in leg.segments.iter().enumerate() {
                let parent = if si == 0 { 0 } else { k - 1 };
                let rel = rig.stand.parts[parent].1.inverse() * rig.stand.parts[k].1;
                let want = rag.parts[parent].rotation * rel;
                out.push(RigJointView {
                    at: chain[si],
                    now: chain[si + 1],
                    target: chain[si] + want * Vec3::Y * *len,
                    limit: {
                        let (swing, _, bend) = leg.limits(&c.def.physics);
                        if si == 0 {
                            swing
                        } else {
                            bend[1]
                        }
                    },
                    hip: si == 0,
                });
                k += 1;
            }
        }
    }

    /// The rigid bodies' quarantine after the last physics step was empty (no part went
    /// non-finite).
    pub fn physics_quarantine_empty(&self) -> bool {
        self.physics.quarantine().is_empty()
            && self.rigs.worlds.values().all(|w| w.quarantine().is_empty())
    }

    /// Throws `id` into physics (`RagdollCause`), keeping its momentum; `impulse` (N·s,
    /// world space) is added to the whole rig's velocity as `impulse / mass`. Past the cap
    /// on rigs it refuses, with a [`WorldEvent::Refused`] naming `--max-ragdolls`.
    pub(super) fn enter_ragdoll(
        &mut self,
        id: CreatureId,
        req: RagdollRequest,
        cause: RagdollCause,
        impulse: Vec3,
    ) {
        let cap = self.max_ragdolls;
        let count = self.ragdoll_count();
        let Some(c) = self.creature_mut(id) else {
            return;
        };
        if c.def.legs.is_empty() {
            return;
        }
        if let Some(rag) = c.rag.as_mut() {
            // Already in physics: a script's request sets the strength and duration, a hard
            // hit keeps them; either starts the limp phase over.
            if cause == RagdollCause::Script {
                if let Some(m) = req.muscle {
                    rag.hold = m;
                }
                rag.duration = req.duration;
            }
            rag.phase = RagdollPhase::Limp;
            rag.time = 0.0;
            rag.muscle = rag.hold;
            self.push_ragdoll(id, impulse);
            return;
        }
        if count >= cap {
            let msg = format!(
                "cannot ragdoll creature {}: {count} creatures are in physics, the most allowed (--max-ragdolls {cap})",
                id.0
            );
            self.events.push(WorldEvent::Refused { id, message: msg });
            return;
        }
        let def = c.def.clone();
        let mut parts = rig::parts_from_pose(&def, &c.loco);
        let spin = c.loco.lean.angular_velocity(c.loco.yaw);
        if let Some(turn) = req.turn {
            self.turn_parts(&def, &mut parts, turn);
        }
        let dv = impulse / def.body.mass;
        for p in parts.iter_mut() {
            p.linvel += dv;
        }
        // A blow also tips the body over: a spin about the horizontal axis across the blow,
        // TUMBLE rad/s per m/s of push (capped at the part spin limit).
        let tumble = Vec3::Y.cross(Vec3::new(dv.x, 0.0, dv.z)) * TUMBLE;
        parts[0].angvel = (spin + tumble).clamp_length_max(rig::MAX_SPIN);
        let hold = req.muscle.unwrap_or(def.physics.limp_strength);
        let Some(c) = self.creature_mut(id) else {
            return;
        };
        c.rag = Some(Box::new(Ragdoll {
            duration: req.duration,
            ..Ragdoll::limp(parts, hold)
        }));
        self.drop_agent(id);
        self.events.push(WorldEvent::Ragdoll { id, cause });
    }

    /// Turns `parts` about the body's centre by `turn` (pitch, yaw, roll degrees in the
    /// body's frame) and lifts them so that no part is below the level under it.
    fn turn_parts(&mut self, def: &ValidCreatureDef, parts: &mut [Part], turn: Vec3) {
        let (centre, rot) = (parts[0].position, parts[0].rotation);
        let q = rot * crate::math::frame::rotation_from_pitch_yaw_roll_deg(turn) * rot.inverse();
        for p in parts.iter_mut() {
            p.position = centre + q * (p.position - centre);
            p.rotation = (q * p.rotation).normalize();
        }
        let mut lift = 0.0f32;
        for low in rig::part_lowest_points(def, parts) {
            let from = Vec3::new(low.x, parts[0].position.y + 3.0, low.z);
            if let Some(h) = self.raycast(from, Vec3::NEG_Y, 10.0) {
                lift = lift.max(h.position.y + LIFT_CLEARANCE - low.y);
            }
        }
        for p in parts.iter_mut() {
            p.position.y += lift;
        }
    }

    /// A push on a ragdoll that does not change its phase.
    pub(super) fn push_ragdoll(&mut self, id: CreatureId, impulse: Vec3) {
        let Some(c) = self.creature_mut(id) else {
            return;
        };
        let dv = impulse / c.def.body.mass;
        let Some(rag) = c.rag.as_mut() else { return };
        for p in rag.parts.iter_mut() {
            p.linvel += dv;
        }
        self.wake_rig(id, Some(dv));
    }

    /// Starts a try to get up now (`c:recover()`); a creature that gave up tries afresh.
    pub(super) fn request_recover(&mut self, id: CreatureId) {
        let Some(rag) = self.creature_mut(id).and_then(|c| c.rag.as_mut()) else {
            return;
        };
        if rag.gave_up {
            rag.gave_up = false;
            rag.tries = 0;
        }
        if rag.phase == RagdollPhase::Limp {
            self.start_recovery(id);
        }
    }

    /// Sets the live muscle strength of a ragdolled creature (and what it holds limp).
    pub(super) fn set_muscle(&mut self, id: CreatureId, strength: f32) {
        if !strength.is_finite() {
            return;
        }
        let strength = strength.clamp(0.0, 1.0);
        let Some(rag) = self.creature_mut(id).and_then(|c| c.rag.as_mut()) else {
            return;
        };
        rag.hold = strength;
        if rag.phase == RagdollPhase::Limp {
            rag.muscle = strength;
        }
        self.wake_rig(id, None);
    }

    /// Scales a ragdoll's stiffness and damping (each clamped to 0.01..100; NaN ignored).
    pub(super) fn set_muscle_gains(&mut self, id: CreatureId, gains: [f32; 2]) {
        if !gains.iter().all(|g| g.is_finite()) {
            return;
        }
        let Some(rag) = self.creature_mut(id).and_then(|c| c.rag.as_mut()) else {
            return;
        };
        rag.gains = gains.map(|g| g.clamp(0.01, 100.0));
        self.wake_rig(id, None);
    }

    /// Wakes a rig (a new strength, a hit), adding `dv` to its parts in rapier.
    fn wake_rig(&mut self, id: CreatureId, dv: Option<Vec3>) {
        let Some((physics, rig)) = self.rigs.get_mut(id) else {
            return;
        };
        rig.asleep = false;
        rig::set_settled(physics, rig, false);
        for h in &rig.bodies {
            if let Some(b) = physics.bodies.get_mut(*h) {
                if let Some(dv) = dv {
                    let v = b.linvel() + dv;
                    b.set_linvel(v, true);
                }
                b.wake_up(true);
            }
        }
        if let Some(rag) = self.creature_mut(id).and_then(|c| c.rag.as_mut()) {
            rag.still = 0.0;
            rag.rest.clear();
        }
    }

    /// Removes every rig from rapier (they are rebuilt from plain data when next needed).
    pub(super) fn drop_all_rigs(&mut self) {
        self.rigs.rigs.clear();
        self.rigs.worlds.clear();
    }

    /// Removes one creature's rig.
    pub(super) fn drop_rig(&mut self, id: CreatureId) {
        if let Some(mut r) = self.rigs.rigs.remove(&id) {
            if let Some(w) = self.rigs.worlds.get_mut(&r.world) {
                rig::remove(w, &mut r);
            }
        }
    }
}

#[cfg(test)]
mod tests;
