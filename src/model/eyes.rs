//! Eyes: joints under the head named as eyes (`Eye.L`, `eye_r`, `LeftEye`,
//! `mixamorig:RightEye`, `J_Adj_L_FaceEye`, `eyeball.L` — not lids, brows or lashes) turn to
//! what the creature looks at (`c:look_at`), past where the head and neck have turned, up to
//! [`EYE_MAX`]; without a look they ride on the head as bound. Drawing only. They, and their
//! lids, brows and lashes, are never spring chains.

use glam::{Affine3A, Mat3A, Quat, Vec3};

use super::{Binding, Model};

/// How far an eye turns from where its head faces (radians): about what a real eye does
/// before the head must follow.
pub const EYE_MAX: f32 = 30.0 * std::f32::consts::PI / 180.0;

/// Whether a joint's name names an eye or what moves with one (a lid, a brow, lashes):
/// what a face does, never a spring chain.
pub(crate) fn is_face_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    ["eye", "lid", "brow", "lash"].iter().any(|w| n.contains(w))
}

/// Whether a joint's name names an eye (not its lid, brow or lashes, nor an exporter's
/// `_end` marker).
pub fn is_eye_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.contains("eye")
        && ![
            "lid", "brow", "lash", "_end", ".end", "target", "ik", "ctrl", "control",
        ]
        .iter()
        .any(|w| n.contains(w))
}

/// The eyes of `model` bound as `binding`: each eye joint (the first on its way down from
/// the head) and its gaze in its own joint space (the model's forward in the bind pose).
pub fn find_eyes(model: &Model, binding: &Binding) -> Vec<(usize, Vec3)> {
    let Some(head) = binding.head else {
        return Vec::new();
    };
    // The model's forward (+Z of the creature) in scene space.
    let forward = Affine3A::from_mat4(binding.fix)
        .inverse()
        .transform_vector3(Vec3::Z);
    let mut eyes = Vec::new();
    let mut stack: Vec<usize> = model.joints[head].children.clone();
    while let Some(j) = stack.pop() {
        if is_eye_name(&model.joints[j].name) {
            let gaze = model.joints[j]
                .bind
                .inverse()
                .transform_vector3(forward)
                .normalize_or_zero();
            if gaze != Vec3::ZERO {
                eyes.push((j, gaze));
            }
            continue;
        }
        stack.extend(model.joints[j].children.iter().copied());
    }
    eyes.sort_by_key(|(j, _)| *j);
    eyes
}

/// An eye riding at `m` (world), its gaze `gaze` (joint space), turned about its centre
/// toward `target` — as far as [`EYE_MAX`] from where it faces now, no farther.
pub(crate) fn aim_eye(mut m: Affine3A, gaze: Vec3, target: Vec3) -> Affine3A {
    let now = (m.matrix3 * glam::Vec3A::from(gaze)).normalize_or_zero();
    let want = (glam::Vec3A::from(target) - m.translation).normalize_or_zero();
    if now == glam::Vec3A::ZERO || want == glam::Vec3A::ZERO {
        return m;
    }
    let (now, want) = (Vec3::from(now), Vec3::from(want));
    let angle = now.angle_between(want);
    let turn = Quat::from_rotation_arc(now, want);
    let turn = if angle > EYE_MAX {
        Quat::IDENTITY.slerp(turn, EYE_MAX / angle)
    } else {
        turn
    };
    m.matrix3 = Mat3A::from_quat(turn) * m.matrix3;
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eyes_are_named_as_exporters_name_them() {
        for n in [
            "Eye.L",
            "eye_r",
            "LeftEye",
            "mixamorig:RightEye",
            "J_Adj_L_FaceEye",
            "eyeball.L",
            "DEF-eye.R",
        ] {
            assert!(is_eye_name(n), "{n}");
        }
        for n in [
            "Eyelid.L",
            "eyebrow_r",
            "Eyelash",
            "Eye.L_end",
            "eye_target",
            "Head",
            "Tail1",
        ] {
            assert!(!is_eye_name(n), "{n}");
        }
    }

    #[test]
    fn an_eye_turns_to_its_target_up_to_its_limit() {
        let m = Affine3A::from_translation(Vec3::new(0.0, 1.0, 0.0));
        // Within the limit: straight at it.
        let to = Vec3::new(0.5, 1.2, 2.0);
        let a = aim_eye(m, Vec3::Z, to);
        let gaze = a.transform_vector3(Vec3::Z);
        assert!(gaze.angle_between(to - Vec3::Y) < 1e-3);
        assert_eq!(
            Vec3::from(a.translation),
            Vec3::Y,
            "turned about its centre"
        );
        // Beside it: as far as it may.
        let b = aim_eye(m, Vec3::Z, Vec3::new(3.0, 1.0, 0.0));
        let gaze = b.transform_vector3(Vec3::Z);
        assert!((gaze.angle_between(Vec3::Z) - EYE_MAX).abs() < 1e-3);
        assert!(gaze.x > 0.0);
    }
}
