//! The World's navmeshes: one per distinct set of agent settings, baked from the level (with
//! its links) when first needed and again after the level changes — on a worker thread when
//! the World is told to, so the tick never waits (creatures with a destination stand until
//! it is ready) — and kept by level version.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::nav::links::Baked;
use crate::nav::mesh::BakeError;
use crate::nav::{NavInput, NavMesh, NavSettings, Navigator};

enum Entry {
    Ready(Box<Navigator>),
    Baking(JoinHandle<Result<Baked, BakeError>>),
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
pub(crate) struct NavWorld {
    slots: BTreeMap<[u32; 12], Slot>,
    /// Bake on worker threads (the window, `--realtime`); otherwise bakes block the tick
    /// that needs them, which keeps headless runs deterministic.
    pub background: bool,
}

/// Whether a navmesh can be used now.
pub(crate) enum Status<'a> {
    /// Ready.
    Ready(&'a mut Navigator),
    /// Being baked.
    Baking,
    /// The bake failed (why).
    Failed(String),
}

impl NavWorld {
    /// Defers the crowd updates `step_nav` planned (see [`Navigator::defer_planned`]).
    pub(crate) fn defer_planned(&mut self) {
        for n in self.ready() {
            n.defer_planned();
        }
    }

    /// Runs the crowd updates `step_nav` deferred (those not taken to run elsewhere).
    pub(crate) fn run_deferred(&mut self) {
        for n in self.ready() {
            n.run_deferred();
        }
    }

    /// The crowd updates `step_nav` deferred, to run elsewhere (see
    /// [`Navigator::take_crowd_update`]).
    pub(crate) fn take_crowd_updates(&mut self) -> Vec<crate::nav::CrowdUpdate> {
        self.ready().filter_map(|n| n.take_crowd_update()).collect()
    }

    /// The navigator for `s` on the level at `version`, baking it if needed: on a worker
    /// thread when bakes run in the background (then `Baking` until it is done), else here.
    pub(crate) fn get(
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
    pub(crate) fn get_now(
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
                (
                    finish(crate::nav::links::bake(&input(), s)),
                    Some(started.elapsed()),
                )
            } else {
                let input = input();
                let h = std::thread::spawn(move || crate::nav::links::bake(&input, s));
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
    pub(crate) fn peek(&self, s: NavSettings, version: u64) -> Option<&Navigator> {
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
    pub(crate) fn ready(&mut self) -> impl Iterator<Item = &mut Navigator> {
        self.slots.values_mut().filter_map(|s| match &mut s.entry {
            Entry::Ready(n) => Some(&mut **n),
            _ => None,
        })
    }

    /// Ready navmeshes (for drawing), with how long each bake took.
    pub(crate) fn meshes(&self) -> Vec<(Arc<NavMesh>, Option<Duration>)> {
        self.slots
            .values()
            .filter_map(|s| match &s.entry {
                Entry::Ready(n) => Some((n.mesh.clone(), s.took)),
                _ => None,
            })
            .collect()
    }

    /// Every ready navigator's links, with whether each is still taken (not found blocked).
    pub(crate) fn links(&self) -> Vec<(crate::nav::NavLink, bool)> {
        let mut out = Vec::new();
        for s in self.slots.values() {
            if let Entry::Ready(n) = &s.entry {
                out.extend(
                    n.links()
                        .iter()
                        .enumerate()
                        .map(|(i, l)| (l.clone(), n.link_enabled(i))),
                );
            }
        }
        out
    }

    /// Drops every agent (after a checkpoint restore or a reload: they are re-added).
    pub(crate) fn clear_agents(&mut self) {
        for n in self.ready() {
            n.clear_agents();
        }
    }
}

fn finish(r: Result<Baked, BakeError>) -> Entry {
    match r.and_then(|b| Navigator::new(Arc::new(b.mesh), b.links)) {
        Ok(n) => Entry::Ready(Box::new(n)),
        Err(e) => Entry::Failed(e.to_string()),
    }
}
