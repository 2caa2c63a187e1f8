//! An orbit camera: a target, a distance, yaw and pitch. Projection and picking rays.

use glam::{Mat4, Vec3, Vec4Swizzles};

/// Vertical field of view, degrees (documented: tests project with it).
pub(crate) const FOV_Y_DEG: f32 = 50.0;
/// Near plane, metres.
pub(crate) const NEAR: f32 = 0.05;
/// Far plane, metres.
pub(crate) const FAR: f32 = 400.0;

/// Orbit camera around `target`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrbitCamera {
    /// Point looked at.
    pub target: Vec3,
    /// Distance from the target, metres.
    pub distance: f32,
    /// Radians about +Y; 0 looks along +Z... from −Z (the eye sits at −Z of the target).
    pub yaw: f32,
    /// Radians above the horizon.
    pub pitch: f32,
}

impl Default for OrbitCamera {
    fn default() -> Self {
        OrbitCamera {
            target: Vec3::ZERO,
            distance: 24.0,
            yaw: 0.6,
            pitch: 0.62,
        }
    }
}

impl OrbitCamera {
    /// The camera position.
    pub fn eye(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        self.target + Vec3::new(-sy * cp, sp, -cy * cp) * self.distance
    }

    /// A camera at `from` looking at `at`.
    pub fn look(from: Vec3, at: Vec3) -> OrbitCamera {
        let d = from - at;
        let distance = d.length().max(0.1);
        let pitch = (d.y / distance).clamp(-1.0, 1.0).asin();
        let yaw = (-d.x).atan2(-d.z);
        OrbitCamera {
            target: at,
            distance,
            yaw,
            pitch,
        }
    }

    /// World → view.
    pub fn view(&self) -> Mat4 {
        glam::camera::rh::view::look_at_mat4(self.eye(), self.target, Vec3::Y)
    }

    /// View → clip for an aspect ratio (depth 0..1).
    pub fn proj(&self, aspect: f32) -> Mat4 {
        glam::camera::rh::proj::directx::perspective(
            FOV_Y_DEG.to_radians(),
            aspect.max(1e-3),
            NEAR,
            FAR,
        )
    }

    /// World → clip.
    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        self.proj(aspect) * self.view()
    }

    /// Pixel position of a world point in a `w`×`h` image (None behind the camera).
    pub fn project(&self, p: Vec3, w: u32, h: u32) -> Option<(f32, f32)> {
        let c = self.view_proj(w as f32 / h as f32) * p.extend(1.0);
        if c.w <= 0.0 {
            return None;
        }
        let n = c.xyz() / c.w;
        Some(((n.x * 0.5 + 0.5) * w as f32, (0.5 - n.y * 0.5) * h as f32))
    }

    /// The ray through pixel (`x`, `y`) of a `w`×`h` view: origin and unit direction.
    pub fn ray(&self, x: f32, y: f32, w: u32, h: u32) -> (Vec3, Vec3) {
        let inv = self.view_proj(w as f32 / h as f32).inverse();
        let nx = x / w as f32 * 2.0 - 1.0;
        let ny = 1.0 - y / h as f32 * 2.0;
        let near = inv * glam::Vec4::new(nx, ny, 0.0, 1.0);
        let far = inv * glam::Vec4::new(nx, ny, 1.0, 1.0);
        let (a, b) = (near.xyz() / near.w, far.xyz() / far.w);
        (a, (b - a).normalize_or(Vec3::NEG_Z))
    }

    /// Orbits by pixel deltas.
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        self.yaw -= dx * 0.006;
        self.pitch = (self.pitch + dy * 0.006).clamp(-0.2, 1.5);
    }

    /// Pans by pixel deltas (scaled with distance).
    pub fn pan(&mut self, dx: f32, dy: f32) {
        let fwd = (self.target - self.eye()).normalize_or(Vec3::Z);
        let right = fwd.cross(Vec3::Y).normalize_or(Vec3::X);
        let up = right.cross(fwd);
        let k = self.distance * 0.0015;
        self.target += (-right * dx + up * dy) * k;
    }

    /// Zooms by wheel steps (positive = closer).
    pub fn zoom(&mut self, steps: f32) {
        self.distance = (self.distance * 0.88f32.powf(steps)).clamp(1.0, 200.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_round_trips_and_projects_the_target_to_the_centre() {
        let c = OrbitCamera::look(Vec3::new(3.0, 4.0, -6.0), Vec3::new(1.0, 0.5, 2.0));
        assert!(
            (c.eye() - Vec3::new(3.0, 4.0, -6.0)).length() < 1e-4,
            "{}",
            c.eye()
        );
        let (x, y) = c.project(c.target, 640, 360).expect("in front");
        assert!((x - 320.0).abs() < 0.01 && (y - 180.0).abs() < 0.01);
        let (o, d) = c.ray(320.0, 180.0, 640, 360);
        let to = (c.target - o).normalize();
        assert!(to.dot(d) > 0.9999);
        assert!(
            c.project(c.eye() - (c.target - c.eye()), 640, 360)
                .is_none(),
            "behind"
        );
    }
}
