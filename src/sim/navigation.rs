//! The World's navigation: a navmesh per distinct set of agent settings, baked from the
//! level when first needed and again after the level changes (on a worker thread when the
//! World is told to, so the tick never waits; creatures with a destination stand until it
//! is ready), and each creature with a destination as a landmass agent.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use glam::Vec3;

use crate::locomotion::def::NavDef;
use crate::nav::mesh::BakeError;
use crate::nav::{NavInput, NavMesh, NavSettings, Navigator};

/// A creature's destination.
#[derive(Clone, Debug, PartialEq)]
pub struct NavGoal {
    /// Where it was asked to go.
    pub dest: Vec3,
    /// Where it is going: `dest` on the navmesh (or the closest reachable point).
    pub target: Option<Vec3>,
    /// Reached (within `nav.stopping_distance`).
    pub arrived: bool,
    /// Not yet an agent (new, or the navmesh changed).
    pub pending: bool,
}

/// The settings a creature type's `nav` table bakes for.
pub fn settings_of(nav: &NavDef) -> NavSettings {
    NavSettings {
        radius: nav.radius,
        height: nav.height,
        max_slope: nav.max_slope,
        step_height: nav.step_height,
    }
}

enum Entry {
    Ready(Box<Navigator>),
    Baking(JoinHandle<Result<NavMesh, BakeError>>),
    Failed(String),
}

/// One bake: its level version and where it stands.
struct Slot {
    version: u64,
    entry: Entry,
    /// How long the bake took (for reports and benches).
    took: Option<Duration>,
    started: std::time::Instant,
}

/// All navmeshes of a World.
#[derive(Default)]
pub struct NavWorld {
    slots: BTreeMap<[u32; 4], Slot>,
    /// Bake on worker threads (the window, `--realtime`); otherwise bakes block the tick
    /// that needs them, which keeps headless runs deterministic.
    pub background: bool,
}

/// Whether a navmesh can be used now.
pub enum Status<'a> {
    /// Ready.
    Ready(&'a mut Navigator),
    /// Being baked.
    Baking,
    /// The bake failed (why).
    Failed(String),
}

impl NavWorld {
    /// The navigator for `s` on the level at `version`, baking it if needed: on a worker
    /// thread when bakes run in the background (then `Baking` until it is done), else here.
    pub fn get(
        &mut self,
        s: NavSettings,
        version: u64,
        input: &dyn Fn() -> NavInput,
    ) -> Status<'_> {
        let wait = !self.background;
        self.fetch(s, version, input, wait)
    }

    /// The navigator for `s` now: baked here if missing, or waited for if a background
    /// bake is running (queries that must answer at once).
    pub fn get_now(
        &mut self,
        s: NavSettings,
        version: u64,
        input: &dyn Fn() -> NavInput,
    ) -> Status<'_> {
        self.fetch(s, version, input, true)
    }

    fn fetch(
        &mut self,
        s: NavSettings,
        version: u64,
        input: &dyn Fn() -> NavInput,
        wait: bool,
    ) -> Status<'_> {
        let key = s.key();
        let stale = self
            .slots
            .get(&key)
            .is_none_or(|slot| slot.version != version);
        if stale {
            let started = std::time::Instant::now();
            let (entry, took) = if wait {
                (finish(NavMesh::bake(&input(), s)), Some(started.elapsed()))
            } else {
                let input = input();
                let h = std::thread::spawn(move || NavMesh::bake(&input, s));
                (Entry::Baking(h), None)
            };
            self.slots.insert(
                key,
                Slot {
                    version,
                    entry,
                    took,
                    started,
                },
            );
        }
        let Some(slot) = self.slots.get_mut(&key) else {
            return Status::Failed("no navmesh".into());
        };
        if matches!(&slot.entry, Entry::Baking(h) if wait || h.is_finished()) {
            let Entry::Baking(h) = std::mem::replace(&mut slot.entry, Entry::Failed(String::new()))
            else {
                return Status::Baking;
            };
            slot.entry = match h.join() {
                Ok(r) => finish(r),
                Err(_) => Entry::Failed("the navmesh bake crashed".into()),
            };
            slot.took = Some(slot.started.elapsed());
        }
        match &mut slot.entry {
            Entry::Ready(n) => Status::Ready(n),
            Entry::Baking(_) => Status::Baking,
            Entry::Failed(e) => Status::Failed(e.clone()),
        }
    }

    /// The navigator for `s` if it is baked for the level at `version` (never bakes).
    pub fn peek(&self, s: NavSettings, version: u64) -> Option<&Navigator> {
        let slot = self
            .slots
            .get(&s.key())
            .filter(|sl| sl.version == version)?;
        match &slot.entry {
            Entry::Ready(n) => Some(n),
            _ => None,
        }
    }

    /// Every ready navigator.
    pub fn ready(&mut self) -> impl Iterator<Item = &mut Navigator> {
        self.slots.values_mut().filter_map(|s| match &mut s.entry {
            Entry::Ready(n) => Some(&mut **n),
            _ => None,
        })
    }

    /// Ready navmeshes (for drawing), with how long each bake took.
    pub fn meshes(&self) -> Vec<(Arc<NavMesh>, Option<Duration>)> {
        self.slots
            .values()
            .filter_map(|s| match &s.entry {
                Entry::Ready(n) => Some((n.mesh.clone(), s.took)),
                _ => None,
            })
            .collect()
    }

    /// Drops every agent (after a checkpoint restore or a reload: they are re-added).
    pub fn clear_agents(&mut self) {
        for n in self.ready() {
            let keys: Vec<u32> = n.agent_keys().collect();
            for k in keys {
                n.remove_agent(k);
            }
        }
    }
}

fn finish(r: Result<NavMesh, BakeError>) -> Entry {
    match r
        .map_err(|e| e.to_string())
        .and_then(|m| Navigator::new(Arc::new(m)))
    {
        Ok(n) => Entry::Ready(Box::new(n)),
        Err(e) => Entry::Failed(e),
    }
}
