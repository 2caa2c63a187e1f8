//! Layer 3: scripting — one sandboxed Luau state per mod, the Lua API bindings, mod
//! manifests and load order, budgets. Errors stop at this boundary, named `mod/file.lua:LINE`.
//!
//! Outside this module only the host and its plain outputs are visible: everything else is
//! the host's business.

mod api;
pub(crate) mod budget;
pub mod console;
pub(crate) mod convert;
mod error;
mod host;
mod manifest;
mod output;
pub mod package;
pub(crate) mod path_file;
mod plain;
pub mod profile;
mod shared;
mod source;
mod watch;

pub use budget::{
    API_CALL_UNITS, DEFAULT_WORK_AT_LOAD, DEFAULT_WORK_PER_CREATURE, DEFAULT_WORK_PER_TICK,
};
pub use error::ScriptError;
pub use host::{
    api_surface, discover, BrainState, HostOptions, ModReport, PathFile, ReloadReport, ScriptHost,
    BRAIN_BACKOFF, BRAIN_FAILURES, CONSOLE_MOD, DEFAULT_MIGRATE_PER_TICK,
};
pub use manifest::{Dependency, DependencyError, Manifest, ManifestError, MANIFEST_KEYS};
pub use output::HostOutput;
pub use shared::{CameraRequest, LogLevel, LogLine, LookAt, SoundAt, SoundRequest};
pub use source::{read_script, SourceError, MAX_SCRIPT_BYTES};
pub use watch::WatchError;

/// Every Lua function of the API (by the names the editor definitions use: `world.spawn`,
/// `Creature:move`) with its parameters, `(name, optional)` in order; `None` for a function
/// of any number of arguments (`print`). The shipped definitions are tested against it.
pub fn api_signatures() -> std::collections::BTreeMap<String, Option<Vec<(String, bool)>>> {
    api::signatures()
}
