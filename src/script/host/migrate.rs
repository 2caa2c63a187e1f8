//! A reloaded mod's brains move into its new state over a few ticks, so that a save
//! with thousands of creatures alive never stalls a frame.
//!
//! A reload runs the mod's new code and swaps its state in at once (types, behaviours,
//! level); the brains its creatures ran in the old state queue up (in id order) with the
//! old state kept alive to read them from. The first share of them moves with the reload,
//! the rest at the start of the next ticks, before any callback: each is rebuilt in the new
//! state with its `state` carried over (as plain data) and gets `on_reload`; the old state
//! is dropped with the last of them. A share is a third of the queue, so every brain is on
//! the new code two ticks after the save, but at least [`MIN_SHARE`] and at most
//! [`HostOptions::migrate_per_tick`](super::HostOptions) (a huge crowd takes longer rather
//! than stall a frame). A creature waiting in the queue keeps doing what it was told (its
//! walk goes on); its `on_update` is skipped until its brain is rebuilt. Who moves when
//! depends only on the counts, so runs stay deterministic. Anything else that rebuilds
//! brains (another reload, a load) first finishes a move in progress.

use std::collections::{BTreeMap, VecDeque};

use mlua::Value;

use super::{Brain, Callback, ModRuntime, ScriptHost};
use crate::script::plain::{Dropped, Plain};
use crate::script::shared::{BrainRequest, LogLevel, LogLine};
use crate::sim::CreatureId;

/// Ticks a move takes (the reload's own, then the next ones) when no share is capped.
const MOVE_TICKS: usize = 3;
/// The fewest brains a share moves (unless `migrate_per_tick` is lower).
const MIN_SHARE: usize = 128;

/// Brains of one reloaded mod still to move into its new state.
pub(super) struct Migration {
    /// Brains moved per tick.
    share: usize,
    /// The mod (its new state is `mods[..]` under this name).
    mod_name: String,
    /// Old brains still to move, in id order.
    queue: VecDeque<(CreatureId, Brain)>,
    /// Values `state` tables could not carry so far (reported when the move is done).
    dropped: Dropped,
    /// The old state the queued brains live in: dropped after them.
    old: Option<ModRuntime>,
}

impl Migration {
    /// A move of `queue` (old brains, in id order) out of `old` into mod `mod_name`'s new
    /// state; `dropped` counts what the brains moved at once could not carry.
    /// `cap`: the most brains a tick moves (`HostOptions::migrate_per_tick`).
    pub(super) fn new(
        mod_name: &str,
        queue: Vec<(CreatureId, Brain)>,
        dropped: Dropped,
        old: Option<ModRuntime>,
        cap: usize,
    ) -> Migration {
        Migration {
            share: share_of(queue.len(), cap),
            mod_name: mod_name.to_string(),
            queue: queue.into(),
            dropped,
            old,
        }
    }
}

/// Brains moved per tick when `total` wait and a tick may move `cap`: a third of them (all
/// moved two ticks after the reload's own), at least [`MIN_SHARE`], at most `cap`.
fn share_of(total: usize, cap: usize) -> usize {
    let cap = cap.max(1);
    total.div_ceil(MOVE_TICKS).max(MIN_SHARE.min(cap)).min(cap)
}

/// The warning for values a reload could not carry in creatures' `state`.
fn dropped_warning(mod_name: &str, dropped: &Dropped) -> Option<LogLine> {
    (dropped.count > 0).then(|| LogLine {
        mod_name: mod_name.to_string(),
        level: LogLevel::Warn,
        text: format!(
            "reload kept only plain data in state; dropped {} value(s): {}{}",
            dropped.count,
            dropped.items.join(", "),
            if dropped.count > dropped.items.len() {
                ", ..."
            } else {
                ""
            }
        ),
    })
}

/// A creature's `state` table as plain data (what cannot cross is counted in `dropped`).
pub(super) fn plain_state(id: CreatureId, b: &Brain, dropped: &mut Dropped) -> Plain {
    let state = b.handle.raw_get::<Value>("state").unwrap_or(Value::Nil);
    Plain::from_lua_report(&state, &format!("creature {} state", id.0), dropped)
}

/// The request that builds `b` again in mod `mod_name`'s new state, with its params.
fn rebuild_request(id: CreatureId, mod_name: &str, b: &Brain) -> BrainRequest {
    let params = b.handle.raw_get::<Value>("params").unwrap_or(Value::Nil);
    BrainRequest {
        id,
        mod_name: mod_name.to_string(),
        kind: b.kind.clone(),
        params: Plain::from_lua(&params),
    }
}

impl ScriptHost {
    /// Moves this tick's share of the queued brains (see the module's notes).
    pub(super) fn migrate_share(&mut self) {
        if let Some(share) = self.migration.as_ref().map(|m| m.share) {
            self.migrate(share);
        }
    }

