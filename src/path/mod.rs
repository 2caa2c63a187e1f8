//! Layer 1: following Bézier paths at a speed: arc-length stepping, loop / ping-pong / once,
//! a speed curve over progress, and the heading a follower takes.

pub(crate) mod follower;

pub use follower::{LoopMode, PathFollower, RotationMode};

/// Whether a follower's `source` names an inline `path.bezier` (`"mod/file.lua:LINE"`) rather
/// than a named path file (`"mod/NAME"`, where names have no `.` or `:`).
pub fn is_inline_source(source: &str) -> bool {
    source.contains(".lua:") || source.contains(".luau:")
}
