//! A mod's CPU and memory budget, checked from Luau's interrupt.
//!
//! CPU is counted in **work units**, not time, so the same mods and seed stop at the same
//! instruction on an idle machine and a loaded one: one unit per Luau interrupt (Luau calls
//! it at every function entry and loop back-edge, about every 10–30 ns of script work) and
//! [`API_CALL_UNITS`] per call into the host. A mod's allowance per tick is a base plus a
//! share per creature its brains drive, so a brain that is cheap per creature scales to
//! any crowd while a runaway is stopped within the base. Wall-clock time remains only as a
//! backstop for a host call that runs long without interrupts, and says so when it fires.

use std::cell::{Cell, RefCell};
use std::time::{Duration, Instant};

use mlua::{Lua, VmState};

use super::error::caller_location;

/// Work units charged for one call into the host API (the cost of a cheap host call, in
/// units of script work).
pub const API_CALL_UNITS: u64 = 25;
/// Default base allowance per mod per tick, units (≈ 4–10 ms of script work).
pub const DEFAULT_WORK_PER_TICK: u64 = 400_000;
/// Default allowance per creature a mod's brains drive, units per tick.
pub const DEFAULT_WORK_PER_CREATURE: u64 = 2_000;
/// Default allowance for a mod's load (its entry script), units.
pub const DEFAULT_WORK_AT_LOAD: u64 = 200_000_000;

/// Why a mod's callback was stopped from outside.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Overrun {
    /// Spent its work units.
    Cpu,
    /// Ran past the wall-clock backstop (a long host call, or a machine far too slow).
    Backstop,
    /// Allocated past its memory limit.
    Memory,
}

/// A mod's CPU and memory budget, checked from Luau's interrupt.
#[derive(Debug)]
pub(super) struct Budget {
    /// Work units allowed in the current window (a tick, or the load).
    units_limit: Cell<u64>,
    /// Work units used in the current window.
    units: Cell<u64>,
    /// What the window's allowance is made of, for the message (base, per creature,
    /// creatures).
    allowance: Cell<(u64, u64, u64)>,
    /// Wall-clock backstop for the current window.
    pub limit: Cell<Duration>,
    /// Wall-clock time used in the current window.
    pub used: Cell<Duration>,
    started: Cell<Option<Instant>>,
    /// Thread CPU clock at the window's start: confirms a wall-clock overrun was the mod's
    /// own work, not the OS running something else.
    cpu_start: Cell<Option<cpu_time::ThreadTime>>,
    /// Set when a limit was hit; every later interrupt fails until cleared, so `pcall` cannot swallow it.
    pub overrun: Cell<Option<Overrun>>,
    /// Where the overrun happened.
    pub overrun_at: RefCell<Option<String>>,
    /// Memory limit of the state, bytes.
    pub memory_limit: usize,
}

impl Budget {
    /// A budget of `units` work units (and a `backstop` of wall-clock time) for its first
    /// window, and `memory_limit` bytes.
    pub(super) fn new(units: u64, backstop: Duration, memory_limit: usize) -> Budget {
        Budget {
            units_limit: Cell::new(units),
            units: Cell::new(0),
            allowance: Cell::new((units, 0, 0)),
            limit: Cell::new(backstop),
            used: Cell::new(Duration::ZERO),
            started: Cell::new(None),
            cpu_start: Cell::new(None),
            overrun: Cell::new(None),
            overrun_at: RefCell::new(None),
            memory_limit,
        }
    }

    /// Starts a new window: `base + per_creature × creatures` units, `backstop` of wall clock.
    pub(super) fn reset(&self, base: u64, per_creature: u64, creatures: u64, backstop: Duration) {
        self.units_limit
            .set(base.saturating_add(per_creature.saturating_mul(creatures)));
        self.allowance.set((base, per_creature, creatures));
        self.units.set(0);
        self.limit.set(backstop);
        self.used.set(Duration::ZERO);
        self.cpu_start.set(None);
    }

    /// Work units used in the current window.
    pub(super) fn units_used(&self) -> u64 {
        self.units.get()
    }

    /// Work units allowed in the current window.
    pub(super) fn units_allowed(&self) -> u64 {
        self.units_limit.get()
    }

    /// Charges `n` units (a host call); the next interrupt stops the script if that spent
    /// the allowance.
    pub(super) fn charge(&self, n: u64) {
        self.units.set(self.units.get().saturating_add(n));
    }

    /// Starts timing a call (for the backstop).
    pub(super) fn begin(&self) {
        self.started.set(Some(Instant::now()));
    }

