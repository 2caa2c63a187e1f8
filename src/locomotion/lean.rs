//! The lean layer: a procedural tilt added on top of locomotion (seed 002, techniques.md §2).
//!
//! Channels, each chasing its own target through its own damped spring (`response` τ,
//! `damping` ζ; closed form, so the curves do not depend on the tick rate):
//! - **turn** (roll): low-passed yaw rate × `turn.gain` × `turn.speed(speed)`, sign flipped
//!   when moving backwards; turning in place (speed ≈ 0) gives no roll.
//! - **accel** (pitch): low-passed forward acceleration × `accel.gain` × `accel.speed(speed)`.
//! - **side** (roll): while moving apart from its facing (`LeanInput::strafe`), low-passed
//!   sideways acceleration × `accel.gain` × `accel.speed(speed)`, into the push; otherwise
//!   exactly zero.
//! - **vertical** (pitch): rising → `vertical.rise`, falling → `vertical.fall` (full at
//!   [`VERTICAL_FULL`] m/s), a landing kick peaking at `vertical.land`; the part of the
//!   vertical speed the ground slope explains is subtracted first, so slopes add no lean.
//! - **hit** (roll and pitch): `hit(dir, strength)` projects the blow into body space and
//!   kicks two springs so they swing out to `min(gain × strength, max)` and settle back.
//!
//! Signs (degrees): roll > 0 leans the body to its right (a rotation about its forward
//! axis +Z); pitch > 0 dips the nose (a rotation about its left axis +X).

use glam::{Quat, Vec3};

use super::def::LeanDef;
use crate::math::curve::smoothstep01;
use crate::math::frame::{forward_from_yaw, horizontal, wrap_angle};
use crate::math::spring::{low_pass_alpha, Spring, SpringStep};

/// Excess vertical speed (m/s) at which the rise / fall pitch is full.
pub(crate) const VERTICAL_FULL: f32 = 1.0;
/// Descent faster than this (m/s, beyond what the slope explains) counts as falling.
pub(crate) const FALL_FROM: f32 = 0.8;
/// Descent speed (m/s) at which the landing kick reaches `vertical.land`.
pub(crate) const LAND_FULL: f32 = 3.0;
/// Time constant of the push a hit gives the body, seconds.
pub(crate) const PUSH_TAU: f32 = 0.15;
/// The hit decay bound: a hit lean stays below this share of its peak after
/// [`LeanState::hit_settle_time`].
pub(crate) const HIT_SETTLE_FRACTION: f32 = 0.05;

/// What the lean layer reads from the body each tick.
#[derive(Clone, Copy, Debug)]
pub struct LeanInput {
    /// Heading, radians.
    pub yaw: f32,
    /// Body velocity, world space.
    pub velocity: Vec3,
    /// Up vector of the ground under the body (the fitted support plane).
    pub ground_up: Vec3,
    /// Seconds since the last update.
    pub dt: f32,
    /// Moving apart from its facing (a crab's sideways scuttle, a strafe): the body's
    /// sideways acceleration rolls it too (see [`LeanState::update`]).
    pub strafe: bool,
}

/// One creature's lean state. Plain data, deterministic.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LeanState {
    /// Low-passed yaw rate, degrees per second (positive: turning left, toward +X).
    pub yaw_rate: f32,
    /// Low-passed forward acceleration, m/s².
    pub accel: f32,
    /// Low-passed sideways acceleration (toward the body's left), m/s², while strafing.
    pub side_accel: f32,
    /// Sum of the channel targets, degrees.
    pub target_roll: f32,
    /// Sum of the channel targets, degrees.
    pub target_pitch: f32,
    /// Current roll, degrees.
    pub roll: f32,
    /// Current pitch, degrees.
    pub pitch: f32,
    turn: Spring,
    accel_pitch: Spring,
    vertical: Spring,
    hit_roll: Spring,
    hit_pitch: Spring,
    side_roll: Spring,
    last_turn: f32,
    last_side: f32,
    prev_side_speed: f32,
    last_accel: f32,
    last_vertical: f32,
    prev_yaw: Option<f32>,
    prev_forward_speed: f32,
    fall_speed: f32,
    /// The spring step and low-pass factor for the last (response, damping, filter, dt):
    /// they change only when a setting does, so the exponentials run once, not every tick.
    cache: Option<([u32; 4], SpringStep, f32)>,
}

