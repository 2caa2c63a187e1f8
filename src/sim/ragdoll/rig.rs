//! Rapier bodies and joints for one ragdolled creature, built from plain data (its parts'
//! poses and velocities) and the creature's definition; removed without a trace. Nothing
//! here is kept in a checkpoint: a rig is rebuilt from [`super::Ragdoll::parts`] whenever
//! the physics world was replaced (a level edit) or the World was restored.

use glam::{Mat3, Quat, Vec3};
use rapier3d::prelude::{
    ActiveHooks, ColliderBuilder, GenericJoint, ImpulseJointHandle, InteractionGroups,
    JointAxesMask, JointAxis, MotorModel, PhysicsWorld, RevoluteJointBuilder, RigidBodyBuilder,
    RigidBodyHandle, SphericalJointBuilder,
};

use super::anchor::AnchorDrive;
use super::Part;
use crate::locomotion::physics::{bend_axis, limb_radius, split_mass};
use crate::locomotion::{FlatGround, JointKind, Locomotor, Muscle, ValidCreatureDef};
use crate::sim::world::CreatureId;

/// Collision group of level colliders (bit 0) and of uncoloured ragdoll parts (bit 1);
/// the other 30 bits are the parts' colours (see [`set_colour`]).
pub(crate) const LEVEL_GROUP: u32 = 1;
const PARTS_GROUP: u32 = 2;
/// How many colours a rig may have: bits 2 to 31.
pub(crate) const COLOURS: u32 = 30;
/// Every bit a part may be in: uncoloured and each colour.
const ALL_PARTS: u32 = !LEVEL_GROUP;

/// The collision groups of a rig's parts. Uncoloured parts touch every part and the level
/// (their own parts are kept apart by `step::OwnPartsApart`, pair by pair, each step). A
/// coloured rig's parts touch the level and every part but those of its colour — its own,
/// and those of no other rig it could reach (`groups::regroup` colours neighbours apart) —
/// so rapier's broad phase never pairs a rig's own parts (four in five of a shoving crowd's
/// pairs were a soldier's own, each looked at every step).
fn part_groups(colour: Option<u32>) -> InteractionGroups {
    let (member, filter) = match colour {
        Some(c) => {
            let bit = 4u32 << c;
            (bit, LEVEL_GROUP | (ALL_PARTS & !bit))
        }
        None => (PARTS_GROUP, LEVEL_GROUP | ALL_PARTS),
    };
    InteractionGroups::new(member.into(), filter.into(), Default::default())
}

/// Gives `rig`'s parts `colour` (see [`part_groups`]): rapier re-pairs them in its broad
/// phase.
pub(crate) fn set_colour(physics: &mut PhysicsWorld, rig: &mut Rig, colour: Option<u32>) {
    let groups = part_groups(colour);
    let PhysicsWorld {
        bodies, colliders, ..
    } = physics;
    for h in &rig.bodies {
        let Some(b) = bodies.get(*h) else { continue };
        for c in b.colliders() {
            if let Some(c) = colliders.get_mut(*c) {
                c.set_collision_groups(groups);
            }
        }
    }
    rig.colour = colour;
}

/// Solver substeps a rig needs on top of the world's [`SOLVER_ITERATIONS`]: six in
/// all for a stance that stands on its muscles. Load-bearing chains (body, thigh, shin at
/// mass ratios up to 8) converge slowly: a standing spider's joints sit 2.4° off their
/// targets on average at six, 4.9° at three (its body 10 % below ride height — the hold
/// test's bars, 5° and 10 %, only just held), and at two it sags a sixth of its height.
///
/// [`SOLVER_ITERATIONS`]: crate::sim::ground::SOLVER_ITERATIONS
const RIG_EXTRA_ITERATIONS: usize = 4;

/// The same for a type the balance help holds up (bipeds): three substeps in all — the
/// help's strings carry most of its weight, so its legs' pose error is not what holds it
/// up, and each substep costs about an eighth of a shoving soldier's tick (1 000 shoving
/// soldiers on one thread: 57 ms a tick at six, 33 ms at three). What fewer substeps leave
/// behind is kept from the eye and from sleep elsewhere: a limb resting on a joint limit
/// buzzes at about gravity × the substep (stillness is judged by travel, see
/// `STILL_DRIFT`), and a helped body sways (see [`SETTLING_DAMPING`]). Where such rigs
/// and a muscle-standing one share a group, the contact island holding the muscle-standing
/// one steps at six, the rest at three (`groups::step_worlds`).
const HELPED_EXTRA_ITERATIONS: usize = 1;

