//! The window's fixed-step clock: real time in, whole ticks out, within a time budget a
//! frame. When ticks cost more than the time they stand for (a thousand soldiers brawling on
//! a small machine), catching up in full means ever longer frames — each running the ticks
//! the last one fell behind by — and a window that answers a few times a second. The clock
//! runs what a frame owes while the frame's ticks have taken less than
//! [`UPDATE_BUDGET`] and drops the rest: a light scene catches up in full (a slow renderer
//! still sees real time), a heavy one goes on in slow motion and the window keeps answering.
//!
//! Time controls: paused, it runs only the single steps asked for; its scale (×0.25 to ×4,
//! the overlay's, `[`/`]`, `world.set_time_scale`) sets how many ticks a real second owes.
//! The ticks themselves are the same at any scale: so is a trace.

use crate::sim::TICK_DT;

/// Seconds of ticks a frame runs at most (after its first): the window draws at least about
/// 1 / (this + the draw) times a second however heavy the world.
const UPDATE_BUDGET: f64 = 0.05;

/// Real seconds one frame may add at most (a stall — a dragged window, a breakpoint — is
/// not made up).
const MAX_FRAME_DT: f64 = 0.25;

/// The time scales the overlay and the keys step through.
pub(crate) const SCALES: [f64; 5] = [0.25, 0.5, 1.0, 2.0, 4.0];

/// Time owed to the simulation, and how fast it runs against real time.
#[derive(Debug)]
pub(crate) struct Clock {
    /// Seconds not yet ticked (under one tick after a frame).
    acc: f64,
    /// Simulated seconds per real second, smoothed (1: real time).
    speed: f64,
    /// Simulated seconds a real second owes (1: real time).
    scale: f64,
    /// Paused: only single steps run.
    paused: bool,
    /// Single steps asked for and not yet run.
    steps: u32,
}

impl Default for Clock {
    fn default() -> Clock {
        Clock {
            acc: 0.0,
            speed: 0.0,
            scale: 1.0,
            paused: false,
            steps: 0,
        }
    }
}

