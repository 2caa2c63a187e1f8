//! The host's side of the profiler (`script::profile`): timing a tick's phases and each
//! callback call while profiling is on. Off, none of this runs.

use std::time::{Duration, Instant};

use mlua::Function;

use super::{Brain, ScriptHost};
use crate::script::profile::{ProfileReport, Profiler};
use crate::script::shared::BrainKind;

/// Wall-clock time of the script parts of one tick.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ScriptTimes {
    /// `on_spawn` and `on_update`.
    pub updates: Duration,
    /// Callbacks of the world's events (`on_step`, `on_hit`, …).
    pub events: Duration,
    /// Brains attached, moved after a reload, forgotten; budgets reset.
    pub brains: Duration,
}

/// The clock of a profiled tick: each `next` the time since the last (zero, and no clock
/// read, when profiling is off).
pub(super) struct Laps {
    start: Option<Instant>,
    last: Option<Instant>,
}

impl Laps {
    pub(super) fn start(on: bool) -> Laps {
        let now = on.then(Instant::now);
        Laps {
            start: now,
            last: now,
        }
    }

    /// The time since the last lap.
    pub(super) fn next(&mut self) -> Duration {
        match self.last.as_mut() {
            Some(t) => {
                let now = Instant::now();
                let d = now - *t;
                *t = now;
                d
            }
            None => Duration::ZERO,
        }
    }

    /// The whole tick so far (`None`: not profiling).
    pub(super) fn total(&self) -> Option<Duration> {
        self.start.map(|s| s.elapsed())
    }
}

impl Brain {
    /// The behaviour (or creature type) whose callbacks these are.
    pub(super) fn behaviour_name(&self) -> &str {
        match &self.kind {
            BrainKind::Behaviour(n) | BrainKind::Type(n) => n,
        }
    }
}

impl ScriptHost {
    /// Profiling on (keeping the last `keep` ticks for the means and percentiles; 0: every
    /// tick, for a run's report) or off (`None`: the figures are dropped).
    pub fn set_profiling(&mut self, keep: Option<usize>) {
        self.profiler = keep.map(Profiler::new);
    }

    /// Whether profiling is on.
    pub fn profiling(&self) -> bool {
        self.profiler.is_some()
    }

    /// The figures so far (`None`: profiling is off).
    pub fn profile(&self) -> Option<ProfileReport> {
        self.profiler.as_ref().map(Profiler::report)
    }

    /// A drawn frame's phase (`"posing"`, `"drawing"`) took `time` (the window's part).
    pub fn profile_frame_phase(&mut self, name: &str, time: Duration) {
        if let Some(p) = self.profiler.as_mut() {
            p.frame_phase(name, time);
        }
    }

    /// Profiling: a callback call of creature `id`'s brain that began at `start` with its
    /// mod's budget at `units0` units.
    pub(super) fn profile_call(
        &mut self,
        id: crate::sim::CreatureId,
        f: &Function,
        start: (Instant, u64),
    ) {
        let (Some(p), Some(b)) = (self.profiler.as_mut(), self.brains.get(&id)) else {
            return;
        };
        let rt = &self.mods[b.mod_idx];
        p.callback(
            &rt.manifest.name,
            b.cb.name_of(f),
            b.behaviour_name(),
            rt.budget.units_used().saturating_sub(start.1),
            start.0.elapsed(),
            1,
        );
    }

    /// Profiling: ends a tick that took `total`, with its script parts and the world's step
    /// (`stepped`: its wall clock, phases and the rest).
    pub(super) fn profile_tick(&mut self, total: Duration, s: ScriptTimes, stepped: Duration) {
        let mut w = self.world.borrow().last_step_times();
        // The step's own work outside its three phases (commands, events drained) is
        // navigation's: the phases (less what ran side by side) then add up to the step.
        let phases = (w.navigation + w.locomotion + w.physics).saturating_sub(w.overlap);
        w.navigation += stepped.saturating_sub(phases);
        let mods: Vec<(String, u64, u64, usize, usize)> = self
            .mods
            .iter()
            .map(|m| {
                (
                    m.manifest.name.clone(),
                    m.budget.units_used(),
                    m.budget.units_allowed(),
                    m.lua.used_memory(),
                    m.budget.memory_limit,
                )
            })
            .collect();
        let Some(p) = self.profiler.as_mut() else {
            return;
        };
        p.phase("scripts", s.updates + s.events + s.brains);
        p.phase("scripts/on_update", s.updates);
        p.phase("scripts/events", s.events);
        p.phase("scripts/brains", s.brains);
        p.phase("navigation", w.navigation);
        p.phase("locomotion", w.locomotion);
        p.phase("locomotion/crowd steering (beside)", w.beside);
        p.phase("locomotion/beside physics", w.overlap);
        p.phase("physics", w.physics);
        p.phase("physics/rapier", w.rapier);
        p.end_tick(total, &mods);
    }

    /// Profiling: `on_update` for brains `from..to` of mod `m`'s batch, one run of
    /// consecutive same-behaviour creatures at a time (the same calls in the same order),
    /// each run's cost put down to its behaviour.
    pub(super) fn run_batch_profiled(&mut self, m: usize, from: usize, to: usize, frame: u64) {
        let mut at = from;
        while at < to {
            let Some(batch) = self.mods[m].updates.as_ref() else {
                return;
            };
            let ids = batch.ids.clone();
            let kind = |i: usize| self.brains.get(&ids[i]).map(|b| b.kind.clone());
            let k = kind(at);
            let mut end = at + 1;
            while end < to && kind(end) == k {
                end += 1;
            }
            let name = self
                .brains
                .get(&ids[at])
                .map_or_else(String::new, |b| b.behaviour_name().to_string());
            let units0 = self.mods[m].budget.units_used();
            let t = Instant::now();
            self.run_batch(m, at, end, frame);
            let rt = &self.mods[m];
            let units = rt.budget.units_used().saturating_sub(units0);
            let mod_name = rt.manifest.name.clone();
            if let Some(p) = self.profiler.as_mut() {
                p.callback(
                    &mod_name,
                    "on_update",
                    &name,
                    units,
                    t.elapsed(),
                    (end - at) as u64,
                );
            }
            at = end;
        }
    }
}
