//! The script host: discovers and loads mods (one sandboxed Luau state each), runs their
//! callbacks every tick under CPU and memory budgets, and contains their failures.
//!
//! - `load`: discovery, manifests, load order, the per-mod transaction, fresh states;
//! - `tick`: brains, callbacks under budgets, events to callbacks;
//! - `check`: `skitter check` and the API surface listing;
//! - `reload`: watching and hot reload, one transaction per mod;
//! - `paths`: path files saved (or written by the path editor) change their paths' shapes.

mod check;
mod console;
mod depends;
mod load;
mod migrate;
mod paths;
mod profiling;
mod reload;
mod tick;
mod updates;

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::rc::Rc;
use std::time::Duration;

use glam::Vec3;
use mlua::{Function, Lua, Table};

pub use check::{api_surface, ModReport};
pub use console::CONSOLE_MOD;
pub use load::discover;
pub use paths::PathFile;
pub use reload::ReloadReport;

use super::budget::{Budget, Overrun};
use super::convert::CALLBACKS;
use super::error::{root_message, ScriptError};
use super::manifest::Manifest;
use super::output::HostOutput;
use super::shared::{BrainKind, BrainRequest, CameraRequest, LogLine, Shared};
use crate::sim::{Command, CreatureId, World};

/// Limits and seed for a host.
#[derive(Clone, Debug)]
pub struct HostOptions {
    /// Seed for the world and for every mod's `math.random`.
    pub seed: u64,
    /// Work units each mod may use per tick, across all its callbacks, before counting its
    /// creatures (see [`super::budget`]: deterministic, whatever the machine's load).
    pub work_per_tick: u64,
    /// Work units added to a mod's tick allowance for each creature its brains drive.
    pub work_per_creature: u64,
    /// Work units a mod's load (its entry script) may take.
    pub work_at_load: u64,
    /// Wall-clock backstop per mod per tick (a host call that runs long).
    pub cpu_per_tick: Duration,
    /// Wall-clock backstop for a mod's load.
    pub cpu_at_load: Duration,
    /// Memory each mod's Lua state may use, bytes.
    pub memory_limit: usize,
    /// Most creatures one mod may have alive (0: no limit).
    pub max_creatures: usize,
    /// Most creatures in physics (active ragdolls) at once.
    pub max_ragdolls: usize,
    /// Largest asset file (a model, its buffers and images) a mod may load, bytes.
    pub max_asset_bytes: u64,
    /// Threads for the tick's per-creature work (1: the calling thread only). Results are
    /// identical at any count.
    pub threads: usize,
    /// Level of detail (`sim::Detail`): far creatures update every few ticks. `None`
    /// (the default, and headless runs unless asked): everything at full detail.
    pub detail: Option<crate::sim::Detail>,
    /// The most brains a hot reload moves into its mod's new state per tick (it moves a
    /// third of them a tick, at least 128: see `migrate`): a save with thousands of
    /// creatures alive is spread over a few frames instead of stalling one.
    pub migrate_per_tick: usize,
    /// Folders a mod's missing dependencies are looked up in (each one level down), after
    /// the folders beside the mods given: empty (the default), no lookup — only the mods
    /// given load. The command line gives the bundled `scripts/` and the user mods folder.
    pub mod_search: Vec<std::path::PathBuf>,
}

impl Default for HostOptions {
    fn default() -> Self {
        HostOptions {
            seed: 0,
            work_per_tick: super::budget::DEFAULT_WORK_PER_TICK,
            work_per_creature: super::budget::DEFAULT_WORK_PER_CREATURE,
            work_at_load: super::budget::DEFAULT_WORK_AT_LOAD,
            cpu_per_tick: Duration::from_millis(250),
            cpu_at_load: Duration::from_secs(10),
            memory_limit: 64 << 20,
            max_creatures: 4096,
            max_ragdolls: crate::sim::DEFAULT_MAX_RAGDOLLS,
            max_asset_bytes: crate::model::DEFAULT_MAX_ASSET_MB << 20,
            threads: crate::sim::cores(),
            detail: None,
            migrate_per_tick: DEFAULT_MIGRATE_PER_TICK,
            mod_search: Vec::new(),
        }
    }
}

