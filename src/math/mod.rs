//! Layer 0: pure math on glam — IK, curves, noise and frame helpers. No state, no I/O.

pub(crate) mod ballistic;
pub(crate) mod bezier;
pub(crate) mod curve;
pub(crate) mod frame;
pub(crate) mod ik;
pub(crate) mod noise;
pub(crate) mod spring;
pub(crate) mod spring_chain;

pub use ballistic::Ballistic;
pub use bezier::{BezierPath, ControlPoint};
pub use curve::{Curve, CurveError};
pub use ik::{two_bone, TwoBone};
pub use spring_chain::SpringParams;
