//! skitter: a runtime for procedurally animated, script-defined creatures.
//!
//! Layers (each imports only those below it): [`math`] → [`locomotion`], [`model`] → [`sim`] →
//! [`script`], [`editor`], [`headless`] and [`scaffold`] → [`render`] and [`app`]. See
//! `ARCHITECTURE.md`.
#![warn(missing_docs)]
#![warn(unreachable_pub)]

pub mod app;
pub mod audio;
pub mod editor;
pub mod headless;
pub mod locomotion;
pub mod math;
pub mod model;
pub mod nav;
pub mod net;
pub mod path;
pub mod render;
pub mod scaffold;
pub mod script;
pub mod sim;

/// mimalloc for everything skitter runs (the binary, tests and benches link this crate):
/// it keeps allocations of one size together, so a crowd's many small Lua tables (each
/// creature's handle, `state` and `params`) and its per-creature vectors sit on few pages
/// instead of one creature's worth of pages apart — walking a crowd touches far fewer
/// pages — and it is quicker than the system allocator for the small, short-lived
/// allocations of a tick.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
