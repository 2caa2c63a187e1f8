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
    /// Casts a ray from `origin` along the unit `dir` up to `max_distance` metres (climbers
    /// cast along their own down); the point hit and its face's normal. A ray that starts
    /// inside solid geometry misses. The default answers rays straight down only.
    fn cast(&self, origin: Vec3, dir: Vec3, max_distance: f32) -> Option<GroundHit> {
        if dir.y < -0.9999 {
            self.cast_down_hit(origin, max_distance)
        } else {
            None
        }
    }
    /// The surface point nearest `point` within `max_distance`, with the normal of its face
    /// (pointing out of the solid). The default knows of none.
    fn nearest(&self, point: Vec3, max_distance: f32) -> Option<GroundHit> {
        let _ = (point, max_distance);
        None
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

    fn cast(&self, origin: Vec3, dir: Vec3, max_distance: f32) -> Option<GroundHit> {
        let d = origin.y - self.0;
        if d <= 0.0 || dir.y >= 0.0 {
            return None;
        }
        let t = d / -dir.y;
        (t <= max_distance).then(|| GroundHit {
            point: Vec3::new(origin.x + dir.x * t, self.0, origin.z + dir.z * t),
            normal: Vec3::Y,
        })
    }

    fn nearest(&self, point: Vec3, max_distance: f32) -> Option<GroundHit> {
        (point.y - self.0 <= max_distance).then(|| GroundHit {
            point: Vec3::new(point.x, self.0, point.z),
            normal: Vec3::Y,
        })
    }
}
