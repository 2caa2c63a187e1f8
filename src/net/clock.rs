//! A viewer's timeline: which server time it shows. Each snapshot received is a sample of
//! the clocks' offset (server time − local time, less the trip); the shown time runs
//! a buffer delay behind the freshest offset — two snapshot intervals, plus one more on a
//! lossy link, plus the jitter measured, plus a frame — and follows it by running at most
//! 5 % fast or slow (no snapping, no oscillation), snapping only when hopelessly off
//! (a join, a very long stall).

use std::collections::VecDeque;

use crate::sim::TICK_DT;

/// Seconds of samples the offset and jitter are measured over.
const WINDOW: f64 = 2.0;
/// Largest rate correction.
const MAX_RATE: f64 = 0.05;
/// Off by more than this (s), the shown time jumps.
const SNAP: f64 = 0.75;
/// Loss share over which the buffer holds an interval more.
const LOSSY: f64 = 0.01;

/// The shown time and how it is chosen.
#[derive(Clone, Debug, Default)]
pub(crate) struct Clock {
    /// (local time of arrival, offset) of recent snapshots.
    samples: VecDeque<(f64, f64)>,
    /// Snapshot ticks seen recently (for the loss share).
    ticks: VecDeque<u64>,
    /// Shown server time, seconds.
    shown: Option<f64>,
    /// Interarrival jitter (RFC 3550's estimator: the mean change of the trip time between
    /// consecutive snapshots), seconds.
    rfc_jitter: f64,
    last_offset: Option<f64>,
    /// The buffer delay now, seconds.
    pub(crate) delay: f64,
    /// Seconds between snapshots.
    pub(crate) interval: f64,
}

impl Clock {
    pub(crate) fn new(snapshot_every: u32) -> Clock {
        let interval = snapshot_every.max(1) as f64 * TICK_DT as f64;
        // Until the link is measured, a cautious buffer (it shrinks as fast as it grows).
        Clock {
            interval,
            delay: 3.0 * interval + 2.0 * TICK_DT as f64,
            ..Default::default()
        }
    }

    /// A snapshot of `tick` arrived at local time `now`.
    pub(crate) fn sample(&mut self, tick: u64, now: f64) {
        let offset = tick as f64 * TICK_DT as f64 - now;
        if let Some(last) = self.last_offset {
            let d = (offset - last).abs().min(0.5);
            self.rfc_jitter += (d - self.rfc_jitter) / 16.0;
        }
        self.last_offset = Some(offset);
        self.samples.push_back((now, offset));
        while self.samples.front().is_some_and(|(t, _)| *t < now - WINDOW) && self.samples.len() > 1
        {
            self.samples.pop_front();
        }
        if self.ticks.back() != Some(&tick) && !self.ticks.contains(&tick) {
            self.ticks.push_back(tick);
            if self.ticks.len() > 60 {
                self.ticks.pop_front();
            }
        }
    }

    /// Share of snapshots that did not arrive, over the last ones.
    pub(crate) fn loss(&self) -> f64 {
        let (Some(lo), Some(hi)) = (self.ticks.iter().min(), self.ticks.iter().max()) else {
            return 0.0;
        };
        let every = (self.interval / TICK_DT as f64).round().max(1.0) as u64;
        let expected = (hi - lo) / every + 1;
        1.0 - self.ticks.len() as f64 / expected as f64
    }

    /// The jitter margin (s): three times the interarrival jitter.
    pub(crate) fn jitter(&self) -> f64 {
        (3.0 * self.rfc_jitter).clamp(0.0, 0.5)
    }

    /// Moves the shown time on by a frame of `dt` at local time `now`; the server time to
    /// show (s), or `None` before any snapshot.
    pub(crate) fn advance(&mut self, dt: f64, now: f64) -> Option<f64> {
        let offset = self.samples.iter().map(|s| s.1).fold(f64::MIN, f64::max);
        if self.samples.is_empty() {
            return self.shown;
        }
        let lossy = if self.loss() > LOSSY { 1.0 } else { 0.0 };
        let want = (2.0 + lossy) * self.interval + self.jitter() + TICK_DT as f64;
        // The delay itself moves at most 10 % a frame.
        self.delay += (want - self.delay).clamp(-0.1 * self.delay, 0.1 * self.delay);
        let target = now + offset - self.delay;
        let shown = match self.shown {
            Some(s) if (target - (s + dt)).abs() <= SNAP => {
                let err = target - (s + dt);
                s + dt * (1.0 + err.clamp(-MAX_RATE, MAX_RATE))
            }
            _ => target,
        };
        self.shown = Some(shown);
        Some(shown)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 20 Hz stream with a trip of 100 ms ± `jitter`, shown at 60 Hz.
    fn run(jitter: f64, stall: Option<(f64, f64)>) -> (Vec<f64>, Clock) {
        let mut c = Clock::new(3);
        let mut shown = Vec::new();
        let mut rng = 1u64;
        let mut arrivals: Vec<(f64, u64)> = Vec::new();
        for k in 0..400u64 {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let j = ((rng >> 33) as f64 / (1u64 << 31) as f64 - 0.5) * 2.0 * jitter;
            let sent = k as f64 * 0.05;
            let mut at = sent + 0.1 + j;
            if let Some((from, to)) = stall {
                if at >= from && at < to {
                    at = to + (at - from) * 0.01;
                }
            }
            arrivals.push((at, k * 3));
        }
        arrivals.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut i = 0;
        for f in 0..1200 {
            let now = f as f64 / 60.0;
            while i < arrivals.len() && arrivals[i].0 <= now {
                c.sample(arrivals[i].1, now);
                i += 1;
            }
            if let Some(s) = c.advance(1.0 / 60.0, now) {
                shown.push(s);
            }
        }
        (shown, c)
    }

    #[test]
    fn the_shown_time_runs_smoothly_behind_the_stream() {
        let (shown, c) = run(0.02, None);
        // Past the first second: never backwards, rate within 5 % of real time.
        for w in shown[60..].windows(2) {
            let rate = (w[1] - w[0]) * 60.0;
            assert!((0.949..=1.051).contains(&rate), "rate {rate}");
        }
        assert!(c.delay < 0.2, "delay {}", c.delay);
    }

    #[test]
    fn after_a_stall_it_runs_on_without_oscillating() {
        let (shown, _) = run(0.01, Some((5.0, 6.0)));
        for w in shown[60..].windows(2) {
            let rate = (w[1] - w[0]) * 60.0;
            assert!(rate > 0.9 && rate < 1.1, "rate {rate}");
        }
    }
}