/// Linear damping of every part (rapier's, 1/s).
const PART_LINEAR_DAMPING: f32 = 0.05;

/// Angular damping of every part (rapier's, 1/s): a limp limb is not frictionless (with
/// 0.2 a limp spider creeps at 5–10 cm/s forever and never sleeps).
const PART_ANGULAR_DAMPING: f32 = 1.0;

/// Damping (linear and angular, 1/s) of a rig on balance help whose every part is slower
/// than [`SETTLING_SPEED`]: at three substeps a body held up by the balance help keeps a
/// slow sway (5–13 cm/s) that the solver no longer damps, and a crowd of them never settles
/// (issue 12's energy bar failed). Below a walking pace only, so a shove or a fall is not
/// slowed.
pub(crate) const SETTLING_DAMPING: f32 = 3.0;

/// See [`SETTLING_DAMPING`], m/s.
pub(crate) const SETTLING_SPEED: f32 = 0.3;

/// Fastest a part may move, m/s, and turn, rad/s (seed 003 §9.2).
pub(crate) const MAX_SPEED: f32 = 10.0;
pub(crate) const MAX_SPIN: f32 = 20.0;

/// Where every part of a creature stands in its standing pose, body space (the body part
/// at the origin, unrotated): the pose the muscles pull toward.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct StandPose {
    /// Part poses (body first, then each leg's segments from the hip down).
    pub(crate) parts: Vec<(Vec3, Quat)>,
}

/// Poses of a leg's segments along a chain of joint points (hip first, foot last), each
/// segment a part whose local +Y runs from its upper end to its lower end and whose local
/// +X is the leg's bend axis; `lengths` keep the chain exact when the points overreach.
pub(crate) fn chain_poses(
    points: &[Vec3],
    lengths: &[f32],
    axis: Vec3,
    out: &mut Vec<(Vec3, Quat)>,
) {
    let mut at = points[0];
    for (k, len) in lengths.iter().enumerate() {
        let to = points.get(k + 1).copied().unwrap_or(at + Vec3::NEG_Y);
        let d = (to - at).try_normalize().unwrap_or(Vec3::NEG_Y);
        let x = (axis - d * axis.dot(d))
            .try_normalize()
            .unwrap_or_else(|| d.any_orthonormal_vector());
        let rot = Quat::from_mat3(&Mat3::from_cols(x, d, x.cross(d))).normalize();
        out.push((at + d * (len * 0.5), rot));
        at += d * *len;
    }
}

/// A leg or an arm, as the rig sees it.
pub(crate) struct Limb<'a> {
    pub(crate) name: &'a str,
    /// Where it joins the body, body space.
    pub(crate) attach: Vec3,
    pub(crate) segments: &'a [f32],
    pub(crate) length: f32,
    pub(crate) arm: bool,
}

/// The legs, then the arms.
pub(crate) fn limbs(def: &ValidCreatureDef) -> Vec<Limb<'_>> {
    let legs = def.legs.iter().map(|l| Limb {
        name: &l.name,
        attach: l.hip,
        segments: &l.segments,
        length: l.length,
        arm: false,
    });
    let arms = def.arms.iter().map(|a| Limb {
        name: &a.name,
        attach: a.shoulder,
        segments: &a.segments,
        length: a.segments.iter().sum(),
        arm: true,
    });
    legs.chain(arms).collect()
}

/// Shoulder limits (swing, twist) and elbow range, degrees.
const SHOULDER: (f32, f32) = (120.0, 45.0);
const ELBOW: [f32; 2] = [0.0, 150.0];

