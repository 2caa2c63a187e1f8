//! Layer 0: pure math on glam — IK, curves, noise and frame helpers. No state, no I/O.

pub mod bezier;
pub mod curve;
pub mod frame;
pub mod ik;
pub mod noise;
pub mod spring;

pub use curve::{Curve, CurveError};
pub use ik::{two_bone, TwoBone};
