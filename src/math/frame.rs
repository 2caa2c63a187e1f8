//! Frame helpers: yaw conventions, angle wrapping and frame-rate independent smoothing.
//!
//! Convention (see lua-api.md): +Y up, a creature faces +Z, yaw is about +Y and yaw 90°
//! turns +Z toward +X. Radians inside Rust; degrees only at the Lua boundary.

use glam::{Quat, Vec3};

/// Rotation about +Y by `yaw` radians (yaw π/2 maps +Z to +X).
#[inline]
pub(crate) fn yaw_rotation(yaw: f32) -> Quat {
    Quat::from_rotation_y(yaw)
}

/// The horizontal forward direction of a body with this yaw.
#[inline]
pub(crate) fn forward_from_yaw(yaw: f32) -> Vec3 {
    Vec3::new(yaw.sin(), 0.0, yaw.cos())
}

/// Yaw (radians) of a horizontal direction; `None` when the direction has no horizontal part.
#[inline]
pub(crate) fn yaw_of(dir: Vec3) -> Option<f32> {
    let h = Vec3::new(dir.x, 0.0, dir.z);
    if h.length_squared() < 1e-12 {
        None
    } else {
        Some(h.x.atan2(h.z))
    }
}

/// Wraps an angle in radians to (-π, π].
#[inline]
pub(crate) fn wrap_angle(a: f32) -> f32 {
    use std::f32::consts::{PI, TAU};
    // Angles are nearly always within a turn of the range: a branch beats a float modulo.
    let mut r = if a > -3.0 * PI && a < 3.0 * PI {
        a
    } else {
        (a + PI).rem_euclid(TAU) - PI
    };
    if r > PI {
        r -= TAU;
    } else if r <= -PI {
        r += TAU;
    }
    r
}

/// Blend factor of an exponential smoother with time constant `tau` over `dt`
/// (`1 − e^(−dt/τ)`): frame-rate independent; `tau <= 0` snaps.
#[inline]
pub(crate) fn smoothing_alpha(dt: f32, tau: f32) -> f32 {
    if tau <= 0.0 {
        1.0
    } else {
        1.0 - (-dt / tau).exp()
    }
}

/// The horizontal part of a vector.
#[inline]
pub(crate) fn horizontal(v: Vec3) -> Vec3 {
    Vec3::new(v.x, 0.0, v.z)
}

/// Euler angles in degrees `(pitch, yaw, roll)` to a rotation that applies yaw, then pitch, then roll
/// (lua-api.md's `rotation = vec3(pitch, yaw, roll)`).
pub(crate) fn rotation_from_pitch_yaw_roll_deg(pyr: Vec3) -> Quat {
    let (p, y, r) = (pyr.x.to_radians(), pyr.y.to_radians(), pyr.z.to_radians());
    Quat::from_rotation_y(y) * Quat::from_rotation_x(p) * Quat::from_rotation_z(r)
}

/// The rotation `t` of the way from none to `q` along the shortest arc — what
/// `Quat::IDENTITY.slerp(q, t)` gives, for one arctangent and one sine-cosine instead of an
/// arccosine and three sines (per creature per tick and frame, they add up).
pub(crate) fn part_of(q: Quat, t: f32) -> Quat {
    let q = if q.w < 0.0 { -q } else { q };
    let v = Vec3::new(q.x, q.y, q.z);
    let s = v.length();
    if s < 1e-6 {
        return Quat::from_xyzw(v.x * t, v.y * t, v.z * t, 1.0).normalize();
    }
    let (sin, cos) = (s.atan2(q.w) * t).sin_cos();
    let axis = v * (sin / s);
    Quat::from_xyzw(axis.x, axis.y, axis.z, cos)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_of_a_rotation_is_the_slerp_from_none() {
        let turns = [
            Quat::from_rotation_z(0.3) * Quat::from_rotation_x(-0.2),
            Quat::from_axis_angle(Vec3::new(1.0, 2.0, -0.5).normalize(), 2.9),
            -Quat::from_rotation_y(1.2),
            Quat::from_rotation_x(1e-8),
            Quat::IDENTITY,
        ];
        for q in turns {
            for t in [0.0, 0.3, 0.5, 1.0] {
                let want = Quat::IDENTITY.slerp(q, t);
                let got = part_of(q, t);
                assert!(got.dot(want).abs() > 1.0 - 1e-6, "{q} {t}: {got} vs {want}");
            }
        }
    }

    #[test]
    fn yaw_ninety_turns_forward_to_plus_x() {
        let f = yaw_rotation(std::f32::consts::FRAC_PI_2) * Vec3::Z;
        assert!((f - Vec3::X).length() < 1e-6, "{f}");
        let f2 = forward_from_yaw(std::f32::consts::FRAC_PI_2);
        assert!((f2 - Vec3::X).length() < 1e-6);
        assert!((yaw_of(Vec3::X).unwrap_or(0.0) - std::f32::consts::FRAC_PI_2).abs() < 1e-6);
        assert!(yaw_of(Vec3::Y).is_none());
    }

    #[test]
    fn wrap_angle_stays_in_range() {
        for (a, want) in [
            (0.0f32, 0.0f32),
            (3.5, 3.5 - std::f32::consts::TAU),
            (-3.5, -3.5 + std::f32::consts::TAU),
            (7.0, 7.0 - std::f32::consts::TAU),
        ] {
            assert!(
                (wrap_angle(a) - want).abs() < 1e-5,
                "{a} -> {}",
                wrap_angle(a)
            );
        }
    }

    #[test]
    fn smoothing_is_frame_rate_independent() {
        let run = |hz: f32| {
            let dt = 1.0 / hz;
            let mut x = 0.0f32;
            for _ in 0..(hz as usize) {
                x += (1.0 - x) * smoothing_alpha(dt, 0.2);
            }
            x
        };
        assert!((run(30.0) - run(120.0)).abs() < 1e-4);
    }
}