impl Limb<'_> {
    /// The joint above segment `si`.
    pub(crate) fn joint_kind(&self, si: usize) -> JointKind {
        match (self.arm, si == 0) {
            (false, true) => JointKind::Hip,
            (false, false) => JointKind::Knee,
            (true, true) => JointKind::Shoulder,
            (true, false) => JointKind::Elbow,
        }
    }

    /// Its top joint's swing and twist limits and its lower joints' bend range, degrees
    /// (legs from the type's `physics.limits`, arms fixed).
    pub(crate) fn limits(&self, p: &crate::locomotion::PhysicsDef) -> (f32, f32, [f32; 2]) {
        if self.arm {
            (SHOULDER.0, SHOULDER.1, ELBOW)
        } else {
            (p.hip_swing, p.hip_twist, p.knee)
        }
    }
}

/// A leg's joint points from the hip to the foot.
fn leg_points(l: &crate::locomotion::locomotor::LegState) -> Vec<Vec3> {
    let mut pts = Vec::with_capacity(2 + l.joints.len());
    pts.push(l.hip);
    if l.joints.is_empty() {
        pts.push(l.knee);
    } else {
        pts.extend_from_slice(&l.joints);
    }
    pts.push(l.foot);
    pts
}

/// The parts of an animated creature as it stands now: the body as drawn, each leg's
/// segments along its IK chain. Velocities are the body's.
pub(crate) fn parts_from_pose(def: &ValidCreatureDef, loco: &Locomotor) -> Vec<Part> {
    let rot = loco.rotation();
    let mut poses = vec![(loco.body_position(), rot)];
    let fallback = (rot * Vec3::X).normalize();
    for (leg, st) in def.legs.iter().zip(&loco.legs) {
        let pts = leg_points(st);
        let axis = bend_axis(pts[0], pts[1], pts[pts.len() - 1], fallback);
        chain_poses(&pts, &leg.segments, axis, &mut poses);
    }
    for (arm, pts) in def
        .arms
        .iter()
        .zip(crate::locomotion::arm_chains(def, loco))
    {
        let axis = bend_axis(pts[0], pts[1], pts[pts.len() - 1], fallback);
        chain_poses(&pts, &arm.segments, axis, &mut poses);
    }
    poses
        .into_iter()
        .map(|(position, rotation)| Part {
            position,
            rotation,
            linvel: loco.velocity,
            angvel: Vec3::ZERO,
        })
        .collect()
}

/// The standing pose of a type (its legs' IK on flat ground at ride height).
pub(crate) fn stand_pose(def: &ValidCreatureDef) -> StandPose {
    let loco = Locomotor::spawn(def, Vec3::ZERO, 0.0, &FlatGround(0.0));
    let origin = loco.body_position();
    let parts = parts_from_pose(def, &loco)
        .into_iter()
        .map(|p| (p.position - origin, p.rotation))
        .collect();
    StandPose { parts }
}

/// One muscle-driven joint of a rig.
#[derive(Clone, Debug)]
pub(crate) struct RigJoint {
    pub(crate) handle: ImpulseJointHandle,
    pub(crate) kind: JointKind,
    pub(crate) muscle: Muscle,
    /// Revolute joints: the target angle (rad); spherical: 0 on every axis.
    pub(crate) target: f32,
    /// Index of the parent part (0: the body).
    pub(crate) parent: usize,
    /// Index of the child part.
    pub(crate) child: usize,
}

/// The rapier side of a ragdoll.
#[derive(Clone, Debug)]
pub(crate) struct Rig {
    pub(crate) bodies: Vec<RigidBodyHandle>,
    pub(crate) joints: Vec<RigJoint>,
    /// The kinematic body that pulls the torso up during a recovery, and its joint.
    pub(crate) anchor: Option<(RigidBodyHandle, ImpulseJointHandle)>,
    /// What the anchor's motors were last set to.
    pub(crate) anchor_drive: Option<AnchorDrive>,
    /// The muscle strength and gains last written to the motors (NaN: never).
    pub(crate) applied: [f32; 3],
    pub(crate) masses: Vec<f32>,
    pub(crate) stand: StandPose,
    /// rapier has put it to sleep (with the rest of its island): nothing to drive or read.
    pub(crate) asleep: bool,
    /// Still long enough to sleep (see [`set_settled`]): rapier may put it to sleep, and it
    /// is not driven meanwhile.
    pub(crate) settled: bool,
    /// Its parts have the settling damping (see [`set_settling`]).
    pub(crate) damped: bool,
    /// Solver substeps it needs on top of [`SOLVER_ITERATIONS`] (see
    /// [`RIG_EXTRA_ITERATIONS`]): its world steps with the fewest of its rigs', its bodies
    /// carry the rest.
    ///
    /// [`SOLVER_ITERATIONS`]: crate::sim::ground::SOLVER_ITERATIONS
    pub(crate) extra_iterations: usize,
    /// The extra substeps its bodies carry now (rapier's per-body count; see
    /// [`set_body_extra`]).
    pub(crate) body_extra: usize,
    /// The physics world (interaction group) it lives in: the key of `Rigs::worlds`.
    pub(crate) world: u32,
    /// Its parts' colour (see [`set_colour`]); none when built.
    pub(crate) colour: Option<u32>,
}