impl LeanState {
    /// Advances the lean one tick.
    pub fn update(&mut self, p: &LeanDef, input: LeanInput) {
        let dt = input.dt;
        if !(dt > 0.0) {
            return;
        }
        let v = horizontal(input.velocity);
        let speed = v.length();
        let forward = forward_from_yaw(input.yaw);
        let forward_speed = v.dot(forward);

        // Turn: yaw rate from the shortest angle difference, low-passed.
        let raw_rate = match self.prev_yaw {
            Some(prev) => wrap_angle(input.yaw - prev).to_degrees() / dt,
            None => 0.0,
        };
        self.prev_yaw = Some(input.yaw);
        let key = [
            p.response.to_bits(),
            p.damping.to_bits(),
            p.filter_hz.to_bits(),
            dt.to_bits(),
        ];
        let (step, alpha) = match self.cache {
            Some((k, step, alpha)) if k == key => (Some(step), alpha),
            _ => {
                let step = SpringStep::new(p.response, p.damping, dt);
                // One low-pass coefficient for both filtered inputs.
                let alpha = low_pass_alpha(p.filter_hz, dt);
                if let Some(st) = step {
                    self.cache = Some((key, st, alpha));
                }
                (step, alpha)
            }
        };
        self.yaw_rate += (raw_rate - self.yaw_rate) * alpha;
        // Moving backwards flips the lean; moving sideways blends through zero.
        let direction = if speed > 1e-4 {
            (forward_speed / (0.5 * speed)).clamp(-1.0, 1.0)
        } else {
            1.0
        };
        let turn_target = (-p.turn_gain * self.yaw_rate * p.turn_speed.eval(speed) * direction)
            .clamp(-p.turn_max, p.turn_max);

        // Acceleration along the heading, low-passed.
        let raw_accel = (forward_speed - self.prev_forward_speed) / dt;
        self.prev_forward_speed = forward_speed;
        self.accel += (raw_accel - self.accel) * alpha;
        let accel_target = (p.accel_gain * self.accel * p.accel_speed.eval(speed))
            .clamp(-p.accel_max, p.accel_max);

        // Sideways, while moving apart from its facing: acceleration toward the body's left
        // rolls it left, into the push (seed 002 §2.2), as forward acceleration pitches it.
        // Otherwise the channel rests at exactly zero (a walker's lean is as it was).
        let side_target = self.side_target(p, input, v.dot(Vec3::Y.cross(forward)), speed, alpha);

        let vertical_target = self.vertical_target(p, input, v);

        // One propagation step shared by every channel's spring.
        if let Some(k) = step {
            self.turn.step_ramp_with(&k, self.last_turn, turn_target);
            self.accel_pitch
                .step_ramp_with(&k, self.last_accel, accel_target);
            self.vertical
                .step_ramp_with(&k, self.last_vertical, vertical_target);
            self.hit_roll.step_with(&k, 0.0);
            self.hit_pitch.step_with(&k, 0.0);
            if side_target != 0.0 || self.side_roll != Spring::default() {
                self.side_roll
                    .step_ramp_with(&k, self.last_side, side_target);
            }
        }
        self.last_side = side_target;
        self.last_turn = turn_target;
        self.last_accel = accel_target;
        self.last_vertical = vertical_target;

        self.target_roll = turn_target;
        self.target_pitch = accel_target + vertical_target;
        self.roll = self.turn.value + self.hit_roll.value;
        if self.side_roll != Spring::default() || side_target != 0.0 {
            self.target_roll += side_target;
            self.roll += self.side_roll.value;
        }
        self.pitch = self.accel_pitch.value + self.vertical.value + self.hit_pitch.value;
    }

    /// The vertical channel's pitch target: rising or falling faster than the ground's
    /// slope explains (`v`: the horizontal velocity); a fall's end kicks the landing.
    fn vertical_target(&mut self, p: &LeanDef, input: LeanInput, v: Vec3) -> f32 {
        let up = input.ground_up;
        let slope_vy = if up.y > 0.1 {
            -(up.x * v.x + up.z * v.z) / up.y
        } else {
            0.0
        };
        let excess = input.velocity.y - slope_vy;
        let target = if excess >= 0.0 {
            p.rise * smoothstep01(excess / VERTICAL_FULL)
        } else {
            p.fall * smoothstep01(-excess / VERTICAL_FULL)
        };
        if excess < -FALL_FROM {
            self.fall_speed = self.fall_speed.max(-excess);
        } else if self.fall_speed > 0.0 && excess > -0.2 {
            let peak = p.land * (self.fall_speed / LAND_FULL).min(1.0);
            self.vertical.velocity += Spring::kick_for_peak(peak, p.response, p.damping);
            self.fall_speed = 0.0;
        }
        target
    }

