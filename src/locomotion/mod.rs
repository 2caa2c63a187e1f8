//! Layer 1: procedural legged locomotion — definitions and their validation, the gait
//! scheduler, foot placement and stepping, leg IK and body posture. Asks the ground through
//! [`GroundQuery`]; knows nothing of physics engines, scripts or rendering.

pub mod def;
pub mod gait;
pub mod ground;
pub mod lean;
pub mod locomotor;
pub mod posture;
pub mod tuning;

pub use def::{CreatureDef, DefError, HeadDef, LeanDef, ValidCreatureDef};
pub use gait::GaitParams;
pub use ground::{FlatGround, GroundQuery};
pub use lean::LeanState;
pub use locomotor::{Intent, Locomotor, StepEvent};
