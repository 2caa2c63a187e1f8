//! The one question locomotion asks the world: where is the ground below this point?

use glam::Vec3;

/// Ground queries locomotion needs; the sim layer implements them with physics casts.
pub trait GroundQuery {
    /// Casts a ray straight down from `origin` up to `max_distance` metres; the surface point hit.
    fn cast_down(&self, origin: Vec3, max_distance: f32) -> Option<Vec3>;
    /// Sweeps a sphere of `radius` down from `origin` (for spots a thin ray could slip through);
    /// the surface point the sphere comes to rest on. The default falls back to a ray.
    fn sweep_down(&self, origin: Vec3, radius: f32, max_distance: f32) -> Option<Vec3> {
        let _ = radius;
        self.cast_down(origin, max_distance)
    }
}

/// Flat ground at a fixed height: for tests and for scenes with no level.
#[derive(Clone, Copy, Debug)]
pub struct FlatGround(pub f32);

impl GroundQuery for FlatGround {
    fn cast_down(&self, origin: Vec3, max_distance: f32) -> Option<Vec3> {
        let d = origin.y - self.0;
        (d >= 0.0 && d <= max_distance).then(|| Vec3::new(origin.x, self.0, origin.z))
    }
}
