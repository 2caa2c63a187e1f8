//! Layer 4: drawing. Reads sim [`Snapshot`](crate::sim::Snapshot)s and the static level, never
//! the live World. CPU-side instance building (`instances`), the camera, procedural meshes,
//! the wgpu renderer (`gpu`), and offscreen rendering to PNG (`offscreen`).

pub(crate) mod camera;
pub(crate) mod gpu;
pub(crate) mod instances;

pub(crate) mod mesh;
pub(crate) mod offscreen;
mod pipelines;
pub(crate) mod skinned;

pub use camera::OrbitCamera;
pub use gpu::ShaderError;
pub use gpu::{FrameStats, RenderError, Renderer};
pub use instances::{DebugFlags, FrameInstances, UnknownLayer, DEBUG_LAYERS};
pub use offscreen::Offscreen;

/// The WGSL of the scene, built in: used when `shaders/scene.wgsl` cannot be read.
pub const SCENE_WGSL: &str = include_str!("../../shaders/scene.wgsl");