    /// Moves up to `limit` queued brains into their mod's new state (state carried,
    /// `on_reload` called); a finished move drops the old state and reports what `state`
    /// tables could not carry.
    pub(super) fn migrate(&mut self, limit: usize) {
        let Some(m) = self.migration.as_mut() else {
            return;
        };
        let mut carry: BTreeMap<CreatureId, Plain> = BTreeMap::new();
        {
            let w = self.world.borrow();
            let mut sh = self.shared.borrow_mut();
            while carry.len() < limit {
                let Some((id, old)) = m.queue.pop_front() else {
                    break;
                };
                // Gone meanwhile, or given a new brain by a newer request: nothing to move.
                if w.creature(id).is_none()
                    || self.brains.contains_key(&id)
                    || sh.brain_requests.iter().any(|r| r.id == id)
                {
                    continue;
                }
                carry.insert(id, plain_state(id, &old, &mut m.dropped));
                sh.brain_requests
                    .push(rebuild_request(id, &m.mod_name, &old));
            }
        }
        let done = m.queue.is_empty();
        let mod_name = m.mod_name.clone();
        if done {
            if let Some(m) = self.migration.take() {
                // The old brains first, then the state they live in.
                drop(m.queue);
                drop(m.old);
                if let Some(line) = dropped_warning(&mod_name, &m.dropped) {
                    self.shared.borrow_mut().logs.push(line);
                }
            }
        }
        if carry.is_empty() {
            return;
        }
        self.rebuild_brains(&mod_name, carry);
    }

    /// Builds the pending brain requests (among them the rebuilds of mod `mod_name`'s
    /// brains), puts `carry` back into their `state`, and calls their `on_reload` under a
    /// tick's allowance for the mod's creatures.
    pub(super) fn rebuild_brains(&mut self, mod_name: &str, carry: BTreeMap<CreatureId, Plain>) {
        let Some(idx) = self.mods.iter().position(|r| r.manifest.name == mod_name) else {
            return;
        };
        // Brains are rebuilt in a burst of small allocations: the new state's collector
        // waits until they are in (it runs incrementally from the next callbacks on).
        self.mods[idx].lua.gc_stop();
        self.apply_brain_requests();
        let reloaded = self.restore_states(carry);
        self.mods[idx].lua.gc_restart();
        let drives = self.brains.values().filter(|b| b.mod_idx == idx).count() as u64;
        self.mods[idx].budget.reset(
            self.opts.work_per_tick,
            self.opts.work_per_creature,
            drives,
            self.opts.cpu_per_tick,
        );
        for id in reloaded {
            if let Some(f) = self.callback(id, Callback::Reload) {
                self.call(id, &f, Value::Nil);
            }
        }
    }

    /// Finishes a move of brains in progress (before anything else rebuilds brains).
    pub(super) fn finish_migration(&mut self) {
        while self.migration.is_some() {
            self.migrate(usize::MAX);
        }
    }

    /// Creature `id`'s old brain, while it waits to move into its reloaded mod's new state.
    fn waiting(&self, id: CreatureId) -> Option<&Brain> {
        let m = self.migration.as_ref()?;
        let i = m.queue.binary_search_by_key(&id, |(i, _)| *i).ok()?;
        Some(&m.queue[i].1)
    }

    /// Whether creature `id`'s brain waits to move into its reloaded mod's new state.
    pub(super) fn migrating(&self, id: CreatureId) -> bool {
        self.waiting(id).is_some()
    }

    /// A number in creature `id`'s script `state` (`state[key]`), read where its brain runs
    /// (or waits to move): for inspectors and tests. `None`: no brain, or no number there.
    pub fn state_number(&self, id: CreatureId, key: &str) -> Option<f64> {
        let brain = self.brains.get(&id).or_else(|| self.waiting(id))?;
        let state = brain.handle.raw_get::<mlua::Table>("state").ok()?;
        match state.raw_get::<Value>(key).ok()? {
            Value::Integer(n) => Some(n as f64),
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    /// Brains still waiting to move into a reloaded mod's new state (0: none).
    pub fn brains_migrating(&self) -> usize {
        self.migration.as_ref().map_or(0, |m| m.queue.len())
    }
}

#[cfg(test)]
mod tests {
    use super::share_of;

    #[test]
    fn a_move_takes_three_ticks_unless_a_tick_would_move_too_many() {
        // A few: all with the reload.
        assert_eq!(share_of(10, 512), 128);
        // 1 000: a third a tick, all on the new code two ticks after the save.
        assert_eq!(share_of(1000, 512), 334);
        assert!(3 * share_of(1000, 512) >= 1000);
        // 10 000: the cap a tick (20 ticks), never a stalled frame.
        assert_eq!(share_of(10_000, 512), 512);
        // A small cap wins over the floor.
        assert_eq!(share_of(10, 4), 4);
        assert_eq!(share_of(10, 0), 1);
    }
}
