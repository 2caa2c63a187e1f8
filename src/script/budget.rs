//! A mod's CPU and memory budget, checked from Luau's interrupt.

use std::cell::{Cell, RefCell};
use std::time::{Duration, Instant};

use mlua::{Lua, VmState};

use super::error::caller_location;

/// Why a mod's callback was stopped from outside.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Overrun {
    /// Ran past its CPU budget.
    Cpu,
    /// Allocated past its memory limit.
    Memory,
}

/// A mod's CPU and memory budget, checked from Luau's interrupt.
#[derive(Debug)]
pub(super) struct Budget {
    /// CPU time allowed in the current window (a tick, or the load).
    pub limit: Cell<Duration>,
    /// CPU time used in the current window.
    pub used: Cell<Duration>,
    started: Cell<Option<Instant>>,
    /// Thread CPU clock at the window's start: confirms a wall-clock overrun was the mod's
    /// own work, not the OS running something else.
    cpu_start: Cell<Option<cpu_time::ThreadTime>>,
    counter: Cell<u32>,
    /// Set when a limit was hit; every later interrupt fails until cleared, so `pcall` cannot swallow it.
    pub overrun: Cell<Option<Overrun>>,
    /// Where the overrun happened.
    pub overrun_at: RefCell<Option<String>>,
    /// Memory limit of the state, bytes.
    pub memory_limit: usize,
}

impl Budget {
    /// A budget of `limit` per window and `memory_limit` bytes.
    pub(super) fn new(limit: Duration, memory_limit: usize) -> Budget {
        Budget {
            limit: Cell::new(limit),
            used: Cell::new(Duration::ZERO),
            started: Cell::new(None),
            cpu_start: Cell::new(None),
            counter: Cell::new(0),
            overrun: Cell::new(None),
            overrun_at: RefCell::new(None),
            memory_limit,
        }
    }

    /// Starts a new window of `limit`.
    pub(super) fn reset(&self, limit: Duration) {
        self.limit.set(limit);
        self.used.set(Duration::ZERO);
        self.cpu_start.set(None);
    }

    /// Starts timing a call.
    pub(super) fn begin(&self) {
        self.started.set(Some(Instant::now()));
    }

    /// Whether this thread has really spent `limit` of CPU since the window began (the thread
    /// clock is read lazily: the first wall-clock overrun of a window starts it).
    fn cpu_confirms(&self) -> bool {
        match self.cpu_start.get() {
            Some(t0) => t0
                .try_elapsed()
                .map(|d| d > self.limit.get())
                .unwrap_or(true),
            None => {
                // Start the CPU clock now, backdated by nothing: the next checks compare the CPU
                // used from here plus what the wall clock already counted.
                match cpu_time::ThreadTime::try_now() {
                    Ok(t) => {
                        self.cpu_start.set(Some(t));
                        false
                    }
                    Err(_) => true,
                }
            }
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
        let n = self.counter.get().wrapping_add(1);
        self.counter.set(n);
        if n & 31 != 0 {
            return Ok(VmState::Continue);
        }
        let over_cpu = self
            .started
            .get()
            .is_some_and(|s| self.used.get() + s.elapsed() > self.limit.get())
            && self.cpu_confirms();
        let over_mem = lua.used_memory() > self.memory_limit / 10 * 9;
        let o = if over_cpu {
            Overrun::Cpu
        } else if over_mem {
            Overrun::Memory
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
            Overrun::Cpu => format!(
                "CPU budget exceeded: more than {:.1} ms",
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
