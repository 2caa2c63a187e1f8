//! `tail = { … }` and `antennae = { … }` of a creature drawn from its definition: chains of
//! bones its generated model gains, which swing on springs (`model::springs`) as a loaded
//! model's free bones do. Where they sit and how they rest, body space: a tail from the back
//! of the body, rising `rise` degrees behind it; antennae from the front of the head (the
//! body's front without one), rising `rise` and spread `spread` degrees apart to each side.

use glam::Vec3;

use super::def::{BodyDef, DefError};
use crate::math::SpringParams;

/// A tail or a pair of antennae.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ChainDef {
    /// Bones (1..=12).
    pub segments: u32,
    /// Length, metres (each antenna's).
    pub length: f32,
    /// Thickness at its root, metres (it tapers to a third).
    pub radius: f32,
    /// How far it rises from the horizontal, radians.
    pub rise: f32,
    /// Antennae: how far each turns out from straight ahead, radians.
    pub spread: f32,
    /// How it swings.
    pub springs: SpringParams,
}

impl ChainDef {
    /// A tail's defaults for `body`: 4 bones, 0.8 of the body's length, rising 15°.
    pub fn tail(body: &BodyDef) -> ChainDef {
        ChainDef {
            segments: 4,
            length: 0.8 * body.size.z,
            radius: 0.12 * body.size.x.min(body.size.y),
            rise: 15f32.to_radians(),
            spread: 0.0,
            springs: SpringParams::default(),
        }
    }

    /// Antennae's defaults for `body`: 3 bones each, 0.6 of the body's length, rising 45°,
    /// 30° apart from straight ahead, light and quick.
    pub fn antennae(body: &BodyDef) -> ChainDef {
        ChainDef {
            segments: 3,
            length: 0.6 * body.size.z,
            radius: (0.03 * body.size.x.min(body.size.y)).max(0.004),
            rise: 45f32.to_radians(),
            spread: 30f32.to_radians(),
            springs: SpringParams {
                stiffness: 400.0,
                damping: 14.0,
                gravity: 0.05,
                drag: 0.5,
            },
        }
    }

    /// Checks it (`field`: `tail` or `antennae`).
    pub fn check(&self, field: &str) -> Result<(), DefError> {
        let bad = |key: &str, msg: String| DefError::new(format!("{field}.{key}"), msg);
        if !(1..=12).contains(&self.segments) {
            return Err(bad(
                "segments",
                format!("must be 1 to 12, got {}", self.segments),
            ));
        }
        if !(self.length > 0.0 && self.length <= 20.0) {
            return Err(bad(
                "length",
                format!("must be > 0 and ≤ 20 (metres), got {}", self.length),
            ));
        }
        if !(self.radius > 0.0 && self.radius <= 0.5 * self.length) {
            return Err(bad(
                "radius",
                format!(
                    "must be > 0 and at most half the length ({}), got {}",
                    0.5 * self.length,
                    self.radius
                ),
            ));
        }
        let deg = |r: f32| r.to_degrees().round();
        if !(self.rise.abs() <= std::f32::consts::FRAC_PI_2 + 1e-4) {
            return Err(bad(
                "rise",
                format!("must be between -90 and 90 degrees, got {}", deg(self.rise)),
            ));
        }
        if !(0.0..=std::f32::consts::FRAC_PI_2 + 1e-4).contains(&self.spread) {
            return Err(bad(
                "spread",
                format!("must be between 0 and 90 degrees, got {}", deg(self.spread)),
            ));
        }
        Ok(())
    }

    /// Its points at rest, body space, root first, from `root` along `dir`.
    fn line(&self, root: Vec3, dir: Vec3) -> Vec<Vec3> {
        let step = self.length / self.segments as f32;
        (0..=self.segments)
            .map(|k| root + dir * (step * k as f32))
            .collect()
    }

    /// A tail's points at rest on `body`.
    pub fn tail_points(&self, body: &BodyDef) -> Vec<Vec3> {
        let s = body.size;
        let root = Vec3::new(0.0, 0.15 * s.y, -0.45 * s.z);
        self.line(root, Vec3::new(0.0, self.rise.sin(), -self.rise.cos()))
    }

    /// Each antenna's points at rest on `body` (left, then right), and whether it starts on
    /// the head.
    pub fn antenna_points(&self, body: &BodyDef) -> (Vec<Vec<Vec3>>, bool) {
        let (centre, half, on_head) = match &body.head {
            Some(h) => (h.offset, 0.5 * h.size, true),
            None => (
                Vec3::new(0.0, 0.0, 0.5 * body.size.z),
                0.5 * body.size,
                false,
            ),
        };
        let sides = [1.0f32, -1.0]
            .iter()
            .map(|side| {
                let root = centre + Vec3::new(side * 0.35 * half.x, 0.6 * half.y, 0.7 * half.z);
                let (c, s) = (self.rise.cos(), self.rise.sin());
                let dir = Vec3::new(side * c * self.spread.sin(), s, c * self.spread.cos());
                self.line(root, dir.normalize())
            })
            .collect();
        (sides, on_head)
    }
}
