//! Plain data the host and every mod's API share: types and behaviours registered, brain
//! requests, log lines, camera requests, spawn bookkeeping for reloads. Never a Lua value.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

use glam::Vec3;

use super::plain::Plain;
use crate::math::bezier::BezierPath;
use crate::math::Curve;
use crate::sim::CreatureId;

/// How loud a log line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogLevel {
    /// `log.info`, `print`.
    Info,
    /// `log.warn`, and the host's warnings about a mod.
    Warn,
    /// `log.error`.
    Error,
}

impl LogLevel {
    /// "info", "warn" or "error".
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Info => "info",
            LogLevel::Warn => "warn",
            LogLevel::Error => "error",
        }
    }
}

/// A log line from a mod (`log.info/warn/error`, `print`).
#[derive(Clone, Debug, PartialEq)]
pub struct LogLine {
    /// Mod name.
    pub mod_name: String,
    /// How loud.
    pub level: LogLevel,
    /// The text.
    pub text: String,
}

/// Where a creature's callbacks come from.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum BrainKind {
    /// A behaviour defined with `behaviour.define` (by its unqualified name).
    Behaviour(String),
    /// The callbacks carried by the creature type itself (by its qualified name).
    Type(String),
}

/// A request to (re)attach a brain, applied by the host between callbacks.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct BrainRequest {
    /// The creature.
    pub id: CreatureId,
    /// The mod whose state runs the brain.
    pub mod_name: String,
    /// Which callbacks.
    pub kind: BrainKind,
    /// Params given at spawn / set_behaviour (merged over the behaviour's defaults).
    pub params: Plain,
}

/// What the host knows about a registered creature type.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct TypeMeta {
    /// Mod that defined it.
    pub mod_name: String,
    /// Unqualified name.
    pub bare: String,
    /// Default brain (`behaviour = "..."`), unresolved.
    pub default_behaviour: Option<String>,
    /// Whether the type table carries callbacks.
    pub has_callbacks: bool,
    /// Where it was defined (`mod/file.lua:LINE`).
    pub defined_at: Option<String>,
}

/// What a camera on a path looks at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LookAt {
    /// A creature.
    Creature(CreatureId),
    /// A point.
    Point(Vec3),
}

/// What a script asked of the camera (`camera.follow`, `camera.look`, `camera.path`); the
/// window applies it.
#[derive(Clone, Debug, PartialEq)]
pub enum CameraRequest {
    /// Fly along a path over `duration` seconds of simulation time, eased by `ease`.
    Path {
        /// The path.
        path: Arc<BezierPath>,
        /// Seconds from start to end.
        duration: f32,
        /// Progress 0..1 over time 0..1.
        ease: Curve,
        /// Look at this (else along the path).
        look_at: Option<LookAt>,
    },
    /// Keep this creature in view.
    Follow(CreatureId),
    /// Look from a point at a point.
    Look {
        /// Eye position.
        from: Vec3,
        /// Point looked at.
        at: Vec3,
    },
}

/// A sound a script asked for (`c:play`, `sound.play`).
#[derive(Clone, Debug, PartialEq)]
pub struct SoundRequest {
    /// Which (an index into `audio::SOUNDS`).
    pub sound: usize,
    /// Where: a creature (its body, when the sound starts) or a point.
    pub at: SoundAt,
    /// Times its level.
    pub volume: f32,
    /// Times its rate.
    pub pitch: f32,
}

impl SoundRequest {
    /// Where it sounds in `world` now (`None`: its creature is gone).
    pub fn position(&self, world: &crate::sim::World) -> Option<Vec3> {
        match self.at {
            SoundAt::Point(p) => Some(p),
            SoundAt::Creature(id) => world.creature(id).map(|c| c.body_pose().0),
        }
    }
}

/// Where a requested sound is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SoundAt {
    /// At a creature's body.
    Creature(CreatureId),
    /// At a point.
    Point(Vec3),
}

/// State shared by all mods of one host (plain data only: never a Lua value).
#[derive(Clone, Debug, Default)]
pub(super) struct Shared {
    /// Behaviours: (mod, name).
    pub behaviours: BTreeSet<(String, String)>,
    /// Creature types by qualified name.
    pub types: BTreeMap<String, TypeMeta>,
    /// Brain changes to apply.
    pub brain_requests: Vec<BrainRequest>,
    /// Log lines to show.
    pub logs: Vec<LogLine>,
    /// Creatures spawned, with the mod that spawned them.
    pub spawned: Vec<(String, CreatureId)>,
    /// Camera requests, oldest first.
    pub camera: Vec<CameraRequest>,
    /// Sound requests, oldest first (the oldest dropped past `MAX_SOUND_REQUESTS`).
    pub sounds: VecDeque<SoundRequest>,
    /// The time scale a script asked for last (`world.set_time_scale`), not yet taken.
    pub time_scale: Option<f64>,
    /// The mod whose entry script is running (load or reload), if any.
    pub loading: Option<String>,
    /// The creature whose callback is running, if any (queries that depend on the caller,
    /// like `world.random_nav_point`, use its type).
    pub calling: Option<CreatureId>,
    /// Spawns made by entry scripts: (mod, qualified type, id), in call order. A reload
    /// matches the new version's spawns against these by (type, order).
    pub load_spawns: Vec<(String, String, CreatureId)>,
    /// During a reload: the previous version's load-time creatures still to be matched, by
    /// type, in call order. A matching `world.spawn` returns the kept creature.
    pub reuse: BTreeMap<String, VecDeque<CreatureId>>,
    /// Creatures a reload kept (matched), for the host to carry their state over.
    pub kept: Vec<CreatureId>,
    /// Most creatures one mod may have alive (a user setting, never a mod's).
    pub max_creatures: usize,
    /// Largest asset file a mod may load, bytes (a user setting; 0 before a host sets it:
    /// the default).
    pub max_asset_bytes: u64,
    /// Spawns per mod since its alive count was last taken (for the cap).
    pub spawn_count: BTreeMap<String, usize>,
    /// `skitter check`: definition errors are collected and scripts go on.
    pub check_mode: bool,
    /// Errors collected in check mode: (mod, "mod/file.lua:LINE: message").
    pub check_errors: Vec<(String, String)>,
    /// Path files loaded (`path.load`), by key `"mod/name"`: the bytes the World's shape
    /// came from (the path editor compares them with the disk before it writes).
    pub path_files: BTreeMap<String, PathSource>,
    /// (mod, other mod whose modules it `require`d): the dependents a reload must re-run.
    pub required: BTreeSet<(String, String)>,
    /// Asset files mods loaded: (mod, file in the mod, what it is), for `skitter check`.
    pub assets: BTreeSet<(String, String, &'static str)>,
}

/// A path file a mod loaded.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PathSource {
    /// The mod.
    pub mod_name: String,
    /// The path's name (`paths/NAME.toml`).
    pub name: String,
    /// The file's bytes when it was loaded (or last written by the editor).
    pub bytes: Vec<u8>,
}
