//! A damped spring integrated in closed form, so its curve does not depend on the step size:
//! the smoothing the lean layer (and anything else that should settle with character) uses.
//! Parameters: `response` τ (seconds; natural frequency ω = 1/τ) and damping ratio ζ
//! (0.8 organic, a little overshoot; 1.0 mechanical, none).

/// A value chasing a target like a mass on a damped spring.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Spring {
    /// Current value.
    pub value: f32,
    /// Current rate of change, per second.
    pub velocity: f32,
}

/// One step's exact propagation for a given response, damping and step size: the 2×2
/// matrix taking (offset from target, velocity) across `dt`. Build it once per tick and apply
/// it to every spring sharing those settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SpringStep {
    m: [[f64; 2]; 2],
    /// 2ζτ: how far a spring lags a target moving at unit speed.
    lag: f64,
    dt: f32,
}

impl SpringStep {
    /// The step for `response` τ (s), `damping` ζ and `dt` (s); `None` unless all are > 0.
    pub(crate) fn new(response: f32, damping: f32, dt: f32) -> Option<SpringStep> {
        if !(dt > 0.0) || !(response > 0.0) || !(damping > 0.0) {
            return None;
        }
        let w = 1.0 / response as f64;
        let z = damping as f64;
        let t = dt as f64;
        let m = if (z - 1.0).abs() < 1e-6 {
            let e = (-w * t).exp();
            [
                [e * (1.0 + w * t), e * t],
                [-e * w * w * t, e * (1.0 - w * t)],
            ]
        } else if z < 1.0 {
            let wd = w * (1.0 - z * z).sqrt();
            let e = (-z * w * t).exp();
            let (s, c) = (wd * t).sin_cos();
            [
                [e * (c + z * w * s / wd), e * s / wd],
                [-e * w * w * s / wd, e * (c - z * w * s / wd)],
            ]
        } else {
            let r = w * (z * z - 1.0).sqrt();
            let (r1, r2) = (-z * w + r, -z * w - r);
            let (e1, e2) = ((r1 * t).exp(), (r2 * t).exp());
            let d = r1 - r2;
            [
                [(r1 * e2 - r2 * e1) / d, (e1 - e2) / d],
                [r1 * r2 * (e2 - e1) / d, (r1 * e1 - r2 * e2) / d],
            ]
        };
        Some(SpringStep {
            m,
            lag: 2.0 * z / w,
            dt,
        })
    }

    #[inline]
    fn apply(&self, x: f64, v: f64) -> (f64, f64) {
        (
            self.m[0][0] * x + self.m[0][1] * v,
            self.m[1][0] * x + self.m[1][1] * v,
        )
    }
}

impl Spring {
    /// Advances `dt` seconds toward `target` (held constant over the step), exactly.
    pub(crate) fn step(&mut self, target: f32, response: f32, damping: f32, dt: f32) {
        if let Some(k) = SpringStep::new(response, damping, dt) {
            self.step_with(&k, target);
        }
    }

    /// One step with a prepared [`SpringStep`] toward a constant `target`.
    #[inline]
    pub(crate) fn step_with(&mut self, k: &SpringStep, target: f32) {
        // At rest on its target (most channels, most of the time): nothing to integrate.
        // A spring that has decayed to within a millionth is put to rest there.
        let x = self.value - target;
        if x.abs() < 1e-6 && self.velocity.abs() < 1e-5 {
            self.value = target;
            self.velocity = 0.0;
            return;
        }
        let (x, v) = k.apply(x as f64, self.velocity as f64);
        self.value = target + x as f32;
        self.velocity = v as f32;
    }

    /// One step with a prepared [`SpringStep`] toward a target moving linearly from `from`
    /// to `to` across it (exact: a ramp has a closed-form particular solution). Feeding
    /// sampled targets this way removes the half-step lag of holding each sample, so curves
    /// agree across tick rates.
    #[inline]
    pub(crate) fn step_ramp_with(&mut self, k: &SpringStep, from: f32, to: f32) {
        if from == to {
            self.step_with(k, to);
            return;
        }
        let slope = (to - from) as f64 / k.dt as f64;
        // x_p(t) = from + slope·t − 2ζτ·slope solves the spring equation; the rest decays freely.
        let offset = k.lag * slope;
        let (x, v) = k.apply(
            self.value as f64 - (from as f64 - offset),
            self.velocity as f64 - slope,
        );
        self.value = (x + to as f64 - offset) as f32;
        self.velocity = (v + slope) as f32;
    }
}

impl Spring {
    /// The kick (added velocity) that makes a spring at rest swing out to `peak` and back:
    /// an impulse response scaled so its first extremum is exactly `peak`.
    pub(crate) fn kick_for_peak(peak: f32, response: f32, damping: f32) -> f32 {
        if !(response > 0.0) || !(damping > 0.0) {
            return 0.0;
        }
        let w = 1.0 / response as f64;
        let z = damping as f64;
        // Peak of the unit-velocity impulse response, in units of 1/ω.
        let g = if (z - 1.0).abs() < 1e-6 {
            (-1.0f64).exp()
        } else if z < 1.0 {
            let s = (1.0 - z * z).sqrt();
            (-z * z.acos() / s).exp()
        } else {
            let r = (z * z - 1.0).sqrt();
            let (r1, r2) = (-z + r, -z - r);
            let t = (r2 / r1).ln() / (r1 - r2);
            ((r1 * t).exp() - (r2 * t).exp()) / (r1 - r2)
        };
        (peak as f64 * w / g) as f32
    }