    /// Whether this thread has really spent the backstop of CPU since the window began (the
    /// thread clock is read lazily: the first wall-clock overrun of a window starts it).
    fn cpu_confirms(&self) -> bool {
        match self.cpu_start.get() {
            Some(t0) => t0
                .try_elapsed()
                .map(|d| d > self.limit.get())
                .unwrap_or(true),
            None => match cpu_time::ThreadTime::try_now() {
                Ok(t) => {
                    self.cpu_start.set(Some(t));
                    false
                }
                Err(_) => true,
            },
        }
    }

    /// Stops timing a call.
    pub(super) fn end(&self) {
        if let Some(s) = self.started.take() {
            self.used.set(self.used.get() + s.elapsed());
        }
    }

    /// The interrupt check: fails once the budget is spent, and on every call after.
    pub(super) fn check_interrupt(&self, lua: &Lua) -> mlua::Result<VmState> {
        if let Some(o) = self.overrun.get() {
            return Err(self.overrun_error(o));
        }
        let n = self.units.get().saturating_add(1);
        self.units.set(n);
        // Memory every interrupt (a bomb allocates megabytes between two), time every 32nd.
        let o = if n > self.units_limit.get() {
            Overrun::Cpu
        } else if lua.used_memory() > self.memory_limit / 10 * 9 {
            Overrun::Memory
        } else if n & 31 != 0 {
            return Ok(VmState::Continue);
        } else if self
            .started
            .get()
            .is_some_and(|s| self.used.get() + s.elapsed() > self.limit.get())
            && self.cpu_confirms()
        {
            Overrun::Backstop
        } else {
            return Ok(VmState::Continue);
        };
        self.overrun.set(Some(o));
        *self.overrun_at.borrow_mut() = caller_location(lua);
        Err(self.overrun_error(o))
    }

    /// The error text for an overrun.
    pub(super) fn overrun_message(&self, o: Overrun) -> String {
        match o {
            Overrun::Cpu => {
                let (base, per, n) = self.allowance.get();
                let what = if per > 0 && n > 0 {
                    format!("{base} + {per} for each of its {n} creatures")
                } else {
                    format!("{base}")
                };
                format!(
                    "CPU budget exceeded: more than {} work units ({what}; --cpu-budget)",
                    self.units_limit.get()
                )
            }
            Overrun::Backstop => format!(
                "CPU budget exceeded: wall-clock backstop of {:.0} ms (a host call ran long without yielding to the budget; --cpu-budget-ms)",
                self.limit.get().as_secs_f64() * 1e3
            ),
            Overrun::Memory => format!(
                "memory limit exceeded: more than {} MiB",
                self.memory_limit >> 20
            ),
        }
    }

    /// The error raised inside the script for an overrun.
    pub(super) fn overrun_error(&self, o: Overrun) -> mlua::Error {
        mlua::Error::runtime(self.overrun_message(o))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    fn state(units: u64) -> (Lua, Rc<Budget>) {
        let lua = Lua::new();
        let b = Rc::new(Budget::new(units, Duration::from_secs(60), 64 << 20));
        let c = b.clone();
        lua.set_interrupt(move |l| c.check_interrupt(l));
        (lua, b)
    }

    #[test]
    fn a_runaway_stops_at_the_same_unit_every_time_and_pcall_cannot_swallow_it() {
        let mut stops = Vec::new();
        for _ in 0..3 {
            let (lua, b) = state(10_000);
            b.begin();
            let r = lua
                .load("local n = 0 while true do pcall(function() while true do n = n + 1 end end) end")
                .exec();
            b.end();
            let e = r.expect_err("stopped").to_string();
            assert!(
                e.contains("CPU budget exceeded: more than 10000 work units"),
                "{e}"
            );
            stops.push(b.units_used());
        }
        assert!(stops.iter().all(|s| *s == stops[0]), "{stops:?}");
    }

    #[test]
    fn the_allowance_grows_with_creatures_and_host_calls_are_charged() {
        let (lua, b) = state(0);
        b.reset(1_000, 100, 50, Duration::from_secs(60));
        // 5 000 loop iterations fit in 1 000 + 100 × 50 = 6 000 units.
        lua.load("for i = 1, 5000 do end").exec().expect("fits");
        b.reset(1_000, 100, 50, Duration::from_secs(60));
        b.charge(API_CALL_UNITS * 200);
        let e = lua
            .load("for i = 1, 5000 do end")
            .exec()
            .expect_err("charged");
        assert!(
            e.to_string()
                .contains("1000 + 100 for each of its 50 creatures"),
            "{e}"
        );
    }
}
