//! Hot reload: watching the mod folders, and one transaction per changed mod (then its
//! dependents) that swaps the new code in with creatures, overrides and state kept.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::PathBuf;
use std::time::{Instant, SystemTime};

use super::migrate::{plain_state, Migration};
use super::{Brain, ScriptHost};
use crate::script::error::ScriptError;
use crate::script::manifest::{load_order, Manifest};
use crate::script::plain::{Dropped, Plain};
use crate::script::watch::{ModWatcher, WatchError};
use crate::sim::{Command, CreatureId};

/// What one mod's reload did.
#[derive(Clone, Debug, PartialEq)]
pub struct ReloadReport {
    /// The mod.
    pub mod_name: String,
    /// Whether the new version is running (else the last good one still is).
    pub ok: bool,
    /// Files that changed, relative to the mod folder (empty when a dependency changed).
    pub files: Vec<String>,
    /// Milliseconds from the newest change's modification time to the new code being active
    /// (or, with no file times, the reload's own duration).
    pub ms: f64,
    /// Why it failed.
    pub error: Option<ScriptError>,
    /// The tick it happened at.
    pub frame: u64,
}

/// What a reload takes out of a mod's old state.
#[derive(Default)]
struct Carried {
    /// States of creatures whose new brains the new code already asked for: put back now.
    now: BTreeMap<CreatureId, Plain>,
    /// Old brains to move into the new state (in id order), a share per tick (`migrate`).
    later: Vec<(CreatureId, Brain)>,
    /// Values the states taken now could not carry.
    dropped: Dropped,
}

/// Changed files per mod, relative to each mod folder.
type Changed = BTreeMap<String, Vec<PathBuf>>;

/// The files of `name` that changed, as the reload report and trace list them.
fn changed_files(changed: &Changed, name: &str) -> Vec<String> {
    changed
        .get(name)
        .map(|f| f.iter().map(|p| p.display().to_string()).collect())
        .unwrap_or_default()
}

impl ScriptHost {
    /// Starts watching every discovered mod's folder (loaded or not: fixing a mod that
    /// failed to load loads it).
    pub fn watch(&mut self) -> Result<(), WatchError> {
        let dirs: Vec<(String, PathBuf)> = self
            .known
            .values()
            .map(|m| (m.name.clone(), m.dir.clone()))
            .collect();
        self.watcher = Some(ModWatcher::new(&dirs)?);
        Ok(())
    }

    /// Whether the mod folders are being watched.
    pub fn watching(&self) -> bool {
        self.watcher.is_some()
    }

    /// Reloads the mods whose files the watcher saw change (call between ticks). Returns
    /// what happened; the same reports are kept for [`ScriptHost::drain_output`].
    pub fn poll_reloads(&mut self) -> Vec<ReloadReport> {
        let changed = match &self.watcher {
            Some(w) => w.poll(),
            None => return Vec::new(),
        };
        if changed.is_empty() {
            return Vec::new();
        }
        self.reload(&changed)
    }

    /// Reloads after the files listed per mod changed (paths relative to each mod folder):
    /// each changed mod, then the loaded mods that depend on it, one transaction each.
    pub fn reload(&mut self, changed: &Changed) -> Vec<ReloadReport> {
        if self.replaying {
            return Vec::new();
        }
        // Path files change their paths' shapes; no script runs for them.
        let mut changed = changed.clone();
        let path_reports = self.reload_path_files(&mut changed);
        for e in path_reports.iter().filter_map(|r| r.error.as_ref()) {
            self.errors.push(e.clone());
        }
        self.reloads.extend(path_reports.iter().cloned());
        if changed.is_empty() {
            return path_reports;
        }
        let mut reports = self.reload_scripts(&changed);
        reports.splice(0..0, path_reports);
        reports
    }

