//! Layer 4: drawing. Reads sim [`Snapshot`](crate::sim::Snapshot)s and the static level, never
//! the live World. CPU-side instance building (`instances`), the camera, procedural meshes,
//! the wgpu renderer (`gpu`), and offscreen rendering to PNG (`offscreen`).

pub mod camera;
pub mod gpu;
pub mod instances;

pub mod mesh;
pub mod offscreen;

pub use camera::OrbitCamera;
pub use gpu::{RenderError, Renderer};
pub use instances::{DebugFlags, FrameInstances};

/// The WGSL of the scene, built in: used when `shaders/scene.wgsl` cannot be read.
pub const SCENE_WGSL: &str = include_str!("../../shaders/scene.wgsl");
