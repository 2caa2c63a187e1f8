//! Layer 3: scripting — one sandboxed Luau state per mod, the Lua API bindings, mod
//! manifests and load order, budgets. Errors stop at this boundary, named `mod/file.lua:LINE`.

pub mod api;
pub mod convert;
pub mod host;
pub mod manifest;
pub mod plain;
pub mod watch;

pub use api::{CameraRequest, LogLine};
pub use host::{api_surface, discover, HostOptions, ReloadReport, ScriptError, ScriptHost};
pub use manifest::{Dependency, Manifest};