    /// The script half of [`ScriptHost::reload`].
    fn reload_scripts(&mut self, changed: &Changed) -> Vec<ReloadReport> {
        // The newest change, for the save-to-running time.
        let newest = changed
            .iter()
            .flat_map(|(m, files)| {
                let dir = self.known.get(m).map(|k| k.dir.clone());
                files.iter().filter_map(move |f| {
                    let d = dir.as_ref()?;
                    std::fs::metadata(d.join(f)).ok()?.modified().ok()
                })
            })
            .max();
        let started = Instant::now();
        let mut reports = self.reread_manifests(changed);
        let (order, errs) = load_order(self.known.values().cloned().collect(), &|_| String::new());
        for (m, e) in errs {
            if changed.contains_key(&m) {
                let err = ScriptError::in_mod(&m, e);
                reports.push(self.report_for(&m, changed, 0.0, Err(err)));
            }
        }
        let all: BTreeMap<String, Manifest> =
            order.iter().map(|m| (m.name.clone(), m.clone())).collect();
        let mut bad: BTreeSet<String> = reports.iter().map(|r| r.mod_name.clone()).collect();
        // Which mods to reload: the changed ones and, after a good reload, their dependents.
        let mut redo: BTreeSet<String> = changed
            .keys()
            .filter(|m| !bad.contains(*m))
            .cloned()
            .collect();
        for m in &order {
            // A dependent of a mod reloaded cleanly reloads too when it runs that mod's
            // code (it `require`d a module of it: its copy is the old one). One that only
            // names the mod's types and behaviours does not: those are looked up by name,
            // and its creatures already took the new definitions.
            let dep_reloaded = m.depends.iter().any(|d| {
                redo.contains(&d.name)
                    && !bad.contains(&d.name)
                    && self.is_loaded(&m.name)
                    && self
                        .shared
                        .borrow()
                        .required
                        .contains(&(m.name.clone(), d.name.clone()))
            });
            if !redo.contains(&m.name) && !dep_reloaded {
                continue;
            }
            redo.insert(m.name.clone());
            let missing = m
                .depends
                .iter()
                .find(|d| !d.optional && !self.is_loaded(&d.name) && !redo.contains(&d.name));
            let (outcome, ms) = match missing {
                Some(d) => {
                    let e = format!("not loaded: its dependency \"{}\" is not running", d.name);
                    (Err(ScriptError::in_mod(&m.name, e)), 0.0)
                }
                None => {
                    let outcome = self.reload_one(m, &all);
                    let ms = match newest {
                        Some(t) => SystemTime::now()
                            .duration_since(t)
                            .map(|d| d.as_secs_f64() * 1e3)
                            .unwrap_or(0.0),
                        None => started.elapsed().as_secs_f64() * 1e3,
                    };
                    (outcome, ms)
                }
            };
            if outcome.is_err() {
                bad.insert(m.name.clone());
            }
            reports.push(self.report_for(&m.name, changed, ms, outcome));
        }
        for r in &reports {
            if let Some(e) = &r.error {
                self.broken.insert(r.mod_name.clone(), e.clone());
                // A failed save is reported every time it happens (not once per message).
                self.errors.push(e.clone());
            }
        }
        self.reloads.extend(reports.iter().cloned());
        reports
    }

    /// Re-reads the manifests of the changed mods; a broken or renamed one fails its reload.
    fn reread_manifests(&mut self, changed: &Changed) -> Vec<ReloadReport> {
        let mut reports = Vec::new();
        for name in changed.keys() {
            let Some(dir) = self.known.get(name).map(|m| m.dir.clone()) else {
                continue;
            };
            let at = format!("{name}/mod.toml");
            let err = match Manifest::load(&dir) {
                Ok(m) if m.name == *name => {
                    self.known.insert(name.clone(), m);
                    continue;
                }
                Ok(m) => ScriptError::at(
                    name,
                    at,
                    format!(
                        "a mod cannot be renamed while running (now \"{}\"); restart to load it",
                        m.name
                    ),
                ),
                Err(e) => ScriptError::at(name, at, e.to_string()),
            };
            reports.push(self.report_for(name, changed, 0.0, Err(err)));
        }
        reports
    }

    fn report_for(
        &self,
        name: &str,
        changed: &Changed,
        ms: f64,
        outcome: Result<(), ScriptError>,
    ) -> ReloadReport {
        ReloadReport {
            mod_name: name.to_string(),
            ok: outcome.is_ok(),
            files: changed_files(changed, name),
            ms,
            error: outcome.err(),
            frame: self.world.borrow().frame(),
        }
    }

    pub(super) fn is_loaded(&self, name: &str) -> bool {
        self.mods.iter().any(|m| m.manifest.name == name)
    }

    /// Reloads (or first loads) one mod as a transaction: its new version is built in a fresh
    /// state against a checkpoint of the world; on any failure the checkpoint is restored and
    /// the last good version keeps running.
    fn reload_one(
        &mut self,
        m: &Manifest,
        all: &BTreeMap<String, Manifest>,
    ) -> Result<(), ScriptError> {
        // Brains still moving out of an earlier reload's old state move now (this reload may
        // take them out of their new one, or carry their states).
        self.finish_migration();
        // (A level given back as it was keeps its number: see `transaction`.)
        let level_before = self.world.borrow().level_version();
        let camera_before = self.shared.borrow().camera.len();
        let rt = self.transaction(|h| {
            h.forget_definitions(&m.name);
            h.world.borrow_mut().remove_level_of(&m.name);
            h.run_entry(m, all)
        })?;
        // Camera moves belong to a fresh start, not to every save.
        self.shared.borrow_mut().camera.truncate(camera_before);
        self.broken.remove(&m.name);
        // The new version is in. Its index: the old one's, or the next.
        let old_idx = self.mods.iter().position(|r| r.manifest.name == m.name);
        let idx = old_idx.unwrap_or(self.mods.len());
        let (gone, kept) = self.retire_unmatched(&m.name);
        let carried = self.carry_brains(idx, &gone, &kept);
        // Swap the state only now: the carried values were read from the old one (which
        // stays alive while brains still move out of it).
        let old = match old_idx {
            Some(i) => Some(std::mem::replace(&mut self.mods[i], rt)),
            None => {
                self.mods.push(rt);
                None
            }
        };
        // Brains detached after repeated errors come back with the new code.
        let back: Vec<CreatureId> = self
            .detached
            .iter()
            .filter(|(_, r)| r.mod_name == m.name)
            .map(|(id, _)| *id)
            .collect();
        for id in back {
            if let Some(r) = self.detached.remove(&id) {
                self.shared.borrow_mut().brain_requests.push(r);
            }
        }
        // Brains the new code asked for (kept load-time creatures) and detached ones come
        // back now; the rest move over the next ticks, the first share of them now.
        self.rebuild_brains(&m.name, carried.now);
        self.migration = Some(Migration::new(
            &m.name,
            carried.later,
            carried.dropped,
            old,
            self.opts.migrate_per_tick,
        ));
        self.migrate_share();
        if self.world.borrow().level_version() != level_before {
            self.world.borrow_mut().reground_all();
            self.world.borrow_mut().prebake();
        }
        Ok(())
    }

