//! The one question locomotion asks the world: where is the ground below this point?

use glam::Vec3;

/// Ground queries locomotion needs; the sim layer implements them with physics casts.
pub trait GroundQuery {
    /// Casts a ray straight down from `origin` up to `max_distance` metres; the surface point hit.
    fn cast_down(&self, origin: Vec3, max_distance: f32) -> Option<Vec3>;
    /// [`GroundQuery::cast_down`] with the normal of the face hit (a ray down meets faces
    /// from above: the normal points up, or sideways on a face as steep as a wall). The
    /// default: the point, on a level face.
    fn cast_down_hit(&self, origin: Vec3, max_distance: f32) -> Option<GroundHit> {
        self.cast_down(origin, max_distance).map(|point| GroundHit {
            point,
            normal: Vec3::Y,
        })
    }
    /// Sweeps a sphere of `radius` down from `origin` (for spots a thin ray could slip through);
    /// the surface point the sphere comes to rest on. The default falls back to a ray.
    fn sweep_down(&self, origin: Vec3, radius: f32, max_distance: f32) -> Option<Vec3> {
        let _ = radius;
        self.cast_down(origin, max_distance)
    }
}

/// Where a ground cast hit: the surface point and the unit normal of the face there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroundHit {
    /// The surface point.
    pub point: Vec3,
    /// The face's unit normal.
    pub normal: Vec3,
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