/// The most brains a reload moves per tick by default: about 12 ms of work for the bundled
/// spider's wander brain on this project's 2-core machine class (under a 60 Hz frame with a
/// tick of a few hundred creatures). Up to 1 500 creatures are all on the new code two
/// ticks after the save; 10 000 take 20 ticks.
pub const DEFAULT_MIGRATE_PER_TICK: usize = 512;

/// One loaded mod: its state and budget.
struct ModRuntime {
    manifest: Manifest,
    lua: Lua,
    budget: Rc<Budget>,
    suspended: Option<String>,
    /// The Lua side of batched `on_update` calls (built on the first tick).
    updates: Option<updates::UpdateBatch>,
    /// What its entry script cost: work units and the state's memory after it.
    load_cost: (u64, usize),
}

/// A callback a brain may have: its index into [`CALLBACKS`] (its Lua name) and into
/// [`Callbacks`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Callback {
    Spawn,
    Update,
    Arrive,
    Step,
    Lift,
    Hit,
    Reload,
    Despawn,
    Ragdoll,
    Recover,
    RecoverFailed,
    Surface,
    Link,
}

/// A brain kind's callbacks in the state of the mod that runs them, in [`CALLBACKS`]' order:
/// shared by every brain built from one template (a crowd's ten thousand hold one reference
/// into the state for each callback, not one each — fewer registry slots for the collector
/// to walk, and a small [`Brain`] to walk over every tick).
struct Callbacks([Option<Function>; CALLBACKS.len()]);

impl Callbacks {
    /// The callback `which`, if the kind has it.
    fn get(&self, which: Callback) -> Option<&Function> {
        self.0[which as usize].as_ref()
    }

    /// The name of the callback `f` is (`"callback"` if none: a closure).
    fn name_of(&self, f: &Function) -> &'static str {
        CALLBACKS
            .iter()
            .zip(&self.0)
            .find(|(_, cb)| cb.as_ref() == Some(f))
            .map_or("callback", |(name, _)| name)
    }
}

/// A creature's brain: its handle and its kind's callbacks, in the state of the mod that
/// runs them.
struct Brain {
    mod_idx: usize,
    kind: BrainKind,
    handle: Table,
    cb: Rc<Callbacks>,
    spawn_pending: bool,
    /// Its `on_update` follows the level of detail (`lod = true`): far, it runs on the
    /// creature's turns only (see `updates::lod_turns`).
    lod: bool,
    /// Runtime errors so far (a clean call does not reset it).
    failures: u32,
    /// Paused after an error: no callback runs before this frame.
    resume_at: Option<u64>,
}

/// A creature's brain as the trace reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BrainState {
    /// Its callbacks run.
    Running,
    /// Backing off after a runtime error.
    Paused,
    /// Detached after [`BRAIN_FAILURES`] errors (until its mod reloads).
    Detached,
    /// Its mod is suspended (over a budget, out of memory): nothing of it runs until the
    /// mod is reloaded.
    Suspended,
}

impl BrainState {
    /// "running", "paused", "detached" or "suspended".
    pub fn as_str(self) -> &'static str {
        match self {
            BrainState::Running => "running",
            BrainState::Paused => "paused",
            BrainState::Detached => "detached",
            BrainState::Suspended => "suspended",
        }
    }

    /// The state [`BrainState::as_str`] names.
    pub fn parse(s: &str) -> Option<BrainState> {
        [
            BrainState::Running,
            BrainState::Paused,
            BrainState::Detached,
            BrainState::Suspended,
        ]
        .into_iter()
        .find(|b| b.as_str() == s)
    }
}

/// Runtime errors a brain may make before it is detached (each one reported; between them
/// it backs off).
pub const BRAIN_FAILURES: u32 = 3;
/// The first back-off after a runtime error, ticks (1 s); it doubles with each error.
pub const BRAIN_BACKOFF: u64 = 60;

