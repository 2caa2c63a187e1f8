//! Layer 2: the World — owns all simulation state (static level in rapier, creature types,
//! creatures), steps it at a fixed 60 Hz, and answers queries. No scripting, no rendering.

mod bodies;
mod breath;
mod checkpoint;
mod climb_nav;
mod creature;
mod detail;
mod facing;
mod ground;
pub(crate) mod level;
mod level_edits;
mod links;
pub(crate) mod model_pose;
mod nav_world;
pub(crate) mod navigation;
mod near;
mod paths;
mod puppets;
pub(crate) mod ragdoll;
pub(crate) mod record;
pub(crate) mod snapshot;
pub(crate) mod springs;
pub(crate) mod surfaces;
mod types;
pub(crate) mod world;

pub use checkpoint::WorldCheckpoint;
pub use detail::{Detail, DEFAULT_DETAIL_EVERY, DEFAULT_DETAIL_RADIUS};
pub use facing::{Facing, ReachTo};
pub use ground::RayHit;
pub use level_edits::LevelPiece;
pub use links::{jump_settings, JumpLimits, JumpRefused, LinkDesc, LinkUse};
pub use model_pose::{generated_model, limb_points, plan_record, pose_creature, PoseScratch};
pub use near::NearFilter;
pub use puppets::Drive;
pub use springs::{Tune, Tuned};

pub use level::{BoxDesc, GroundDesc, HeightSource, Level, PieceDesc, PieceTag, StairsDesc};
pub use navigation::settings_of;
pub use paths::Adopt;
pub use ragdoll::rig::rig_chains;
pub use ragdoll::{
    parts_from, Part, PhysicsGroups, Ragdoll, RagdollCause, RagdollPhase, RagdollRequest,
    RigJointView, DEFAULT_MAX_RAGDOLLS, FOREVER,
};
pub use record::{Header, Recorder, Replay, ReplayError};
pub use snapshot::{Crease, CreatureView, LegPose, Motion, Snapshot};
pub use world::{
    Command, Creature, CreatureId, CreatureType, StepTimes, TypeId, TypeSounds, World, WorldEvent,
    TICK_DT,
};

/// The machine's cores: the default thread count, and the most workers a physics world's
/// solve is shared out to. Read once (the standard library asks the OS, and its cgroups,
/// each time).
pub fn cores() -> usize {
    static CORES: std::sync::LazyLock<usize> =
        std::sync::LazyLock::new(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    *CORES
}