impl Rig {
    /// Solver substeps it needs on top of [`SOLVER_ITERATIONS`] now: a muscle-standing
    /// stance's extra ([`RIG_EXTRA_ITERATIONS`]) only while its muscles are strong enough to
    /// stand ([`LIMITS_BELOW`] and up); limp, it lies like any other rig
    /// ([`HELPED_EXTRA_ITERATIONS`]) — a spider knocked into a melee would otherwise step
    /// the whole pile it lies in (its contact island) at six substeps.
    ///
    /// [`SOLVER_ITERATIONS`]: crate::sim::ground::SOLVER_ITERATIONS
    pub(crate) fn extra_now(&self) -> usize {
        if self.applied[0] >= LIMITS_BELOW {
            self.extra_iterations
        } else {
            self.extra_iterations.min(HELPED_EXTRA_ITERATIONS)
        }
    }

    /// Total mass, kg.
    pub(crate) fn mass(&self) -> f32 {
        self.masses.iter().sum()
    }

    /// The standing rig's moment of inertia about its body's centre (each part a point
    /// mass; at least a tenth of the whole mass at the reach), kg·m², and the reach of its
    /// farthest part from the centre, m.
    pub(crate) fn turning(&self) -> (f32, f32) {
        let reach = self
            .stand
            .parts
            .iter()
            .map(|(p, _)| p.length())
            .fold(0.0f32, f32::max)
            .max(0.05);
        let inertia = self
            .stand
            .parts
            .iter()
            .zip(&self.masses)
            .map(|((p, _), m)| m * p.length_squared())
            .sum::<f32>()
            .max(self.mass() * reach * reach * 0.1);
        (inertia, reach)
    }
}

fn rad(deg: f32) -> f32 {
    deg.to_radians()
}

/// A part's collider: its mass, friction, creature tag (own parts never touch, see
/// `step::OwnPartsApart`) and the parts' collision group.
fn part_collider(b: ColliderBuilder, mass: f32, id: CreatureId, friction: f32) -> ColliderBuilder {
    let groups = part_groups(None);
    b.mass(mass)
        .friction(friction)
        .user_data(id.0 as u128 + 1)
        .collision_groups(groups)
        .active_hooks(ActiveHooks::FILTER_CONTACT_PAIRS)
}

/// A part's rigid body, where and as fast as `part` says.
fn body_of(physics: &mut PhysicsWorld, part: &Part) -> RigidBodyHandle {
    physics.insert_body(
        RigidBodyBuilder::dynamic()
            .pose(rapier3d::math::Pose::from_parts(
                part.position,
                part.rotation,
            ))
            .linvel(part.linvel)
            .angvel(part.angvel)
            .linear_damping(PART_LINEAR_DAMPING)
            .angular_damping(PART_ANGULAR_DAMPING),
    )
}

/// A thin capsule barely resists spinning about its own axis; its motors then chatter and
/// it never settles. Give it a quarter of its crosswise inertia there.
fn add_spin_inertia(physics: &mut PhysicsWorld, h: RigidBodyHandle, mass: f32, len: f32) {
    let spin = rapier3d::prelude::MassProperties::new(
        Vec3::ZERO,
        0.0,
        Vec3::new(0.0, mass * len * len / 48.0, 0.0),
    );
    if let Some(b) = physics.bodies.get_mut(h) {
        b.set_additional_mass_properties(spin, false);
    }
}