/// Loads mods and runs their callbacks around `World::step`.
pub struct ScriptHost {
    world: Rc<RefCell<World>>,
    shared: Rc<RefCell<Shared>>,
    mods: Vec<ModRuntime>,
    brains: BTreeMap<CreatureId, Brain>,
    /// Bumped whenever a brain is built (`apply_brain_requests`, the only place brains
    /// enter `brains`): a batched `on_update` list is rebuilt when it moved or when its
    /// creatures changed (a removed brain shows there), and `any_on_step` is worked out again
    /// (a removed brain can only leave it true when none is left: a few lookups, not wrong).
    brains_gen: u64,
    /// `(brains_gen, whether any brain has an on_step or an on_lift)` when last worked out.
    on_step_seen: (u64, bool),
    /// `World::removals` when `forget_gone` last looked for brains of gone creatures.
    removals_seen: u64,
    /// Creatures sent somewhere by hand (a click in the window): their brains wait.
    manual: BTreeMap<CreatureId, Vec3>,
    errors: Vec<ScriptError>,
    reported: BTreeSet<String>,
    opts: HostOptions,
    /// Replaying a record: no callbacks run; the record feeds the world instead.
    replaying: bool,
    /// Every mod discovered (valid manifest), by name, whether or not it loaded.
    known: BTreeMap<String, Manifest>,
    /// Where each mod came from: its folder, and for a dependency found by lookup where and
    /// for whom (see `depends`).
    origins: BTreeMap<String, String>,
    /// Mod folders unpacked from packages, with the package each came from.
    packages: Vec<(std::path::PathBuf, std::path::PathBuf)>,
    /// Mods running their last good version (or not running) because their latest files
    /// failed: the error that says why.
    broken: BTreeMap<String, ScriptError>,
    /// Reloads since the last `take_reloads`.
    reloads: Vec<ReloadReport>,
    /// Watches the mod folders (after `watch`).
    watcher: Option<super::watch::ModWatcher>,
    /// Creatures whose brains were detached after repeated errors, with what rebuilds the
    /// brain when its mod reloads.
    detached: BTreeMap<CreatureId, BrainRequest>,
    /// Brains of the last reloaded mod still moving into its new state.
    migration: Option<migrate::Migration>,
    /// The console's own state, once a console line ran in it.
    console: Option<console::ConsoleState>,
    /// Replaying: the brain states the record says creatures had (no brain runs then).
    replayed_brains: BTreeMap<CreatureId, Option<BrainState>>,
    /// The profiler, while profiling is on.
    profiler: Option<crate::script::profile::Profiler>,
}

impl ScriptHost {
    /// A host over an empty world.
    pub fn new(opts: HostOptions) -> ScriptHost {
        let mut world = World::new(opts.seed);
        world.set_max_ragdolls(opts.max_ragdolls);
        world.set_threads(opts.threads);
        // The crowds' navigation runs beside the brains (see `start_crowd_updates`).
        world.set_crowds_to_caller(true);
        world.set_detail(opts.detail.clone());
        ScriptHost {
            world: Rc::new(RefCell::new(world)),
            shared: Rc::new(RefCell::new(Shared {
                max_creatures: opts.max_creatures,
                max_asset_bytes: opts.max_asset_bytes,
                ..Shared::default()
            })),
            mods: Vec::new(),
            brains: BTreeMap::new(),
            brains_gen: 0,
            on_step_seen: (u64::MAX, false),
            removals_seen: 0,
            manual: BTreeMap::new(),
            errors: Vec::new(),
            reported: BTreeSet::new(),
            replaying: false,
            known: BTreeMap::new(),
            origins: BTreeMap::new(),
            packages: Vec::new(),
            broken: BTreeMap::new(),
            reloads: Vec::new(),
            watcher: None,
            detached: BTreeMap::new(),
            migration: None,
            console: None,
            replayed_brains: BTreeMap::new(),
            profiler: None,
            opts,
        }
    }

    /// Replay mode: ticks step the world without running any callback (a
    /// [`crate::sim::Replay`] feeds the world what the scripts and the user did).
    pub fn set_replaying(&mut self, on: bool) {
        self.replaying = on;
        if on {
            // A replay steps every creature as the recording did: at full detail (recording
            // turns the level of detail off too, see `sim::detail`).
            self.world.borrow_mut().set_detail(None);
        }
    }

