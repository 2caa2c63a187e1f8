//! The anchor of a rig: a kinematic body joined to the torso by motors only — the pull that
//! stands a body up during a recovery (the roll, then the rise) and the balance help's
//! strings that hold a biped's body up while it is in physics.

use glam::{Quat, Vec3};
use rapier3d::prelude::{
    GenericJointBuilder, JointAxesMask, JointAxis, MotorModel, PhysicsWorld, RigidBodyBuilder,
};

use super::rig::Rig;
use crate::locomotion::physics::GRAVITY;

/// What the anchor does this tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum AnchorDrive {
    /// Getting up (the roll, then the rise): pull the body to the anchor's pose on every
    /// axis, sized on the whole rig and bounded.
    Recover,
    /// Balance help at this share (0..1): hold the body's height (at most twice the rig's
    /// weight) and keep it upright; sideways and heading free.
    Balance(f32),
}

/// Adds the anchor: a kinematic body at `pose` joined to the torso by a motor-only joint
/// (implicit springs: stable in piles, where an explicit push would pump energy).
pub(crate) fn add_anchor(physics: &mut PhysicsWorld, rig: &mut Rig, pose: (Vec3, Quat)) {
    if rig.anchor.is_some() {
        return;
    }
    let body = physics.insert_body(
        RigidBodyBuilder::kinematic_position_based()
            .pose(rapier3d::math::Pose::from_parts(pose.0, pose.1)),
    );
    let j = GenericJointBuilder::new(JointAxesMask::empty()).contacts_enabled(false);
    let h = physics.insert_impulse_joint(body, rig.bodies[0], j.build());
    rig.anchor = Some((body, h));
    rig.anchor_drive = None;
}

/// Stiffness (1/s²) and damping (1/s) of the righting pull, per kg (per kg·m² turning).
const RIGHT_K: f32 = 300.0;
const RIGHT_D: f32 = 35.0;
/// The most the righting pull carries, in the rig's weights.
const RIGHT_LIFT: f32 = 3.0;

/// Sets the anchor's motors for `drive` (the rig weighs `mass` kg).
pub(crate) fn drive_anchor(
    physics: &mut PhysicsWorld,
    rig: &mut Rig,
    drive: AnchorDrive,
    mass: f32,
) {
    let Some((_, h)) = rig.anchor else { return };
    if rig.anchor_drive == Some(drive) {
        return;
    }
    let turning = rig.turning();
    rig.anchor_drive = Some(drive);
    let Some(joint) = physics.impulse_joints.get_mut(h, true) else {
        return;
    };
    let data = &mut joint.data;
    let all = [
        JointAxis::LinX,
        JointAxis::LinY,
        JointAxis::LinZ,
        JointAxis::AngX,
        JointAxis::AngY,
        JointAxis::AngZ,
    ];
    // Balance leaves sideways motion and the heading free: no motor rows for them at all
    // (each motor axis is a constraint row solved every substep, even at zero force).
    data.motor_axes = JointAxesMask::empty();
    let driven: &[JointAxis] = match drive {
        AnchorDrive::Recover => &all,
        AnchorDrive::Balance(_) => &[JointAxis::LinY, JointAxis::AngX, JointAxis::AngZ],
    };
    for &axis in driven {
        // The lift is force-based on the whole rig's mass (an acceleration-based motor
        // would scale with the torso's alone and sag under the limbs); the rest scale with
        // the torso.
        let (model, k, d, max) = match drive {
            // Sized on the whole rig (its legs may outweigh the body: a centipede's do five
            // times over), bounded: at most RIGHT_LIFT times its weight, and that weight at
            // its reach as torque.
            AnchorDrive::Recover => {
                let (inertia, reach) = turning;
                let weight = mass * GRAVITY;
                match axis {
                    JointAxis::LinX | JointAxis::LinY | JointAxis::LinZ => (
                        MotorModel::ForceBased,
                        RIGHT_K * mass,
                        RIGHT_D * mass,
                        RIGHT_LIFT * weight,
                    ),
                    _ => (
                        MotorModel::ForceBased,
                        RIGHT_K * inertia,
                        RIGHT_D * inertia,
                        RIGHT_LIFT * weight * reach,
                    ),
                }
            }
            AnchorDrive::Balance(help) => match axis {
                JointAxis::LinY => (
                    MotorModel::ForceBased,
                    BALANCE_LIFT * mass * help,
                    12.0 * mass * help,
                    2.0 * GRAVITY * mass * help,
                ),
                _ => (
                    MotorModel::AccelerationBased,
                    200.0 * help,
                    30.0 * help,
                    f32::MAX,
                ),
            },
        };
        data.set_motor_model(axis, model);
        data.set_motor_position(axis, 0.0, k, d);
        data.set_motor_max_force(axis, max);
    }
}

/// Stiffness of the balance lift, 1/s² (TABS' strings: `a = 60 (ride − h) − 12 v`); the
/// anchor stands `g / BALANCE_LIFT` above ride height so the spring carries the weight.
pub(crate) const BALANCE_LIFT: f32 = 60.0;

/// Moves the anchor to `pose` for the next step.
pub(crate) fn move_anchor(physics: &mut PhysicsWorld, rig: &Rig, pose: (Vec3, Quat)) {
    if let Some(b) = rig.anchor.and_then(|(b, _)| physics.bodies.get_mut(b)) {
        b.set_next_kinematic_position(rapier3d::math::Pose::from_parts(pose.0, pose.1));
    }
}

/// Removes the anchor.
pub(crate) fn drop_anchor(physics: &mut PhysicsWorld, rig: &mut Rig) {
    if let Some((b, _)) = rig.anchor.take() {
        physics.remove_body(b);
    }
}
