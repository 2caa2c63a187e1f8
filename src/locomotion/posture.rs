//! Body posture from the feet: a least-squares plane through the support points gives the
//! ride height and tilt the body eases toward.

use glam::Vec3;

/// A fitted support plane, expressed at a reference point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SupportPlane {
    /// Plane height directly at the reference point's x, z.
    pub height: f32,
    /// Unit normal, pointing up.
    pub normal: Vec3,
}

/// Fits `y = h + a·dx + b·dz` (d relative to `at`) to `points` by least squares.
/// Fewer than three points, or points on a line, give a level plane at their mean height.
/// `None` only when there are no points.
#[inline]
pub(crate) fn fit_plane(points: &[Vec3], at: Vec3) -> Option<SupportPlane> {
    if points.is_empty() {
        return None;
    }
    let n = points.len() as f32;
    let mut mean = Vec3::ZERO;
    for p in points {
        mean += *p - at;
    }
    mean /= n;
    let level = SupportPlane {
        height: mean.y,
        normal: Vec3::Y,
    };
    if points.len() < 3 {
        return Some(level);
    }
    let (mut sxx, mut sxz, mut szz, mut sxy, mut szy) = (0.0f32, 0.0f32, 0.0f32, 0.0f32, 0.0f32);
    for p in points {
        let d = *p - at - mean;
        sxx += d.x * d.x;
        sxz += d.x * d.z;
        szz += d.z * d.z;
        sxy += d.x * d.y;
        szy += d.z * d.y;
    }
    let det = sxx * szz - sxz * sxz;
    let scale = (sxx + szz).max(1e-6);
    if det.abs() < 1e-4 * scale * scale {
        return Some(level);
    }
    let a = (sxy * szz - szy * sxz) / det;
    let b = (szy * sxx - sxy * sxz) / det;
    let height = mean.y - a * mean.x - b * mean.z;
    let normal = Vec3::new(-a, 1.0, -b).normalize();
    if !height.is_finite() || !normal.is_finite() {
        return Some(level);
    }
    Some(SupportPlane { height, normal })
}

/// Limits `normal` to at most `max_tilt` radians away from +Y.
pub(crate) fn clamp_tilt(normal: Vec3, max_tilt: f32) -> Vec3 {
    let cos = normal.y.clamp(-1.0, 1.0);
    if cos >= max_tilt.cos() {
        return normal;
    }
    let h = Vec3::new(normal.x, 0.0, normal.z).normalize_or_zero();
    (Vec3::Y * max_tilt.cos() + h * max_tilt.sin()).normalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_a_slope_exactly() {
        // 25° slope rising along +z.
        let t = 25f32.to_radians().tan();
        let pts: Vec<Vec3> = [
            (1.0, 1.0),
            (-1.0, 1.0),
            (1.0, -1.0),
            (-1.0, -1.0),
            (0.5, 0.0),
        ]
        .iter()
        .map(|(x, z)| Vec3::new(*x, 2.0 + t * z, *z))
        .collect();
        let p = fit_plane(&pts, Vec3::new(0.0, 0.0, 0.0)).expect("plane");
        assert!((p.height - 2.0).abs() < 1e-4, "{}", p.height);
        let tilt = p.normal.angle_between(Vec3::Y).to_degrees();
        assert!((tilt - 25.0).abs() < 0.01, "{tilt}");
        assert!(p.normal.z < 0.0, "normal leans away from the uphill side");
    }

    #[test]
    fn degenerate_inputs_are_level() {
        assert!(fit_plane(&[], Vec3::ZERO).is_none());
        let line = [
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(1.0, 2.0, 0.0),
            Vec3::new(2.0, 3.0, 0.0),
        ];
        let p = fit_plane(&line, Vec3::ZERO).expect("plane");
        assert_eq!(p.normal, Vec3::Y);
        assert!((p.height - 2.0).abs() < 1e-5);
    }

    #[test]
    fn tilt_is_clamped() {
        let n = Vec3::new(1.0, 1.0, 0.0).normalize();
        let c = clamp_tilt(n, 30f32.to_radians());
        assert!((c.angle_between(Vec3::Y).to_degrees() - 30.0).abs() < 1e-3);
        assert_eq!(clamp_tilt(Vec3::Y, 0.5), Vec3::Y);
    }
}