    /// Seconds after a kick until the swing stays below `fraction` of its peak (a bound
    /// from the decay envelope; documented as the hit decay time).
    pub(crate) fn settle_time(response: f32, damping: f32, fraction: f32) -> f32 {
        let z = damping.max(1e-3) as f64;
        let f = fraction.clamp(1e-6, 1.0) as f64;
        let tau = response as f64;
        let t = if z < 0.999 {
            let s = (1.0 - z * z).sqrt();
            ((1.0 / (f * s)).ln() + z * z.acos() / s) / z
        } else {
            // Critical and overdamped: scan the closed form (cheap; called rarely).
            let mut s = Spring {
                value: 0.0,
                velocity: Spring::kick_for_peak(1.0, 1.0, z as f32),
            };
            let mut last = 0.0;
            for i in 1..20_000 {
                s.step(0.0, 1.0, z as f32, 0.001);
                if s.value.abs() as f64 >= f {
                    last = i as f64 * 0.001;
                }
            }
            last
        };
        (t * tau) as f32
    }
}

/// The blend factor of a first-order low-pass with cutoff `hz` over `dt` seconds (1 when
/// the filter is off): `current += (input − current) × alpha`.
#[inline]
pub(crate) fn low_pass_alpha(hz: f32, dt: f32) -> f32 {
    if !(hz > 0.0) {
        return 1.0;
    }
    1.0 - (-std::f32::consts::TAU * hz * dt).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step_response(damping: f32, hz: f32, seconds: f32) -> Vec<f32> {
        let dt = 1.0 / hz;
        let mut s = Spring::default();
        (0..(seconds * hz) as usize)
            .map(|_| {
                s.step(1.0, 0.1, damping, dt);
                s.value
            })
            .collect()
    }

    #[test]
    fn overshoot_matches_the_damping_ratio() {
        let z: f32 = 0.8;
        let theory = (-std::f32::consts::PI * z / (1.0 - z * z).sqrt()).exp();
        // Sampled at 1 kHz so the peak itself is seen.
        let peak = step_response(z, 1000.0, 2.0)
            .into_iter()
            .fold(0.0f32, f32::max)
            - 1.0;
        assert!(
            (peak - theory).abs() <= theory * 0.2,
            "overshoot {peak} vs theory {theory}"
        );
        assert!(
            step_response(1.0, 1000.0, 3.0)
                .iter()
                .all(|v| *v <= 1.0 + 1e-6),
            "critically damped overshot"
        );
        assert!(
            step_response(1.5, 1000.0, 3.0)
                .iter()
                .all(|v| *v <= 1.0 + 1e-6),
            "overdamped overshot"
        );
    }

    #[test]
    fn the_same_curve_at_30_60_and_120_hz() {
        for z in [0.5f32, 0.8, 1.0, 1.4] {
            let (a, b, c) = (
                step_response(z, 30.0, 1.0),
                step_response(z, 60.0, 1.0),
                step_response(z, 120.0, 1.0),
            );
            for k in 0..30 {
                let (va, vb, vc) = (a[k], b[2 * k + 1], c[4 * k + 3]);
                assert!(
                    (va - vb).abs() < 1e-4 && (vb - vc).abs() < 1e-4,
                    "ζ {z} at {k}/30 s: {va} {vb} {vc}"
                );
            }
        }
    }

    #[test]
    fn a_ramp_step_tracks_a_moving_target_at_any_rate() {
        // Target ramps 0 → 1 over 0.3 s then holds; the curve is the same at 30/60/120 Hz.
        let target = |t: f32| (t / 0.3).min(1.0);
        let run = |hz: f32| {
            let dt = 1.0 / hz;
            let step = SpringStep::new(0.1, 0.8, dt).expect("valid");
            let mut s = Spring::default();
            let mut out = Vec::new();
            for i in 0..hz as usize {
                let (a, b) = (target(i as f32 * dt), target((i + 1) as f32 * dt));
                s.step_ramp_with(&step, a, b);
                out.push(s.value);
            }
            out
        };
        let (a, b, c) = (run(30.0), run(60.0), run(120.0));
        for k in 0..30 {
            let (va, vb, vc) = (a[k], b[2 * k + 1], c[4 * k + 3]);
            assert!(
                (va - vb).abs() < 2e-3 && (vb - vc).abs() < 2e-3,
                "{k}: {va} {vb} {vc}"
            );
        }
        assert!((c[119] - 1.0).abs() < 0.01);
    }

    #[test]
    fn a_kick_peaks_where_asked_and_settles_in_the_stated_time() {
        for z in [0.5f32, 0.8, 1.0, 1.5] {
            let mut s = Spring {
                value: 0.0,
                velocity: Spring::kick_for_peak(10.0, 0.1, z),
            };
            let dt = 1e-4;
            let settle = Spring::settle_time(0.1, z, 0.05);
            let mut peak = 0.0f32;
            let mut last_big = 0.0;
            for i in 1..40_000 {
                s.step(0.0, 0.1, z, dt);
                peak = peak.max(s.value);
                if s.value.abs() >= 0.5 {
                    last_big = i as f32 * dt;
                }
            }
            assert!((peak - 10.0).abs() < 0.01, "ζ {z}: peak {peak}");
            assert!(last_big <= settle + 1e-3, "ζ {z}: {last_big} > {settle}");
            assert!(
                last_big > settle * 0.6,
                "ζ {z}: bound too loose: {last_big} vs {settle}"
            );
        }
    }

    #[test]
    fn low_pass_settles_and_is_rate_independent() {
        let run = |hz: f32| {
            let mut y = 0.0;
            for _ in 0..(hz as usize / 4) {
                y += (1.0 - y) * low_pass_alpha(8.0, 1.0 / hz);
            }
            y
        };
        assert!((run(30.0) - run(120.0)).abs() < 1e-4);
        assert!(run(60.0) > 0.99);
        assert_eq!(low_pass_alpha(0.0, 0.1), 1.0, "no filter: the input itself");
    }
}
