//! Layer 2: the World — owns all simulation state (static level in rapier, creature types,
//! creatures), steps it at a fixed 60 Hz, and answers queries. No scripting, no rendering.

mod checkpoint;
mod ground;
pub mod level;
mod level_edits;
pub mod navigation;
pub mod record;
pub mod snapshot;
pub mod world;

pub use checkpoint::WorldCheckpoint;
pub use ground::RayHit;
pub use level_edits::LevelPiece;

pub use level::{BoxDesc, GroundDesc, HeightSource, StairsDesc};
pub use record::{Header, Recorder, Replay, ReplayError};
pub use snapshot::{CreatureView, LegPose, Snapshot};
pub use world::{Command, Creature, CreatureId, CreatureType, TypeId, World, WorldEvent, TICK_DT};