/// The joint above segment `si` of `leg` (part `k`), with its motor's target: the hip or
/// shoulder a spherical joint whose rest frame is the standing pose (limits around it,
/// motors to 0), a knee or elbow a revolute joint about the bend axis (its target the
/// standing angle).
fn limb_joint(
    p: &crate::locomotion::PhysicsDef,
    stand: &StandPose,
    leg: &Limb<'_>,
    si: usize,
    k: usize,
) -> (GenericJoint, f32) {
    let len = leg.segments[si];
    let (swing, twist, bend) = leg.limits(p);
    if si == 0 {
        let rest = stand.parts[0].1.inverse() * stand.parts[k].1;
        let mut j = SphericalJointBuilder::new()
            .local_frame1(rapier3d::math::Pose::from_parts(leg.attach, rest))
            .local_frame2(rapier3d::math::Pose::from_translation(Vec3::new(
                0.0,
                -len * 0.5,
                0.0,
            )))
            .contacts_enabled(false);
        for (axis, lim) in [
            (JointAxis::AngX, swing),
            (JointAxis::AngY, twist),
            (JointAxis::AngZ, swing),
        ] {
            j = j
                .limits(axis, [-rad(lim), rad(lim)])
                .motor_model(axis, MotorModel::ForceBased);
        }
        return (j.build().into(), 0.0);
    }
    let above = leg.segments[si - 1];
    let (lo, hi) = (rad(bend[0]), rad(bend[1]));
    let j = RevoluteJointBuilder::new(Vec3::X)
        .local_anchor1(Vec3::new(0.0, above * 0.5, 0.0))
        .local_anchor2(Vec3::new(0.0, -len * 0.5, 0.0))
        .limits([lo, hi])
        .motor_model(MotorModel::ForceBased)
        .contacts_enabled(false)
        .build();
    let target: f32 = j.angle(&stand.parts[k - 1].1, &stand.parts[k].1);
    (j.into(), target.clamp(lo, hi))
}

/// Builds the rig of creature `id` from `parts` (as many as the definition has parts).
pub(crate) fn build(
    physics: &mut PhysicsWorld,
    id: CreatureId,
    def: &ValidCreatureDef,
    parts: &[Part],
) -> Rig {
    let p = &def.physics;
    let segs: Vec<Vec<f32>> = def.legs.iter().map(|l| l.segments.clone()).collect();
    let arms: Vec<Vec<f32>> = def.arms.iter().map(|a| a.segments.clone()).collect();
    let (body_mass, leg_masses) = split_mass(def.body.mass, &segs, &arms);
    let radii = segment_radii(def);
    let collider = |b: ColliderBuilder, mass: f32| part_collider(b, mass, id, p.friction);
    let mut bodies = Vec::with_capacity(parts.len());
    let mut masses = Vec::with_capacity(parts.len());
    let extra = if p.balance_for(def.legs.len()) > 0.0 {
        HELPED_EXTRA_ITERATIONS
    } else {
        RIG_EXTRA_ITERATIONS
    };
    // The body: a box, and the head as a second collider (10 % of the body's mass).
    let torso = body_of(physics, &parts[0]);
    let half = def.body.size * 0.5;
    let head_mass = if def.body.head.is_some() { 0.1 } else { 0.0 };
    physics.insert_collider(
        collider(
            ColliderBuilder::cuboid(half.x, half.y, half.z),
            body_mass * (1.0 - head_mass),
        ),
        Some(torso),
    );
    if let Some(h) = &def.body.head {
        let hr = h.size.min_element() * 0.5;
        physics.insert_collider(
            collider(ColliderBuilder::ball(hr), body_mass * head_mass).translation(h.offset),
            Some(torso),
        );
    }
    bodies.push(torso);
    masses.push(body_mass);
    let stand = stand_pose(def);
    let mut joints = Vec::new();
    let n = def.legs.len();
    let mut k = 1;
    for (li, leg) in limbs(def).iter().enumerate() {
        let mut parent = torso;
        for (si, len) in leg.segments.iter().enumerate() {
            let part = parts.get(k).copied().unwrap_or(parts[0]);
            let h = body_of(physics, &part);
            add_spin_inertia(physics, h, leg_masses[li][si], *len);
            let r = radii[li][si];
            let half_h = (len * 0.5 - r).max(0.0);
            physics.insert_collider(
                collider(ColliderBuilder::capsule_y(half_h, r), leg_masses[li][si]),
                Some(h),
            );
            let kind = leg.joint_kind(si);
            let muscle = if leg.arm {
                let arm_mass = leg_masses[li].iter().sum();
                p.muscle_for(arm_mass, 1, leg.name, leg.length, kind)
            } else {
                p.muscle_for(def.body.mass, n, leg.name, leg.length, kind)
            };
            let (joint, target) = limb_joint(p, &stand, leg, si, k);
            let handle = physics.insert_impulse_joint(parent, h, joint);
            joints.push(RigJoint {
                handle,
                kind,
                muscle,
                target,
                parent: if si == 0 { 0 } else { k - 1 },
                child: k,
            });
            bodies.push(h);
            masses.push(leg_masses[li][si]);
            parent = h;
            k += 1;
        }
    }
    Rig {
        bodies,
        joints,
        anchor: None,
        anchor_drive: None,
        applied: [f32::NAN; 3],
        masses,
        stand,
        asleep: false,
        settled: false,
        damped: false,
        extra_iterations: extra,
        body_extra: 0,
        world: 0,
        colour: None,
    }
}

