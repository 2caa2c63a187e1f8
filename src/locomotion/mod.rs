//! Layer 1: procedural legged locomotion — definitions and their validation, the gait
//! scheduler, foot placement and stepping, leg IK and body posture. Asks the ground through
//! [`GroundQuery`]; knows nothing of physics engines, scripts or rendering.

pub(crate) mod appendage;
pub(crate) mod arms;
pub(crate) mod body_def;
pub(crate) mod climb_def;
pub(crate) mod def;
pub(crate) mod gait;
pub(crate) mod ground;
pub(crate) mod lean;
pub(crate) mod locomotor;
pub(crate) mod nav_def;
pub(crate) mod physics;
pub(crate) mod posture;
pub(crate) mod style;
pub(crate) mod tuning;

pub use appendage::ChainDef;
pub use arms::{arm_chains, arm_points, ArmDef, ArmReach, Hand};
pub use def::{
    default_knee, BreatheDef, ClimbDef, CreatureDef, DefError, HeadDef, Heading, LeanDef, LookDef,
    ValidCreatureDef,
};
pub use gait::GaitParams;
pub use ground::{FlatGround, GroundHit, GroundQuery};
pub use lean::LeanState;
pub use locomotor::{
    swing_point, BodyPose, Climb, Crease, Intent, Jump, JumpPhase, Locomotor, PuppetFoot,
    PuppetRoot, StepEvent, StyleState, Surface,
};
pub use physics::{JointKind, JointOverride, Muscle, PhysicsDef};
pub use style::{GaitStyle, StyleDef, StylePattern};