impl Clock {
    /// One frame of `dt` real seconds: runs the ticks it owes through `tick` (which runs one
    /// and returns the seconds it took) while they fit the budget, drops what is left, and
    /// returns how many ran.
    pub(crate) fn frame(&mut self, dt: f64, mut tick: impl FnMut() -> f64) -> u32 {
        if self.paused {
            let n = std::mem::take(&mut self.steps);
            for _ in 0..n {
                tick();
            }
            self.speed = 0.0;
            return n;
        }
        let dt = dt.clamp(0.0, MAX_FRAME_DT);
        self.acc += dt * self.scale;
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

    /// Simulated seconds per real second, smoothed (1: real time; under the scale: slow
    /// motion).
    pub(crate) fn speed(&self) -> f64 {
        self.speed
    }

    /// Pauses, or runs on from where it paused.
    pub(crate) fn toggle_pause(&mut self) {
        self.paused = !self.paused;
        self.steps = 0;
    }

    /// Runs one tick at the next frame, and pauses (if it was running).
    pub(crate) fn step_once(&mut self) {
        self.paused = true;
        self.steps += 1;
    }

    /// Whether it is paused.
    pub(crate) fn paused(&self) -> bool {
        self.paused
    }

    /// Simulated seconds a real second owes.
    pub(crate) fn scale(&self) -> f64 {
        self.scale
    }

    /// Sets the scale (held to 0.25..4).
    pub(crate) fn set_scale(&mut self, scale: f64) {
        if scale.is_finite() {
            self.scale = scale.clamp(SCALES[0], SCALES[SCALES.len() - 1]);
        }
    }

    /// The next scale of [`SCALES`] up (`faster`) or down from the one it runs at.
    pub(crate) fn nudge(&mut self, faster: bool) {
        let next = if faster {
            SCALES.iter().copied().find(|s| *s > self.scale + 1e-9)
        } else {
            SCALES
                .iter()
                .rev()
                .copied()
                .find(|s| *s < self.scale - 1e-9)
        };
        if let Some(s) = next {
            self.scale = s;
        }
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
    fn paused_it_runs_only_the_steps_asked_for_and_the_scale_sets_the_pace() {
        let mut c = Clock::default();
        c.toggle_pause();
        for _ in 0..100 {
            assert_eq!(c.frame(1.0 / 60.0, || 0.0), 0);
        }
        c.step_once();
        c.step_once();
        assert_eq!(c.frame(1.0 / 60.0, || 0.0), 2, "two steps, one frame");
        assert_eq!(c.frame(1.0 / 60.0, || 0.0), 0);
        assert!(c.paused());
        c.toggle_pause();
        // Light ticks, 60 frames a second for 10 s: 600 ticks at ×1, 2400 at ×4, 150 at ×0.25.
        for (scale, want) in [(1.0, 600u32), (4.0, 2400), (0.25, 150)] {
            c.set_scale(scale);
            let ran: u32 = (0..600).map(|_| c.frame(1.0 / 60.0, || 0.0)).sum();
            assert!(ran.abs_diff(want) <= 1, "x{scale}: {ran} ticks");
        }
        c.nudge(true);
        assert_eq!(c.scale(), 0.5);
        c.set_scale(9.0);
        assert_eq!(c.scale(), 4.0);
        c.nudge(true);
        assert_eq!(c.scale(), 4.0);
    }

    /// The world driven through the clock — paused and stepped, at ×4, at ×0.25 — is the
    /// world ticked the same number of times: every creature where it would be, to the bit.
    #[test]
    fn the_same_ticks_give_the_same_world_at_any_time_scale() {
        use crate::script::{HostOptions, ScriptHost};
        let scripts = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts");
        let mods = [
            scripts.join("arena"),
            scripts.join("spider"),
            scripts.join("menagerie"),
            scripts.join("demo"),
        ];
        let host = || {
            let mut h = ScriptHost::new(HostOptions {
                threads: 1,
                ..HostOptions::default()
            });
            h.load(&mods);
            assert!(h.take_errors().is_empty());
            h
        };
        let state = |h: &ScriptHost| -> Vec<[u32; 3]> {
            h.world()
                .creatures()
                .iter()
                .map(|c| c.loco.position.to_array().map(f32::to_bits))
                .collect()
        };
        let mut plain = host();
        for _ in 0..240 {
            plain.tick();
        }
        let mut timed = host();
        let mut c = Clock::default();
        let mut ticks = 0u32;
        let frame = |c: &mut Clock, h: &mut ScriptHost, ticks: &mut u32| {
            *ticks += c.frame(1.0 / 60.0, || {
                h.tick();
                0.0
            });
        };
        // Paused, ten single steps (some frames with none); ×4; ×0.25; ×1 to the end.
        c.toggle_pause();
        for k in 0..20 {
            if k % 2 == 0 {
                c.step_once();
            }
            frame(&mut c, &mut timed, &mut ticks);
        }
        assert_eq!(ticks, 10);
        c.toggle_pause();
        c.set_scale(4.0);
        while ticks < 130 {
            frame(&mut c, &mut timed, &mut ticks);
        }
        c.set_scale(0.25);
        for _ in 0..40 {
            frame(&mut c, &mut timed, &mut ticks);
        }
        c.set_scale(1.0);
        while ticks < 240 {
            let before = ticks;
            frame(&mut c, &mut timed, &mut ticks);
            assert!(ticks <= 240, "one tick a frame at x1 ({before} -> {ticks})");
        }
        let (a, b) = (state(&timed), state(&plain));
        assert!(a.len() > 5, "{} creatures", a.len());
        assert_ne!(b, state(&host()), "they moved");
        assert_eq!(a, b);
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