    /// Work units (see [`super::budget`]) mod `name` used in the last tick, with its
    /// allowance: `(used, allowed)`.
    pub fn work_used(&self, name: &str) -> Option<(u64, u64)> {
        self.mods
            .iter()
            .find(|m| m.manifest.name == name)
            .map(|m| (m.budget.units_used(), m.budget.units_allowed()))
    }

    /// Replaying: creature `id`'s brain is in `state` from now on, as the record says.
    pub fn show_replayed_brain(&mut self, id: CreatureId, state: Option<&str>) {
        if self.replaying {
            self.replayed_brains
                .insert(id, state.and_then(BrainState::parse));
        }
    }

    /// Whether callbacks are off for a replay.
    pub fn replaying(&self) -> bool {
        self.replaying
    }

    /// The error a failed call into `budget`'s state turns into: the overrun, if the budget
    /// stopped it, else the script's own message and place.
    fn error_from(&self, mod_name: &str, budget: &Budget, e: &mlua::Error) -> ScriptError {
        if let Some(o) = budget.overrun.take() {
            let at = budget.overrun_at.borrow_mut().take();
            return ScriptError {
                mod_name: mod_name.to_string(),
                location: at,
                message: budget.overrun_message(o),
            };
        }
        if let mlua::Error::MemoryError(_) = e {
            return ScriptError::in_mod(mod_name, budget.overrun_message(Overrun::Memory));
        }
        ScriptError::from_text(mod_name, &root_message(e))
    }

    /// [`ScriptHost::error_from`] for a failed call of callback `cb`: an allocation that
    /// failed at once (Luau says no more than that) is placed at the start of the callback
    /// that made it.
    fn callback_error(
        &self,
        mod_name: &str,
        budget: &Budget,
        e: &mlua::Error,
        cb: Option<&Function>,
    ) -> ScriptError {
        let mut err = self.error_from(mod_name, budget, e);
        if let (None, Some(f), mlua::Error::MemoryError(_)) = (&err.location, cb, e) {
            let info = f.info();
            if let (Some(src), Some(line)) = (info.short_src, info.line_defined) {
                err.location = Some(format!("{src}:{line}"));
                err.message.push_str(" (in the callback that starts here)");
            }
        }
        err
    }

    /// Records an error to report, once per distinct text.
    fn report(&mut self, e: ScriptError) {
        let key = e.to_string();
        if self.reported.insert(key) {
            self.errors.push(e);
        }
    }

    /// Errors since the last call (each distinct error once).
    pub fn take_errors(&mut self) -> Vec<ScriptError> {
        std::mem::take(&mut self.errors)
    }

    /// Log lines since the last call.
    pub fn take_logs(&mut self) -> Vec<LogLine> {
        std::mem::take(&mut self.shared.borrow_mut().logs)
    }

    /// Reloads since the last call (for toasts and trace events).
    pub fn take_reloads(&mut self) -> Vec<ReloadReport> {
        std::mem::take(&mut self.reloads)
    }

    /// Everything the host has to say since the last call, in the order a console shows it:
    /// reloads, then log lines, then errors. Every driver (headless, window, screenshot)
    /// drains it the same way.
    pub fn drain_output(&mut self) -> Vec<HostOutput> {
        let mut out: Vec<HostOutput> = self
            .take_reloads()
            .into_iter()
            .map(HostOutput::Reload)
            .collect();
        out.extend(self.take_logs().into_iter().map(HostOutput::Log));
        out.extend(self.take_errors().into_iter().map(HostOutput::Error));
        out
    }

    /// The sounds scripts asked for since the last call, oldest first (taken).
    pub fn take_sound_requests(&mut self) -> Vec<crate::script::SoundRequest> {
        self.shared.borrow_mut().sounds.drain(..).collect()
    }

    /// The camera requests scripts made since the last call, oldest first (taken).
    pub fn take_camera_requests(&mut self) -> Vec<CameraRequest> {
        std::mem::take(&mut self.shared.borrow_mut().camera)
    }

