//! The profiler's figures: what each mod's callbacks cost per tick — per callback kind
//! (`on_update`, `on_step`, …) and per behaviour, in work units and milliseconds (mean, p95,
//! worst over a window of ticks) — with each mod's share of its budget and its memory, and the
//! world's own tick split into phases (scripts, navigation, locomotion, physics; a window
//! adds model posing and drawing per frame). Plain data: the window's panel draws it,
//! `skitter run --headless --profile FILE.json` writes it.
//!
//! Profiling is off unless asked for (`ScriptHost::set_profiling`); on, a tick's brains run
//! exactly as off (same calls, same order, same results), only timed: a mod's batched
//! `on_update` is called one run of same-behaviour creatures at a time.

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use serde::Serialize;

/// Ticks the window's panel looks back over (5 s at 60 Hz).
pub const PANEL_WINDOW: usize = 300;

/// One figure's last samples (one per tick), with totals over every tick seen.
#[derive(Clone, Debug, Default)]
pub(crate) struct Series {
    samples: VecDeque<f64>,
    /// How many samples are kept (0: all).
    keep: usize,
    total: f64,
    count: u64,
}

impl Series {
    fn new(keep: usize) -> Series {
        Series {
            keep,
            ..Series::default()
        }
    }

    fn push(&mut self, x: f64) {
        if self.keep > 0 && self.samples.len() == self.keep {
            self.samples.pop_front();
        }
        self.samples.push_back(x);
        self.total += x;
        self.count += 1;
    }

    /// Mean, p95 and worst of the samples kept, and the total over every tick.
    pub(crate) fn stats(&self) -> Stats {
        let n = self.samples.len();
        if n == 0 {
            return Stats::default();
        }
        let mut sorted: Vec<f64> = self.samples.iter().copied().collect();
        sorted.sort_by(f64::total_cmp);
        let p95 = sorted[((n as f64 * 0.95).ceil() as usize).clamp(1, n) - 1];
        Stats {
            mean: sorted.iter().sum::<f64>() / n as f64,
            p95,
            worst: sorted[n - 1],
            total: self.total,
        }
    }
}

/// A figure's mean, 95th percentile and worst per tick over the window, and its total over
/// the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    /// Mean per tick.
    pub mean: f64,
    /// 95th percentile per tick.
    pub p95: f64,
    /// Worst tick.
    pub worst: f64,
    /// Sum over every tick profiled.
    pub total: f64,
}

/// What one callback kind of one behaviour of a mod cost.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CallbackFigures {
    /// `on_update`, `on_step`, …
    pub callback: String,
    /// The behaviour (or creature type, for callbacks a type carries) whose callback it is.
    pub behaviour: String,
    /// Calls over the run.
    pub calls: u64,
    /// Work units per tick.
    pub units: Stats,
    /// Milliseconds per tick.
    pub ms: Stats,
}

/// What one mod cost.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModFigures {
    /// The mod.
    pub name: String,
    /// Work units per tick, every callback.
    pub units: Stats,
    /// Milliseconds per tick, every callback.
    pub ms: Stats,
    /// Share of its tick allowance used (0–1).
    pub budget_share: Stats,
    /// Its Lua state's memory now, bytes.
    pub memory_bytes: usize,
    /// Its memory limit, bytes.
    pub memory_limit: usize,
    /// Per callback kind and behaviour, the costliest first.
    pub callbacks: Vec<CallbackFigures>,
}

/// A phase of the tick (or of a drawn frame) and the phases inside it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PhaseFigures {
    /// Its name.
    pub name: String,
    /// Milliseconds per tick (per frame for a frame's phases).
    pub ms: Stats,
    /// What it is made of (their sum may be less: the rest is the phase's own).
    pub children: Vec<PhaseFigures>,
}

/// Everything the profiler shows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProfileReport {
    /// Ticks profiled.
    pub ticks: u64,
    /// Ticks the means, p95s and worsts are over (the last ones).
    pub window: usize,
    /// The whole tick, milliseconds.
    pub tick_ms: Stats,
    /// The tick's phases, in the order they run.
    pub phases: Vec<PhaseFigures>,
    /// A window's drawn frames: posing the models, drawing (empty headless).
    pub frame: Vec<PhaseFigures>,
    /// Per mod, the costliest first.
    pub mods: Vec<ModFigures>,
}