/// Gives `rig`'s bodies `extra` solver substeps on top of their world's count (rapier steps
/// a contact island with the most of its bodies').
pub(crate) fn set_body_extra(physics: &mut PhysicsWorld, rig: &mut Rig, extra: usize) {
    for h in &rig.bodies {
        if let Some(b) = physics.bodies.get_mut(*h) {
            b.set_additional_solver_iterations(extra);
        }
    }
    rig.body_extra = extra;
}

/// Muscle strength below which a rig's joints have their limits. rapier builds and solves a
/// limit's row every substep whether or not the joint is near it (a soldier's joints have
/// sixteen beside their motors and locks); muscles this strong hold the joints near their
/// targets, far inside the limits — measured with the limits on: in the 1 000-soldier
/// battle, 0.4 % of the joints of rigs at half strength or more pressed on a limit in a tick
/// (limp rigs' 1 %), in the shoving crowd none. Without those rows a shoving soldier's tick
/// costs about a sixth less. A rig's limits come back as soon as its muscles weaken (a
/// knock-down, a stagger's end).
const LIMITS_BELOW: f32 = 0.6;

/// Writes muscle strength `s` (0..1) with the stiffness and damping `gains` into every
/// motor of `rig`.
pub(crate) fn set_strength(physics: &mut PhysicsWorld, rig: &mut Rig, s: f32, gains: [f32; 2]) {
    let want = [s, gains[0], gains[1]];
    if rig.applied == want {
        return;
    }
    rig.applied = want;
    for j in &rig.joints {
        let Some(joint) = physics.impulse_joints.get_mut(j.handle, true) else {
            continue;
        };
        let (k, d, max) = (
            j.muscle.stiffness * s * gains[0],
            j.muscle.damping * s * gains[1],
            j.muscle.max_torque * s,
        );
        let data = &mut joint.data;
        let limited = if s >= LIMITS_BELOW {
            JointAxesMask::empty()
        } else {
            match j.kind {
                JointKind::Hip | JointKind::Shoulder => JointAxesMask::ANG_AXES,
                JointKind::Knee | JointKind::Elbow => JointAxesMask::ANG_X,
            }
        };
        data.limit_axes = limited;
        match j.kind {
            JointKind::Hip | JointKind::Shoulder => {
                for axis in [JointAxis::AngX, JointAxis::AngY, JointAxis::AngZ] {
                    data.set_motor_position(axis, 0.0, k, d);
                    data.set_motor_max_force(axis, max);
                }
            }
            JointKind::Knee | JointKind::Elbow => {
                data.set_motor_position(JointAxis::AngX, j.target, k, d);
                data.set_motor_max_force(JointAxis::AngX, max);
            }
        }
    }
}