    /// The side channel's roll target from the body's sideways speed this tick (toward its
    /// left, m/s): while strafing, its low-passed change rolls the body into it; else 0.
    fn side_target(
        &mut self,
        p: &LeanDef,
        input: LeanInput,
        side_speed: f32,
        speed: f32,
        alpha: f32,
    ) -> f32 {
        let target = if input.strafe {
            let raw = (side_speed - self.prev_side_speed) / input.dt;
            self.side_accel += (raw - self.side_accel) * alpha;
            (-p.accel_gain * self.side_accel * p.accel_speed.eval(speed))
                .clamp(-p.accel_max, p.accel_max)
        } else {
            self.side_accel = 0.0;
            0.0
        };
        self.prev_side_speed = side_speed;
        target
    }

    /// A blow pushing along `dir` (world space; its horizontal part counts) with `strength`:
    /// kicks the hit springs so the lean swings out to `min(gain × strength, max)` degrees
    /// in the blow's direction. Returns the push velocity to give the body (m/s, world).
    pub fn hit(&mut self, p: &LeanDef, yaw: f32, dir: Vec3, strength: f32) -> Vec3 {
        let h = horizontal(dir);
        let len = dir.length();
        if !(strength > 0.0) || !(len > 1e-6) || !h.is_finite() {
            return Vec3::ZERO;
        }
        // A blow's vertical part (a stomp from above, an uppercut from below) kicks the
        // vertical channel: a stomp dips the nose, an uppercut lifts it.
        let up = dir.y / len;
        let vertical = (p.hit_gain * strength * up.abs()).min(p.hit_max);
        self.vertical.velocity +=
            Spring::kick_for_peak(-up.signum() * vertical, p.response, p.damping);
        // Share of the blow that is horizontal: only that part rolls, pitches and pushes.
        let share = h.length() / len;
        let h = h.normalize_or_zero();
        let amount = (p.hit_gain * strength * share).min(p.hit_max);
        // Body space: +X is the body's left, +Z its forward.
        let forward = forward_from_yaw(yaw);
        let left = Vec3::Y.cross(forward);
        let (f, l) = (h.dot(forward), h.dot(left));
        // Pushed toward its left, the body leans left (negative roll); pushed forward, the
        // nose dips (positive pitch).
        self.hit_roll.velocity += Spring::kick_for_peak(-l * amount, p.response, p.damping);
        self.hit_pitch.velocity += Spring::kick_for_peak(f * amount, p.response, p.damping);
        h * (p.hit_push * strength * share)
    }

    /// Seconds after a hit until its lean stays below [`HIT_SETTLE_FRACTION`] of the peak.
    pub fn hit_settle_time(p: &LeanDef) -> f32 {
        Spring::settle_time(p.response, p.damping, HIT_SETTLE_FRACTION)
    }

    /// Whether the body is leaning at all (below a thousandth of a degree it is not).
    pub fn is_leaning(&self) -> bool {
        self.roll.abs() > 1e-3 || self.pitch.abs() > 1e-3
    }

    /// The lean's tendency as an angular velocity of the body, rad/s, world space (`yaw`:
    /// the body's heading): what a body thrown into physics keeps turning with.
    pub fn angular_velocity(&self, yaw: f32) -> Vec3 {
        let roll =
            (self.turn.velocity + self.hit_roll.velocity + self.side_roll.velocity).to_radians();
        let pitch = (self.accel_pitch.velocity + self.vertical.velocity + self.hit_pitch.velocity)
            .to_radians();
        crate::math::frame::yaw_rotation(yaw) * Vec3::new(pitch, 0.0, roll)
    }

