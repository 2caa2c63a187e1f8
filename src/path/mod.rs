//! Layer 1: following Bézier paths at a speed: arc-length stepping, loop / ping-pong / once,
//! a speed curve over progress, and the heading a follower takes.

pub(crate) mod follower;

pub use follower::{LoopMode, PathFollower, RotationMode};