/// Key of a callback series: (mod, callback, behaviour).
type CallbackKey = (String, &'static str, String);

/// This tick's costs so far, per callback: (units, seconds, calls).
type Pending = BTreeMap<CallbackKey, (u64, f64, u64)>;

/// Collects the figures tick by tick.
#[derive(Clone, Debug)]
pub(crate) struct Profiler {
    keep: usize,
    ticks: u64,
    pending: Pending,
    callbacks: BTreeMap<CallbackKey, (Series, Series, u64)>,
    /// Per mod: units, ms, budget share, (memory, limit).
    mods: BTreeMap<String, (Series, Series, Series, (usize, usize))>,
    /// Tick phases by path (`"scripts"`, `"physics/rapier"`), in first-seen order.
    phases: Vec<(String, Series)>,
    /// Frame phases (the window's), likewise.
    frame: Vec<(String, Series)>,
    tick: Series,
}

impl Profiler {
    /// A profiler keeping `keep` ticks for its means and percentiles (0: every tick).
    pub(crate) fn new(keep: usize) -> Profiler {
        Profiler {
            keep,
            ticks: 0,
            pending: BTreeMap::new(),
            callbacks: BTreeMap::new(),
            mods: BTreeMap::new(),
            phases: Vec::new(),
            frame: Vec::new(),
            tick: Series::new(keep),
        }
    }

    /// A call of `callback` of `behaviour` in `mod_name` used `units` and `time`.
    pub(crate) fn callback(
        &mut self,
        mod_name: &str,
        callback: &'static str,
        behaviour: &str,
        units: u64,
        time: Duration,
        calls: u64,
    ) {
        let e = self
            .pending
            .entry((mod_name.to_string(), callback, behaviour.to_string()))
            .or_default();
        e.0 += units;
        e.1 += time.as_secs_f64();
        e.2 += calls;
    }

    fn phase_in(list: &mut Vec<(String, Series)>, keep: usize, path: &str, time: Duration) {
        let ms = time.as_secs_f64() * 1e3;
        match list.iter_mut().find(|(p, _)| p == path) {
            Some((_, s)) => s.push(ms),
            None => {
                let mut s = Series::new(keep);
                s.push(ms);
                list.push((path.to_string(), s));
            }
        }
    }

    /// A tick phase (`"physics/rapier"`: a phase inside `physics`) took `time`.
    pub(crate) fn phase(&mut self, path: &str, time: Duration) {
        Self::phase_in(&mut self.phases, self.keep, path, time);
    }

    /// A drawn frame's phase took `time`.
    pub(crate) fn frame_phase(&mut self, path: &str, time: Duration) {
        Self::phase_in(&mut self.frame, self.keep, path, time);
    }

    /// Ends a tick that took `time`: each mod's `(name, units used, units allowed, memory,
    /// memory limit)`.
    pub(crate) fn end_tick(&mut self, time: Duration, mods: &[(String, u64, u64, usize, usize)]) {
        self.ticks += 1;
        self.tick.push(time.as_secs_f64() * 1e3);
        let keep = self.keep;
        let pending = std::mem::take(&mut self.pending);
        for (key, (units, secs, calls)) in &pending {
            let e = self
                .callbacks
                .entry(key.clone())
                .or_insert_with(|| (Series::new(keep), Series::new(keep), 0));
            e.0.push(*units as f64);
            e.1.push(secs * 1e3);
            e.2 += calls;
        }
        // A callback that did not run this tick cost nothing this tick.
        for (key, e) in self.callbacks.iter_mut() {
            if !pending.contains_key(key) {
                e.0.push(0.0);
                e.1.push(0.0);
            }
        }
        for (name, used, allowed, memory, limit) in mods {
            let (units, secs) = pending
                .iter()
                .filter(|(k, _)| k.0 == *name)
                .fold((0u64, 0.0f64), |a, (_, v)| (a.0 + v.0, a.1 + v.1));
            let e = self.mods.entry(name.clone()).or_insert_with(|| {
                (
                    Series::new(keep),
                    Series::new(keep),
                    Series::new(keep),
                    (0, 0),
                )
            });
            e.0.push(units as f64);
            e.1.push(secs * 1e3);
            e.2.push(if *allowed == 0 {
                0.0
            } else {
                *used as f64 / *allowed as f64
            });
            e.3 = (*memory, *limit);
        }
    }

    /// The figures so far.
    pub(crate) fn report(&self) -> ProfileReport {
        let mut mods: Vec<ModFigures> = self
            .mods
            .iter()
            .map(|(name, (units, ms, share, (memory, limit)))| {
                let mut callbacks: Vec<CallbackFigures> = self
                    .callbacks
                    .iter()
                    .filter(|(k, _)| k.0 == *name)
                    .map(|((_, cb, behaviour), (u, t, calls))| CallbackFigures {
                        callback: cb.to_string(),
                        behaviour: behaviour.clone(),
                        calls: *calls,
                        units: u.stats(),
                        ms: t.stats(),
                    })
                    .collect();
                callbacks.sort_by(|a, b| b.ms.total.total_cmp(&a.ms.total));
                ModFigures {
                    name: name.clone(),
                    units: units.stats(),
                    ms: ms.stats(),
                    budget_share: share.stats(),
                    memory_bytes: *memory,
                    memory_limit: *limit,
                    callbacks,
                }
            })
            .collect();
        mods.sort_by(|a, b| b.ms.total.total_cmp(&a.ms.total));
        ProfileReport {
            ticks: self.ticks,
            window: self.tick.samples.len(),
            tick_ms: self.tick.stats(),
            phases: tree(&self.phases),
            frame: tree(&self.frame),
            mods,
        }
    }
}

/// Phases by path (`a`, `a/b`) as a tree, in first-seen order.
fn tree(list: &[(String, Series)]) -> Vec<PhaseFigures> {
    fn children(list: &[(String, Series)], parent: &str) -> Vec<PhaseFigures> {
        list.iter()
            .filter(|(p, _)| match p.rsplit_once('/') {
                Some((up, _)) => up == parent,
                None => parent.is_empty(),
            })
            .map(|(p, s)| PhaseFigures {
                name: p.rsplit('/').next().unwrap_or(p).to_string(),
                ms: s.stats(),
                children: children(list, p),
            })
            .collect()
    }
    children(list, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_give_mean_p95_worst_and_total() {
        let mut s = Series::new(100);
        for i in 1..=200 {
            s.push(i as f64);
        }
        // The window holds 101..=200; the total is over all 200.
        let st = s.stats();
        assert_eq!(st.mean, 150.5);
        assert_eq!(st.p95, 195.0);
        assert_eq!(st.worst, 200.0);
        assert_eq!(st.total, 20100.0);
    }

    #[test]
    fn callbacks_add_up_per_mod_and_phases_nest() {
        let mut p = Profiler::new(0);
        for tick in 0..10u64 {
            p.callback("a", "on_update", "wander", 100, Duration::from_millis(2), 5);
            if tick % 2 == 0 {
                p.callback("a", "on_step", "wander", 10, Duration::from_millis(1), 1);
            }
            p.phase("scripts", Duration::from_millis(3));
            p.phase("physics", Duration::from_millis(4));
            p.phase("physics/rapier", Duration::from_millis(3));
            p.end_tick(Duration::from_millis(8), &[("a".into(), 110, 1000, 5, 64)]);
        }
        let r = p.report();
        assert_eq!(r.ticks, 10);
        let a = &r.mods[0];
        assert_eq!(a.callbacks[0].callback, "on_update");
        assert_eq!(a.callbacks[0].calls, 50);
        assert!((a.units.mean - 105.0).abs() < 1e-9, "{}", a.units.mean);
        assert!((a.ms.total - 25.0).abs() < 1e-9);
        assert!((a.budget_share.mean - 0.11).abs() < 1e-9);
        // on_step ran every other tick: half its ticks cost nothing.
        assert_eq!(a.callbacks[1].ms.mean, 0.5);
        assert_eq!(r.phases.len(), 2);
        assert_eq!(r.phases[1].children[0].name, "rapier");
        assert!((r.tick_ms.total - 80.0).abs() < 1e-9);
    }
}