/// How far a settled rig's parts may drift, as a speed (m/s, rapier's
/// `normalized_linear_threshold`), and stay ready to sleep.
const SETTLED_DRIFT: f32 = 0.25;
/// Seconds a settled rig's island must stay ready before rapier puts it to sleep.
const SETTLED_SLEEP_AFTER: f32 = 0.1;

/// Marks a rig settled (still long enough, see `step::read_back`) or not. rapier sleeps whole
/// islands — every body touching or jointed to another, transitively — once every body in
/// one may sleep, and never one body of an awake island (a body flagged asleep inside an
/// awake island loses its joints and weighs as a wall). So a settled rig is only made ready:
/// it sleeps when everything it leans on or is leant on by is ready too.
pub(crate) fn set_settled(physics: &mut PhysicsWorld, rig: &mut Rig, settled: bool) {
    if rig.settled == settled {
        return;
    }
    rig.settled = settled;
    use rapier3d::prelude::RigidBodyActivation as A;
    let (linear, angular, after) = if settled {
        (SETTLED_DRIFT, SETTLED_DRIFT, SETTLED_SLEEP_AFTER)
    } else {
        (
            A::default_normalized_linear_threshold(),
            A::default_angular_threshold(),
            A::default_time_until_sleep(),
        )
    };
    // A kinematic body sleeps only at exactly no speed, and the anchor creeps by rounding
    // toward its last target: a settled rig's anchor is fixed where it is (fixed bodies
    // belong to no island), kinematic again when the rig moves.
    if let Some(b) = rig.anchor.and_then(|(b, _)| physics.bodies.get_mut(b)) {
        let kind = if settled {
            rapier3d::prelude::RigidBodyType::Fixed
        } else {
            rapier3d::prelude::RigidBodyType::KinematicPositionBased
        };
        b.set_body_type(kind, true);
    }
    for h in &rig.bodies {
        if let Some(b) = physics.bodies.get_mut(*h) {
            let a = b.activation_mut();
            a.normalized_linear_threshold = linear;
            a.angular_threshold = angular;
            a.time_until_sleep = after;
        }
    }
}

/// Removes every body, collider and joint of `rig`.
pub(crate) fn remove(physics: &mut PhysicsWorld, rig: &mut Rig) {
    super::anchor::drop_anchor(physics, rig);
    for b in rig.bodies.drain(..) {
        physics.remove_body(b);
    }
}

/// Reads the parts back from rapier, clamping speeds (seed 003 §9.2). A body is taken
/// mutably only to clamp it: rapier looks again at every body taken so, each step.
pub(crate) fn read_parts(physics: &mut PhysicsWorld, rig: &Rig, parts: &mut [Part]) {
    for (h, part) in rig.bodies.iter().zip(parts.iter_mut()) {
        let Some(b) = physics.bodies.get(*h) else {
            continue;
        };
        let (v, w) = (b.linvel(), b.angvel());
        let (vc, wc) = (v.clamp_length_max(MAX_SPEED), w.clamp_length_max(MAX_SPIN));
        let pose = *b.position();
        if vc != v || wc != w {
            if let Some(b) = physics.bodies.get_mut(*h) {
                b.set_linvel(vc, false);
                b.set_angvel(wc, false);
            }
        }
        *part = Part {
            position: pose.translation,
            rotation: pose.rotation,
            linvel: vc,
            angvel: wc,
        };
    }
}

/// The angle (rad) between each joint's child part and where the standing pose puts it
/// relative to its parent.
pub(crate) fn joint_deviation(rig: &Rig, parts: &[Part]) -> Vec<f32> {
    rig.joints
        .iter()
        .map(|j| {
            let p = j.parent;
            let now = parts[p].rotation.inverse() * parts[j.child].rotation;
            let want = rig.stand.parts[p].1.inverse() * rig.stand.parts[j.child].1;
            now.angle_between(want)
        })
        .collect()
}

