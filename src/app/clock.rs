//! The window's fixed-step clock: real time in, whole ticks out, within a time budget a
//! frame. When ticks cost more than the time they stand for (a thousand soldiers brawling on
//! a small machine), catching up in full means ever longer frames — each running the ticks
//! the last one fell behind by — and a window that answers a few times a second. The clock
//! runs what a frame owes while the frame's ticks have taken less than
//! [`UPDATE_BUDGET`] and drops the rest: a light scene catches up in full (a slow renderer
//! still sees real time), a heavy one goes on in slow motion and the window keeps answering.

use crate::sim::TICK_DT;

/// Seconds of ticks a frame runs at most (after its first): the window draws at least about
/// 1 / (this + the draw) times a second however heavy the world.
const UPDATE_BUDGET: f64 = 0.05;

/// Real seconds one frame may add at most (a stall — a dragged window, a breakpoint — is
/// not made up).
const MAX_FRAME_DT: f64 = 0.25;

/// Time owed to the simulation, and how fast it runs against real time.
#[derive(Debug, Default)]
pub(crate) struct Clock {
    /// Seconds not yet ticked (under one tick after a frame).
    acc: f64,
    /// Simulated seconds per real second, smoothed (1: real time).
    speed: f64,
}

impl Clock {
    /// One frame of `dt` real seconds: runs the ticks it owes through `tick` (which runs one
    /// and returns the seconds it took) while they fit the budget, drops what is left, and
    /// returns how many ran.
    pub(crate) fn frame(&mut self, dt: f64, mut tick: impl FnMut() -> f64) -> u32 {
        let dt = dt.clamp(0.0, MAX_FRAME_DT);
        self.acc += dt;
        let step = TICK_DT as f64;
        let owed = (self.acc / step).floor() as u32;
        let (mut ran, mut spent) = (0u32, 0.0f64);
        while ran < owed && (ran == 0 || spent < UPDATE_BUDGET) {
            spent += tick();
            ran += 1;
        }
        self.acc -= ran as f64 * step;
        if self.acc >= step {
            // Slow motion: what did not fit is dropped.
            self.acc %= step;
        }
        if dt > 0.0 {
            let now = ran as f64 * step / dt;
            self.speed = if self.speed == 0.0 {
                now
            } else {
                self.speed * 0.9 + now * 0.1
            };
        }
        ran
    }

    /// How far the next tick is along, 0..1 (for drawing between the last two).
    pub(crate) fn alpha(&self) -> f32 {
        (self.acc / TICK_DT as f64) as f32
    }

    /// Simulated seconds per real second, smoothed (1: real time; under it: slow motion).
    pub(crate) fn speed(&self) -> f64 {
        self.speed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Frames of `draw` seconds plus their ticks at `cost` seconds each, for `n` frames:
    /// ticks run, frames per second and the clock.
    fn run(cost: f64, draw: f64, n: usize) -> (u32, f64, Clock) {
        let mut c = Clock::default();
        let (mut dt, mut ticks, mut wall) = (draw, 0, 0.0);
        for _ in 0..n {
            let ran = c.frame(dt, || cost);
            assert!(c.alpha() < 1.0, "{} ticks owed after a frame", c.alpha());
            ticks += ran;
            dt = ran as f64 * cost + draw;
            wall += dt;
        }
        (ticks, n as f64 / wall, c)
    }

    #[test]
    fn light_ticks_keep_real_time_even_under_a_slow_renderer() {
        // 1 ms ticks, 150 ms frames (software rendering): nine ticks a frame, all run.
        let (ticks, _, c) = run(0.001, 0.15, 100);
        assert!(ticks >= 100 * 9, "{ticks}");
        assert!((c.speed() - 1.0).abs() < 0.02, "{}", c.speed());
        // At the tick rate: one tick a frame.
        let (ticks, fps, c) = run(0.001, 1.0 / 60.0 - 0.001, 600);
        assert!((599..=601).contains(&ticks), "{ticks}");
        assert!((c.speed() - 1.0).abs() < 1e-2 && fps > 59.0);
    }

    #[test]
    fn heavy_ticks_go_in_slow_motion_and_keep_the_window_answering() {
        // 21 ms ticks (the battle at 100 a side on 2 cores), 5 ms draws: three ticks fit
        // the budget, the rest is dropped — about 15 frames a second at 0.7 of real time,
        // where catching up in full would draw one frame in a quarter second.
        let (_, fps, c) = run(0.021, 0.005, 200);
        assert!(fps > 12.0, "{fps:.1} frames a second");
        assert!(c.speed() > 0.6 && c.speed() < 0.8, "{}", c.speed());
    }

    #[test]
    fn a_stall_is_not_made_up() {
        let mut c = Clock::default();
        // A quarter second's ticks (15, give or take the rounding of a tick's length).
        assert!((14..=15).contains(&c.frame(5.0, || 0.0)));
        assert!(c.alpha() < 1.0);
        assert_eq!(c.frame(0.0, || 0.0), 0);
    }
}