    /// The time scale a script asked for since the last call (`world.set_time_scale`: the
    /// window's clock takes it; headless runs tick as fast as they go, or at real time).
    pub fn take_time_scale(&mut self) -> Option<f64> {
        self.shared.borrow_mut().time_scale.take()
    }

    /// Names of the mods running (loaded and not suspended), in load order.
    pub fn running_mods(&self) -> Vec<String> {
        self.mods
            .iter()
            .filter(|m| m.suspended.is_none())
            .map(|m| m.manifest.name.clone())
            .collect()
    }

    /// Names of all loaded mods, in load order.
    pub fn loaded_mods(&self) -> Vec<String> {
        self.mods.iter().map(|m| m.manifest.name.clone()).collect()
    }

    /// Mods whose latest files failed, with why: they run their last good version (or, if
    /// they never loaded, nothing) until a save loads cleanly.
    pub fn broken_mods(&self) -> &BTreeMap<String, ScriptError> {
        &self.broken
    }

    /// Mods stopped for going over budget, with why (a clean reload lifts it).
    pub fn suspended_mods(&self) -> Vec<(String, String)> {
        self.mods
            .iter()
            .filter_map(|m| m.suspended.clone().map(|s| (m.manifest.name.clone(), s)))
            .collect()
    }

    /// The folder of a loaded mod.
    pub fn mod_dir(&self, name: &str) -> Option<&Path> {
        self.mods
            .iter()
            .find(|m| m.manifest.name == name)
            .map(|m| m.manifest.dir.as_path())
    }

    /// Read access to the world.
    pub fn world(&self) -> std::cell::Ref<'_, World> {
        self.world.borrow()
    }

    /// Write access to the world (not while a script runs).
    pub fn world_mut(&self) -> std::cell::RefMut<'_, World> {
        self.world.borrow_mut()
    }

    /// Sends creature `id` to `dest` by hand: it walks there (`c:move` at its cruise speed),
    /// its brain paused, and resumes its brain on arrival. `None` cancels.
    pub fn send_to(&mut self, id: CreatureId, dest: Option<Vec3>) {
        match dest {
            Some(d) => {
                self.manual.insert(id, d);
                self.world
                    .borrow_mut()
                    .push(Command::SetDestination(id, d, None));
            }
            None => {
                if self.manual.remove(&id).is_some() {
                    self.world.borrow_mut().push(Command::ClearDestination(id));
                }
            }
        }
    }

    /// How creature `id`'s brain stands (`None`: it has none).
    pub fn brain_state(&self, id: CreatureId) -> Option<BrainState> {
        if let Some(s) = self.replayed_brains.get(&id) {
            return *s;
        }
        match self.brains.get(&id) {
            Some(b) if self.mods[b.mod_idx].suspended.is_some() => Some(BrainState::Suspended),
            Some(b) if b.resume_at.is_some() => Some(BrainState::Paused),
            Some(_) => Some(BrainState::Running),
            None if self.migrating(id) => Some(BrainState::Running),
            None if self.detached.contains_key(&id) => Some(BrainState::Detached),
            None => None,
        }
    }

    /// Creatures walking to a destination given by hand.
    pub fn destinations(&self) -> Vec<(CreatureId, Vec3)> {
        self.manual.iter().map(|(id, d)| (*id, *d)).collect()
    }
}

#[cfg(test)]
mod callback_tests {
    use super::{Callback, CALLBACKS};

    #[test]
    fn each_callback_indexes_its_own_name() {
        use Callback::*;
        let named = [
            (Spawn, "on_spawn"),
            (Update, "on_update"),
            (Arrive, "on_arrive"),
            (Step, "on_step"),
            (Lift, "on_lift"),
            (Hit, "on_hit"),
            (Reload, "on_reload"),
            (Despawn, "on_despawn"),
            (Ragdoll, "on_ragdoll"),
            (Recover, "on_recover"),
            (RecoverFailed, "on_recover_failed"),
            (Surface, "on_surface"),
            (Link, "on_link"),
        ];
        assert_eq!(named.len(), CALLBACKS.len(), "every callback has a variant");
        for (c, name) in named {
            assert_eq!(CALLBACKS[c as usize], name, "{c:?}");
        }
    }
}