/// Each limb's joint points along the rig (legs, then arms), hip or shoulder first, foot or
/// hand last: a rigid skeleton, as a model's bones are drawn — from the top of the limb's
/// first part, each segment along its part's axis at its own length. (The parts' joints
/// give a little under load, a hard landing most; the chain does not, so its points are
/// always a segment apart and a drawn bone's end is the chain's.)
pub fn rig_chains(def: &ValidCreatureDef, parts: &[Part]) -> Vec<Vec<Vec3>> {
    let mut k = 1;
    limbs(def)
        .iter()
        .map(|leg| {
            let mut chain = Vec::with_capacity(leg.segments.len() + 1);
            for (si, len) in leg.segments.iter().enumerate() {
                let p = parts.get(k).copied().unwrap_or(parts[0]);
                let half = p.rotation * Vec3::new(0.0, len * 0.5, 0.0);
                if si == 0 {
                    chain.push(p.position - half);
                }
                let end = chain[chain.len() - 1] + 2.0 * half;
                chain.push(end);
                k += 1;
            }
            chain
        })
        .collect()
}

/// Each limb segment's capsule radius, limb by limb (legs, then arms): a model's bones' own
/// thickness (`physics.limb_radii`) where it has one for every segment of a leg, else
/// [`limb_radius_of`].
pub(crate) fn segment_radii(def: &ValidCreatureDef) -> Vec<Vec<f32>> {
    let all = limb_radius_of(def);
    limbs(def)
        .iter()
        .enumerate()
        .map(|(i, l)| match def.physics.limb_radii.get(i) {
            Some(r) if !l.arm && r.len() == l.segments.len() => r.clone(),
            _ => vec![all; l.segments.len()],
        })
        .collect()
}

/// The radius of every limb capsule of a type: its own (`physics.limb_radius`, a model's
/// limb thickness), else from its longest leg.
pub(crate) fn limb_radius_of(def: &ValidCreatureDef) -> f32 {
    let longest = def.legs.iter().map(|l| l.length).fold(0.0f32, f32::max);
    def.physics
        .limb_radius
        .unwrap_or_else(|| limb_radius(longest))
}

/// The lowest point of each part, world space: the body box's lowest corner (or its head's
/// lowest point), each segment capsule's lower end less its radius.
pub(crate) fn part_lowest_points(def: &ValidCreatureDef, parts: &[Part]) -> Vec<Vec3> {
    let mut out = Vec::with_capacity(parts.len());
    let b = parts[0];
    let half = def.body.size * 0.5;
    let mut low = b.position;
    let consider = |p: Vec3, low: &mut Vec3| {
        if p.y < low.y {
            *low = p;
        }
    };
    for i in 0..8 {
        let s = Vec3::new(
            if i & 1 == 0 { -1.0 } else { 1.0 },
            if i & 2 == 0 { -1.0 } else { 1.0 },
            if i & 4 == 0 { -1.0 } else { 1.0 },
        );
        consider(b.position + b.rotation * (half * s), &mut low);
    }
    if let Some(h) = &def.body.head {
        let c = b.position + b.rotation * h.offset;
        consider(c - Vec3::Y * (h.size.min_element() * 0.5), &mut low);
    }
    out.push(low);
    let radii = segment_radii(def);
    let mut k = 1;
    for (li, limb) in limbs(def).iter().enumerate() {
        for (si, len) in limb.segments.iter().enumerate() {
            let r = radii[li][si];
            let p = parts.get(k).copied().unwrap_or(b);
            let half_h = (len * 0.5 - r).max(0.0);
            let ends =
                [-1.0f32, 1.0].map(|s| p.position + p.rotation * Vec3::new(0.0, s * half_h, 0.0));
            let end = if ends[0].y < ends[1].y {
                ends[0]
            } else {
                ends[1]
            };
            out.push(end - Vec3::Y * r);
            k += 1;
        }
    }
    out
}

/// Turns the settling damping of a rig on or off (see [`SETTLING_DAMPING`]).
pub(crate) fn set_settling(physics: &mut PhysicsWorld, rig: &mut Rig, on: bool) {
    if rig.damped == on {
        return;
    }
    rig.damped = on;
    let (linear, angular) = if on {
        (SETTLING_DAMPING, SETTLING_DAMPING)
    } else {
        (PART_LINEAR_DAMPING, PART_ANGULAR_DAMPING)
    };
    for h in &rig.bodies {
        if let Some(b) = physics.bodies.get_mut(*h) {
            b.set_linear_damping(linear);
            b.set_angular_damping(angular);
        }
    }
}
