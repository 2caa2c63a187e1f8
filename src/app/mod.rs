//! Layer 4: the application — the winit window with its egui overlay, input and camera
//! control, shader hot reload, and the offscreen screenshot runner. Uses every layer below.

mod clock;
mod console_panel;
mod join;
mod join_window;
pub(crate) mod muscles;
mod path_edit;
mod profile_panel;
pub(crate) mod screenshot;
pub(crate) mod shader_watch;
pub(crate) mod speaker;
pub(crate) mod ui;
pub(crate) mod view;
pub(crate) mod window;

pub use join::shoot_viewer;
pub use join_window::{run_join_window, JoinWindowOptions};
pub use screenshot::{shoot, ShotOptions, ShotReport};
pub use shader_watch::{ShaderWatch, ShaderWatchError};
pub use window::{
    display_available, run as run_window, run_with as run_window_with, WindowOptions,
};

/// Where the WGSL lives on disk (for hot reload): `./shaders`, else the source tree's.
pub fn shader_dir() -> std::path::PathBuf {
    let here = std::path::PathBuf::from("shaders");
    if here.join("scene.wgsl").is_file() {
        return here;
    }
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("shaders")
}

/// The scene WGSL from disk, or the built-in copy.
pub fn scene_shader() -> String {
    std::fs::read_to_string(shader_dir().join("scene.wgsl"))
        .unwrap_or_else(|_| crate::render::SCENE_WGSL.to_string())
}
