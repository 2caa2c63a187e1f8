//! Animation clips of a model: keyframed translation, rotation and scale of its joints
//! (glTF's `STEP`, `LINEAR` and `CUBICSPLINE` samplers), sampled at a time to give a joint's
//! local transform. A type's `model.idle` clip loops on the bones the creature does not
//! drive (seed 000's base layer under the procedural one).

use glam::{Affine3A, Quat, Vec3, Vec4};

/// Which part of a joint's transform a channel drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Translation (xyz).
    Translation,
    /// Rotation (quaternion xyzw).
    Rotation,
    /// Scale (xyz).
    Scale,
}

/// How values between keys are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// The earlier key's value.
    Step,
    /// Straight lines (rotations: the shortest arc).
    Linear,
    /// Hermite splines with in and out tangents stored with each key.
    Cubic,
}

/// One animated property of one joint.
#[derive(Clone, Debug, PartialEq)]
pub struct Channel {
    /// The joint.
    pub joint: usize,
    /// What it drives.
    pub target: Target,
    /// How it interpolates.
    pub interpolation: Interpolation,
    /// Key times, seconds, increasing.
    pub times: Vec<f32>,
    /// Key values (xyz or xyzw); for cubic, three per key: in tangent, value, out tangent.
    pub values: Vec<Vec4>,
}

/// A clip: its channels and length.
#[derive(Clone, Debug, PartialEq)]
pub struct Clip {
    /// Its name.
    pub name: String,
    /// Its length, seconds (the last key).
    pub duration: f32,
    /// Its channels.
    pub channels: Vec<Channel>,
}

impl Channel {
    /// The value at `t` (clamped to the keys).
    pub fn sample(&self, t: f32) -> Vec4 {
        let n = self.times.len();
        let key = |i: usize| match self.interpolation {
            Interpolation::Cubic => self.values[i * 3 + 1],
            _ => self.values[i],
        };
        if n == 0 {
            return Vec4::ZERO;
        }
        if n == 1 || t <= self.times[0] {
            return key(0);
        }
        if t >= self.times[n - 1] {
            return key(n - 1);
        }
        let i = self
            .times
            .partition_point(|k| *k <= t)
            .saturating_sub(1)
            .min(n - 2);
        let (t0, t1) = (self.times[i], self.times[i + 1]);
        let dt = (t1 - t0).max(1e-6);
        let u = ((t - t0) / dt).clamp(0.0, 1.0);
        let v = match self.interpolation {
            Interpolation::Step => key(i),
            Interpolation::Linear => match self.target {
                Target::Rotation => {
                    let a = Quat::from_vec4(key(i)).normalize();
                    let b = Quat::from_vec4(key(i + 1)).normalize();
                    Vec4::from(a.slerp(b, u))
                }
                _ => key(i).lerp(key(i + 1), u),
            },
            Interpolation::Cubic => {
                let (p0, m0) = (self.values[i * 3 + 1], self.values[i * 3 + 2] * dt);
                let (p1, m1) = (self.values[(i + 1) * 3 + 1], self.values[(i + 1) * 3] * dt);
                let (u2, u3) = (u * u, u * u * u);
                p0 * (2.0 * u3 - 3.0 * u2 + 1.0)
                    + m0 * (u3 - 2.0 * u2 + u)
                    + p1 * (-2.0 * u3 + 3.0 * u2)
                    + m1 * (u3 - u2)
            }
        };
        if self.target == Target::Rotation {
            Vec4::from(Quat::from_vec4(v).normalize())
        } else {
            v
        }
    }
}

impl Clip {
    /// Joint `joint`'s local transform at `t` (looped over the clip), its parts the clip does
    /// not drive taken from `rest` (scale, rotation, translation).
    pub fn local(&self, channels: &[usize], t: f32, rest: (Vec3, Quat, Vec3)) -> Affine3A {
        let t = if self.duration > 0.0 {
            t.rem_euclid(self.duration)
        } else {
            0.0
        };
        let (mut s, mut r, mut tr) = rest;
        for &c in channels {
            let ch = &self.channels[c];
            let v = ch.sample(t);
            match ch.target {
                Target::Translation => tr = v.truncate(),
                Target::Rotation => r = Quat::from_vec4(v),
                Target::Scale => s = v.truncate(),
            }
        }
        Affine3A::from_scale_rotation_translation(s, r, tr)
    }
}
