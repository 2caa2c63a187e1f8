//! skitter: a runtime for procedurally animated, script-defined creatures.
//!
//! Layers (each imports only those below it): [`math`] → [`locomotion`] → [`sim`] →
//! [`script`], [`editor`], [`headless`] and [`scaffold`] → [`render`] and [`app`]. See
//! `ARCHITECTURE.md`.
#![warn(missing_docs)]
#![warn(unreachable_pub)]

pub mod app;
pub mod editor;
pub mod headless;
pub mod locomotion;
pub mod math;
pub mod nav;
pub mod path;
pub mod render;
pub mod scaffold;
pub mod script;
pub mod sim;