    /// Before a mod's new version runs: its types and behaviours are forgotten, and its
    /// load-time creatures wait, by type in spawn order, to be matched by the new spawns.
    fn forget_definitions(&mut self, name: &str) {
        let mut sh = self.shared.borrow_mut();
        sh.types.retain(|_, t| t.mod_name != name);
        sh.behaviours.retain(|(mm, _)| mm != name);
        let mut reuse: BTreeMap<String, VecDeque<CreatureId>> = BTreeMap::new();
        for (_, ty, id) in sh.load_spawns.iter().filter(|(mm, _, _)| mm == name) {
            reuse.entry(ty.clone()).or_default().push_back(*id);
        }
        sh.reuse = reuse;
        sh.load_spawns.retain(|(mm, _, _)| mm != name);
        sh.kept.clear();
        sh.required.retain(|(mm, _)| mm != name);
    }

    /// After a mod's new version ran: its load-time creatures it did not spawn again, and
    /// creatures of types it no longer defines, are despawned; the rest take their type's
    /// new definition. Returns (gone, kept by a matching spawn).
    fn retire_unmatched(&mut self, name: &str) -> (BTreeSet<CreatureId>, Vec<CreatureId>) {
        let (surplus, kept) = {
            let mut sh = self.shared.borrow_mut();
            let surplus: Vec<CreatureId> = std::mem::take(&mut sh.reuse)
                .into_values()
                .flatten()
                .collect();
            (surplus, std::mem::take(&mut sh.kept))
        };
        let mut gone: BTreeSet<CreatureId> = surplus.into_iter().collect();
        {
            let sh = self.shared.borrow();
            let w = self.world.borrow();
            let prefix = format!("{name}/");
            for c in w.creatures() {
                let ty = w
                    .creature_type(c.type_id)
                    .map(|t| t.name.as_str())
                    .unwrap_or("");
                if ty.starts_with(&prefix) && !sh.types.contains_key(ty) {
                    gone.insert(c.id);
                }
            }
        }
        let mut w = self.world.borrow_mut();
        for id in &gone {
            w.push(Command::Despawn(*id));
        }
        w.retype();
        (gone, kept)
    }

    /// Takes the brains that ran in mod `idx`'s old state (and the kept load-time creatures)
    /// out: the states of those the new code already asked brains for, as plain data, and
    /// the rest of the old brains, to move into the new state with their params.
    fn carry_brains(
        &mut self,
        idx: usize,
        gone: &BTreeSet<CreatureId>,
        kept: &[CreatureId],
    ) -> Carried {
        let ids: Vec<CreatureId> = self
            .brains
            .iter()
            .filter(|(id, b)| b.mod_idx == idx && !gone.contains(id))
            .map(|(id, _)| *id)
            .collect();
        let carried: Vec<(CreatureId, Brain)> = ids
            .into_iter()
            .filter_map(|id| self.brains.remove(&id).map(|b| (id, b)))
            .collect();
        self.brains.retain(|id, _| !gone.contains(id));
        let mut out = Carried::default();
        let requested: BTreeSet<CreatureId> = self
            .shared
            .borrow()
            .brain_requests
            .iter()
            .map(|r| r.id)
            .collect();
        for (id, b) in carried {
            if requested.contains(&id) {
                out.now.insert(id, plain_state(id, &b, &mut out.dropped));
            } else {
                out.later.push((id, b));
            }
        }
        // Kept load-time creatures keep their state even when their brain moved to another
        // mod's behaviour.
        for id in kept {
            if !out.now.contains_key(id) {
                if let Some(b) = self.brains.get(id) {
                    out.now.insert(*id, plain_state(*id, b, &mut out.dropped));
                }
            }
        }
        out
    }

    /// Puts carried state into the new brains; they do not start again. Returns their ids.
    pub(super) fn restore_states(&mut self, carry: BTreeMap<CreatureId, Plain>) -> Vec<CreatureId> {
        let mut reloaded = Vec::new();
        for (id, state) in carry {
            let Some(b) = self.brains.get_mut(&id) else {
                continue;
            };
            let lua = &self.mods[b.mod_idx].lua;
            if let Ok(v) = state.to_lua(lua) {
                let _ = b.handle.raw_set("state", v);
            }
            b.spawn_pending = false;
            reloaded.push(id);
        }
        reloaded
    }
}