    /// The lean as a body-space rotation (applied after the posture's).
    pub fn rotation(&self) -> Quat {
        if !self.is_leaning() {
            return Quat::IDENTITY;
        }
        Quat::from_rotation_z(self.roll.to_radians())
            * Quat::from_rotation_x(self.pitch.to_radians())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::frame::yaw_rotation;
    use crate::math::Curve;

    /// Issue 45: accelerating toward its left while strafing rolls the body left (into
    /// the push) and toward its right, right; not strafing, the same motion gives no roll
    /// at all (a forward walker's lean is as it was, to the bit).
    #[test]
    fn sideways_acceleration_rolls_a_strafing_body_into_the_push() {
        let p = LeanDef::default();
        let roll_after = |left: f32, strafe: bool| {
            let mut s = LeanState::default();
            let dt = 1.0 / 60.0;
            for k in 0..20 {
                // From a standstill to 1 m/s sideways in a third of a second, facing +Z.
                let v = Vec3::X * left * (k as f32 * dt * 3.0).min(1.0);
                s.update(
                    &p,
                    LeanInput {
                        yaw: 0.0,
                        velocity: v,
                        ground_up: Vec3::Y,
                        dt,
                        strafe,
                    },
                );
            }
            s.roll
        };
        assert!(roll_after(1.0, true) < -1.0, "{}", roll_after(1.0, true));
        assert!(roll_after(-1.0, true) > 1.0, "{}", roll_after(-1.0, true));
        assert_eq!(roll_after(1.0, false).to_bits(), 0.0f32.to_bits());
    }

    /// The filtered yaw rate after turning at `rate` deg/s for `steps` ticks of `dt` from
    /// standing still (a yaw-rate step at t = 0).
    fn yaw_rate_step(filter_hz: f32, rate: f32, dt: f32, steps: usize) -> f32 {
        let p = LeanDef {
            filter_hz,
            ..LeanDef::default()
        };
        let mut s = LeanState::default();
        for k in 0..=steps {
            s.update(
                &p,
                LeanInput {
                    yaw: (rate * k as f32 * dt).to_radians(),
                    velocity: Vec3::ZERO,
                    ground_up: Vec3::Y,
                    dt,
                    strafe: false,
                },
            );
        }
        s.yaw_rate
    }

    #[test]
    fn a_stomp_dips_the_nose_an_uppercut_lifts_it_and_neither_pushes() {
        let p = LeanDef::default();
        let peak = |dir: Vec3| {
            let mut s = LeanState::default();
            let push = s.hit(&p, 0.0, dir, 1.0);
            let mut extreme = 0.0f32;
            for _ in 0..60 {
                s.update(
                    &p,
                    LeanInput {
                        yaw: 0.0,
                        velocity: Vec3::ZERO,
                        ground_up: Vec3::Y,
                        dt: 1.0 / 60.0,
                        strafe: false,
                    },
                );
                if s.pitch.abs() > extreme.abs() {
                    extreme = s.pitch;
                }
            }
            (extreme, push)
        };
        let (stomp, push) = peak(Vec3::NEG_Y);
        assert!(
            stomp > 0.5 * p.hit_gain.min(p.hit_max),
            "stomp pitch {stomp}"
        );
        assert_eq!(push, Vec3::ZERO, "a vertical blow does not push");
        let (uppercut, _) = peak(Vec3::Y);
        assert!(
            uppercut < -0.5 * p.hit_gain.min(p.hit_max),
            "uppercut pitch {uppercut}"
        );
    }

    #[test]
    fn the_yaw_rate_low_pass_has_its_cutoff_and_a_huge_one_passes_the_raw_rate() {
        // A first-order low-pass at f reaches 1 - 1/e of a step at t = 1/(2π f).
        let f = LeanDef::default().filter_hz;
        assert_eq!(f, 8.0, "seed 002's default");
        let t = 1.0 / (std::f32::consts::TAU * f);
        let rate = 120.0;
        let got = yaw_rate_step(f, rate, t / 10.0, 10);
        let want = rate * (1.0 - (-1.0f32).exp());
        assert!(
            (got - want).abs() <= 0.02 * want,
            "{got:.3} deg/s at t = 1/(2πf), want {want:.3}"
        );
        // At the tick rate too: after 3 ticks of 60 Hz (t = 3/60 s).
        let got = yaw_rate_step(f, rate, 1.0 / 60.0, 3);
        let want = rate * (1.0 - (-std::f32::consts::TAU * f * 3.0 / 60.0).exp());
        assert!((got - want).abs() <= 0.02 * want, "{got:.3} vs {want:.3}");
        let raw = yaw_rate_step(1e6, rate, 1.0 / 60.0, 1);
        assert!(
            (raw - rate).abs() < 1e-3,
            "a huge cutoff passes {raw} of {rate}"
        );
    }

    /// Runs `seconds` of synthetic motion at `hz`; `motion(t)` gives (yaw, velocity).
    fn run(
        p: &LeanDef,
        hz: f32,
        seconds: f32,
        motion: impl Fn(f32) -> (f32, Vec3),
    ) -> Vec<LeanState> {
        let dt = 1.0 / hz;
        let mut s = LeanState::default();
        let (yaw, vel) = motion(0.0);
        s.update(
            p,
            LeanInput {
                yaw,
                velocity: vel,
                ground_up: Vec3::Y,
                dt,
                strafe: false,
            },
        );
        let mut out = Vec::new();
        for i in 1..=(seconds * hz).round() as usize {
            let (yaw, velocity) = motion(i as f32 * dt);
            s.update(
                p,
                LeanInput {
                    yaw,
                    velocity,
                    ground_up: Vec3::Y,
                    dt,
                    strafe: false,
                },
            );
            out.push(s.clone());
        }
        out
    }

    /// Moving at `speed` along the heading, turning at `rate` deg/s from t = 0.2 s on.
    fn circle(speed: f32, rate: f32) -> impl Fn(f32) -> (f32, Vec3) {
        move |t| {
            let yaw = (t - 0.2).max(0.0) * rate.to_radians();
            (yaw, yaw_rotation(yaw) * Vec3::Z * speed)
        }
    }

    #[test]
    fn turning_in_place_does_not_roll() {
        let p = LeanDef::default();
        let out = run(&p, 60.0, 3.0, circle(0.0, 180.0));
        assert!(out.iter().all(|s| s.roll.abs() < 0.5), "rolled");
        assert!((out.last().map(|s| s.yaw_rate).unwrap_or(0.0) - 180.0).abs() < 1.0);
    }

    #[test]
    fn a_steady_turn_rolls_into_it_by_gain_times_rate_times_speed_factor() {
        let p = LeanDef::default();
        for (speed, rate) in [(1.0f32, 60.0f32), (2.0, 90.0), (0.6, -45.0)] {
            let out = run(&p, 60.0, 4.0, circle(speed, rate));
            let end = out.last().cloned().unwrap_or_default();
            let expect = (-p.turn_gain * rate * p.turn_speed.eval(speed)).clamp(-20.0, 20.0);
            assert!(
                (end.roll - expect).abs() <= expect.abs() * 0.05,
                "v {speed} rate {rate}: roll {} vs {expect}",
                end.roll
            );
            // Turning left (positive rate) leans left: negative roll.
            assert_eq!(end.roll.signum(), -rate.signum());
            // Backwards the lean flips.
            let back = run(&p, 60.0, 4.0, move |t| {
                let (yaw, v) = circle(speed, rate)(t);
                (yaw, -v)
            });
            let b = back.last().map(|s| s.roll).unwrap_or(0.0);
            assert!(
                (b + end.roll).abs() < 0.05 * expect.abs(),
                "{b} vs {}",
                end.roll
            );
        }
    }

    fn step_curve(damping: f32, hz: f32) -> Vec<f32> {
        // Filter effectively off so the roll is the spring's own step response.
        let p = LeanDef {
            damping,
            filter_hz: 1e6,
            turn_speed: Curve::Constant(1.0),
            turn_max: 90.0,
            ..LeanDef::default()
        };
        run(&p, hz, 1.5, circle(1.0, 100.0))
            .iter()
            .map(|s| s.roll)
            .collect()
    }

    #[test]
    fn a_step_overshoots_as_the_damping_ratio_says() {
        let z: f32 = 0.8;
        let theory = (-std::f32::consts::PI * z / (1.0 - z * z).sqrt()).exp();
        let c = step_curve(z, 600.0);
        let target = -0.1 * 100.0;
        let peak = c.iter().fold(0.0f32, |m, v| m.min(*v));
        let overshoot = peak / target - 1.0;
        assert!(
            (overshoot - theory).abs() <= theory * 0.2,
            "overshoot {overshoot} vs {theory}"
        );
        let c = step_curve(1.0, 600.0);
        assert!(c.iter().all(|v| *v >= target - 1e-3), "ζ = 1 overshot");
    }

    #[test]
    fn the_same_curves_at_30_60_and_120_hz() {
        let p = LeanDef::default();
        let motion = |t: f32| {
            // Accelerate, turn, brake: every horizontal channel moves.
            let speed = (t * 2.0).min(1.5) - (t - 1.5).max(0.0) * 3.0;
            let yaw = ((t - 0.4).max(0.0) * 1.2).min(1.5);
            (yaw, yaw_rotation(yaw) * Vec3::Z * speed.max(0.0))
        };
        let a = run(&p, 30.0, 2.0, motion);
        let b = run(&p, 60.0, 2.0, motion);
        let c = run(&p, 120.0, 2.0, motion);
        let peak_roll = c.iter().fold(0.0f32, |m, s| m.max(s.roll.abs()));
        let peak_pitch = c.iter().fold(0.0f32, |m, s| m.max(s.pitch.abs()));
        assert!(
            peak_roll > 3.0 && peak_pitch > 2.0,
            "{peak_roll} {peak_pitch}"
        );
        for k in 3..60 {
            let (sa, sb, sc) = (&a[k], &b[2 * k + 1], &c[4 * k + 3]);
            for (x, y, peak, what) in [
                (sa.roll, sb.roll, peak_roll, "roll 30/60"),
                (sb.roll, sc.roll, peak_roll, "roll 60/120"),
                (sa.pitch, sb.pitch, peak_pitch, "pitch 30/60"),
                (sb.pitch, sc.pitch, peak_pitch, "pitch 60/120"),
            ] {
                assert!(
                    (x - y).abs() <= 0.02 * peak,
                    "{what} at {:.3}s: {x} vs {y} (peak {peak})",
                    (k + 1) as f32 / 30.0
                );
            }
        }
    }

    #[test]
    fn a_hit_leans_away_from_the_blow_and_decays_in_the_documented_time() {
        let p = LeanDef::default();
        let mut s = LeanState::default();
        let still = LeanInput {
            yaw: 0.0,
            velocity: Vec3::ZERO,
            ground_up: Vec3::Y,
            dt: 1.0 / 60.0,
            strafe: false,
        };
        s.update(&p, still);
        // Pushed toward its left (+X) with strength 1.
        let push = s.hit(&p, 0.0, Vec3::X, 1.0);
        assert!((push - Vec3::X * p.hit_push).length() < 1e-5);
        let settle = LeanState::hit_settle_time(&p);
        let mut peak = 0.0f32;
        let mut trace = Vec::new();
        for i in 1..=120 {
            s.update(&p, still);
            peak = peak.min(s.roll);
            trace.push((i as f32 / 60.0, s.roll));
        }
        assert!((peak + p.hit_gain).abs() < 0.6, "peak {peak}");
        for (t, r) in trace {
            if t > settle {
                assert!(r.abs() < 0.05 * peak.abs(), "at {t}s roll {r}");
            }
        }
        assert!(settle < 0.6, "documented decay for the defaults: {settle}");
        // Strength is capped by hit.max; a blow from behind dips the nose.
        let mut s = LeanState::default();
        s.hit(&p, 0.0, Vec3::Z, 10.0);
        let mut top = 0.0f32;
        for _ in 0..60 {
            s.update(&p, still);
            top = top.max(s.pitch);
        }
        assert!((top - p.hit_max).abs() < 1.0, "{top}");
    }

    #[test]
    fn slopes_add_no_vertical_lean_but_a_fall_and_landing_do() {
        let p = LeanDef::default();
        // Walking up a 30° slope at 1 m/s.
        let n = Vec3::new(0.0, 30f32.to_radians().cos(), -30f32.to_radians().sin());
        let mut s = LeanState::default();
        for _ in 0..120 {
            s.update(
                &p,
                LeanInput {
                    yaw: 0.0,
                    velocity: Vec3::new(0.0, 30f32.to_radians().tan(), 1.0),
                    ground_up: n,
                    dt: 1.0 / 60.0,
                    strafe: false,
                },
            );
        }
        assert!(s.pitch.abs() < 0.1, "slope pitch {}", s.pitch);
        // Falling at 2 m/s, then landing.
        let mut max_fall = 0.0f32;
        for i in 0..60 {
            s.update(
                &p,
                LeanInput {
                    yaw: 0.0,
                    velocity: Vec3::new(0.0, if i < 30 { -2.0 } else { 0.0 }, 0.0),
                    ground_up: Vec3::Y,
                    dt: 1.0 / 60.0,
                    strafe: false,
                },
            );
            if i < 30 {
                max_fall = max_fall.max(s.pitch);
            }
        }
        assert!((max_fall - p.fall).abs() < 0.5, "fall pitch {max_fall}");
        assert!(s.pitch.abs() < 1.0, "settled after landing {}", s.pitch);
    }
}
