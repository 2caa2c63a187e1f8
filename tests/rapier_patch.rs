//! The vendored rapier3d's patches (`vendor/rapier3d/SKITTER-PATCH.md`): a joint whose angular
//! axes carry motors is solved on SIMD rows when its colour fills a SIMD chunk, on scalar
//! rows when it is alone. Both must move a body the same way — the same springs, the same
//! torque cap, the same axes — so a muscle does not change with the size of its crowd.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test set-up: a failure is a failed test

use glam::{Quat, Vec3};
use rapier3d::prelude::{
    ColliderBuilder, JointAxis, MotorModel, PhysicsWorld, RevoluteJointBuilder, RigidBodyBuilder,
    RigidBodyHandle, SphericalJointBuilder,
};

/// Where the ball joint's muscles hold the upper rod: swung 1.2 rad out of hanging.
fn held() -> Quat {
    Quat::from_rotation_x(1.2)
}

/// A rod hung from a fixed point by a ball joint whose three angular motors hold it at
/// [`held`] (capped at `max` N·m), and a second rod hung from the first's tip by a motorised
/// hinge (target 0.4 rad, same cap). Started swung about a slanted axis, so every motor axis
/// works. Returns the two rods.
fn pendulum(w: &mut PhysicsWorld, at: Vec3, max: f32) -> [RigidBodyHandle; 2] {
    let fixed = w.insert_body(RigidBodyBuilder::fixed().translation(at));
    let swing = Quat::from_axis_angle(Vec3::new(1.0, 0.3, 0.6).normalize(), 1.1);
    // A metre-long rod whose centre is `down` metres below the pivot along the swing.
    let mut rod = |down: f32| {
        let h = w.insert_body(
            RigidBodyBuilder::dynamic()
                .translation(at + swing * Vec3::new(0.0, -down, 0.0))
                .rotation(swing.to_scaled_axis()),
        );
        w.insert_collider(
            ColliderBuilder::capsule_y(0.4, 0.05).density(500.0),
            Some(h),
        );
        h
    };
    let (top, low) = (rod(0.5), rod(1.5));
    let mut ball = SphericalJointBuilder::new()
        .local_frame1(rapier3d::math::Pose::from_parts(Vec3::ZERO, held()))
        .local_anchor2(Vec3::new(0.0, 0.5, 0.0))
        .contacts_enabled(false);
    for axis in [JointAxis::AngX, JointAxis::AngY, JointAxis::AngZ] {
        ball = ball
            .motor_model(axis, MotorModel::ForceBased)
            .motor_position(axis, 0.0, 2000.0, 100.0)
            .motor_max_force(axis, max);
    }
    w.insert_impulse_joint(fixed, top, ball.build());
    let hinge = RevoluteJointBuilder::new(Vec3::X)
        .local_anchor1(Vec3::new(0.0, -0.5, 0.0))
        .local_anchor2(Vec3::new(0.0, 0.5, 0.0))
        .motor_model(MotorModel::ForceBased)
        .motor_position(0.4, 400.0, 20.0)
        .motor_max_force(max)
        .contacts_enabled(false);
    w.insert_impulse_joint(top, low, hinge.build());
    [top, low]
}

/// `copies` identical pendulums a few metres apart (apart: no contacts) stepped `steps` times
/// at 60 Hz; the first one's rods' poses each step.
fn run(copies: usize, max: f32, steps: usize) -> Vec<[(Vec3, Quat); 2]> {
    let mut w = PhysicsWorld::default();
    let rods: Vec<_> = (0..copies)
        .map(|i| pendulum(&mut w, Vec3::new(4.0 * i as f32, 5.0, 0.0), max))
        .collect();
    (0..steps)
        .map(|_| {
            w.step();
            rods[0].map(|h| {
                let b = &w.bodies[h];
                (b.translation(), *b.rotation())
            })
        })
        .collect()
}

/// Alone, a pendulum's two joints are each a colour of one: scalar rows. Eight copies make
/// colours of eight: SIMD rows (four lanes). The first copy must move the same either way.
fn wide_matches_scalar(max: f32) -> (f32, f32) {
    let (alone, crowd) = (run(1, max, 180), run(8, max, 180));
    let mut worst = (0.0f32, 0.0f32);
    for (a, c) in alone.iter().zip(&crowd) {
        for (pa, pc) in a.iter().zip(c) {
            worst.0 = worst.0.max(pa.0.distance(pc.0));
            // Where each rotation takes two axes (angle_between's acos is blind below 1e-3).
            let turn = [Vec3::X, Vec3::Y].map(|v| (pa.1 * v).distance(pc.1 * v));
            worst.1 = worst.1.max(turn[0].max(turn[1]));
        }
    }
    worst
}

#[test]
fn motors_on_simd_rows_move_a_body_as_scalar_rows_do() {
    // Strong muscles (the cap out of reach) and weak ones (the cap lets the rods sag).
    for max in [1.0e4, 10.0] {
        let (dist, angle) = wide_matches_scalar(max);
        assert!(
            dist < 1e-3 && angle < 1e-3,
            "max torque {max}: the crowd's first pendulum strayed {dist} m, {angle} rad from \
             the lone one"
        );
    }
}

#[test]
fn a_capped_motor_on_simd_rows_gives_way_and_a_strong_one_holds() {
    // The same crowd (SIMD rows), 3 s in: a strong ball-joint muscle holds the upper rod
    // where it wants it; one capped at 10 N·m (the rods' weight pulls with ~45 N·m there)
    // lets them sag toward hanging.
    let settle = |max: f32| {
        let poses = run(8, max, 180);
        let (_, rot) = poses[poses.len() - 1][0];
        rot.angle_between(held())
    };
    let (strong, weak) = (settle(1.0e4), settle(10.0));
    assert!(
        strong < 0.1,
        "a strong muscle left its rod {strong} rad off"
    );
    assert!(
        weak > 0.5,
        "a muscle capped at 10 N·m held its rod within {weak} rad"
    );
}

/// A dynamic box joined by a stiff motor-only joint to a kinematic anchor that is given a new
/// target every step (the ragdolls' balance and recovery anchors): the patch spares the
/// solver's caches such a move; the box must still follow it — awake, and after the two have
/// fallen asleep.
#[test]
fn a_kinematic_anchor_moved_every_step_still_drags_its_body() {
    use rapier3d::prelude::{GenericJointBuilder, JointAxesMask};
    let mut w = PhysicsWorld {
        gravity: Vec3::ZERO,
        ..PhysicsWorld::default()
    };
    let anchor = w.insert_body(RigidBodyBuilder::kinematic_position_based());
    let body = w.insert_body(RigidBodyBuilder::dynamic());
    w.insert_collider(
        ColliderBuilder::cuboid(0.2, 0.2, 0.2).density(100.0),
        Some(body),
    );
    let mut joint = GenericJointBuilder::new(JointAxesMask::empty()).contacts_enabled(false);
    for axis in [JointAxis::LinX, JointAxis::LinY, JointAxis::LinZ] {
        joint = joint
            .motor_model(axis, MotorModel::ForceBased)
            .motor_position(axis, 0.0, 4000.0, 400.0);
    }
    w.insert_impulse_joint(anchor, body, joint.build());
    let target = |t: f32| Vec3::new(2.0 * t.cos(), 0.5 * t, 2.0 * t.sin());
    let follow = |w: &mut PhysicsWorld, steps: std::ops::Range<usize>| {
        let mut worst = 0.0f32;
        for i in steps {
            let to = target(i as f32 / 60.0);
            w.bodies[anchor]
                .set_next_kinematic_position(rapier3d::math::Pose::from_translation(to));
            w.step();
            worst = worst.max(w.bodies[body].translation().distance(to));
        }
        worst
    };
    // Moving: the box trails its anchor by little once under way.
    follow(&mut w, 0..60);
    let lag = follow(&mut w, 60..240);
    assert!(lag < 0.1, "the box trailed its moving anchor by {lag} m");
    // Held still until both sleep, then moved on: the anchor's new target wakes them.
    let still = target(239.0 / 60.0);
    for _ in 0..600 {
        w.bodies[anchor].set_next_kinematic_position(rapier3d::math::Pose::from_translation(still));
        w.step();
    }
    assert!(w.bodies[body].is_sleeping(), "the still pair never slept");
    follow(&mut w, 240..300);
    let lag = follow(&mut w, 300..420);
    assert!(
        lag < 0.1,
        "after a sleep, the box trailed its anchor by {lag} m"
    );
}

/// A heap of `n` boxes and capsules dropped onto a floor and each other (a pile's worth of
/// contact pairs), stepped `steps` times — on the calling thread, or inside a rayon pool of
/// `threads` — and every body's pose and velocity each step, bit for bit. Also the most pairs
/// the narrow phase held in a step.
fn heap(n: usize, steps: usize, threads: Option<usize>) -> (Vec<Vec<[u32; 13]>>, usize) {
    heap_of(n, steps, threads, false).0
}

/// [`heap`], its bodies in fours joined by ball joints whose angular motors hold them
/// straight (a pile of limbs, as a melee is) when `limbs`, and the world's solver allowed as
/// many workers as the pool has threads. Also the most workers a step's solve was shared
/// out to.
#[allow(clippy::type_complexity)]
fn heap_of(
    n: usize,
    steps: usize,
    threads: Option<usize>,
    limbs: bool,
) -> ((Vec<Vec<[u32; 13]>>, usize), usize) {
    let go = || {
        let mut w = PhysicsWorld::default();
        w.physics_pipeline.solver_workers = threads.unwrap_or(1);
        w.insert_collider(ColliderBuilder::cuboid(20.0, 0.5, 20.0), None);
        let side = (n as f32).sqrt().ceil() as usize;
        let bodies: Vec<RigidBodyHandle> = (0..n)
            .map(|i| {
                let (x, z) = ((i % side) as f32 * 0.45, (i / side) as f32 * 0.45);
                let y = 1.0 + (i % 3) as f32 * 0.5;
                let h = w.insert_body(
                    RigidBodyBuilder::dynamic()
                        .translation(Vec3::new(x - 3.0, y, z - 3.0))
                        .rotation(Vec3::new(0.3 * i as f32, 0.7, 0.1)),
                );
                let shape = if i % 2 == 0 {
                    ColliderBuilder::cuboid(0.2, 0.15, 0.25)
                } else {
                    ColliderBuilder::capsule_y(0.2, 0.12)
                };
                w.insert_collider(shape, Some(h));
                h
            })
            .collect();
        if limbs {
            for four in bodies.chunks(4) {
                for pair in four.windows(2) {
                    let mut ball = SphericalJointBuilder::new()
                        .local_anchor1(Vec3::new(0.0, 0.25, 0.0))
                        .local_anchor2(Vec3::new(0.0, -0.25, 0.0))
                        .contacts_enabled(false);
                    for axis in [JointAxis::AngX, JointAxis::AngY, JointAxis::AngZ] {
                        ball = ball
                            .motor_model(axis, MotorModel::ForceBased)
                            .motor_position(axis, 0.0, 300.0, 20.0)
                            .motor_max_force(axis, 50.0);
                    }
                    w.insert_impulse_joint(pair[0], pair[1], ball.build());
                }
            }
        }
        let (mut most, mut workers) = (0, 0);
        let poses = (0..steps)
            .map(|_| {
                w.step();
                workers = w.physics_pipeline.solver_workers_used().max(workers);
                most = most.max(w.narrow_phase.contact_pairs().count());
                bodies
                    .iter()
                    .map(|h| {
                        let b = &w.bodies[*h];
                        let (p, q, v, a) = (b.translation(), *b.rotation(), b.linvel(), b.angvel());
                        [
                            p.x, p.y, p.z, q.x, q.y, q.z, q.w, v.x, v.y, v.z, a.x, a.y, a.z,
                        ]
                        .map(f32::to_bits)
                    })
                    .collect()
            })
            .collect();
        ((poses, most), workers)
    };
    match threads {
        None => go(),
        Some(t) => rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .expect("pool")
            .install(go),
    }
}

/// Patch 4: stepped on a pool, a world's narrow phase shares its pairs out over the pool's
/// threads. The pairs' updates are joined in the same order as the serial loop's, so a heap
/// of 300 bodies — some thousand pairs, well past the share-out's threshold — moves bit for
/// bit the same on two and three threads as on the calling thread.
#[test]
fn a_narrow_phase_shared_out_on_a_pool_moves_bodies_bit_for_bit_as_on_one_thread() {
    let (one, pairs) = heap(300, 90, None);
    assert!(
        pairs > 500,
        "only {pairs} pairs: the share-out was not tried"
    );
    // The heap did move (the comparison is of a real scene, not of bodies at rest).
    let (first, last) = (&one[0], &one[89]);
    let moved = first.iter().zip(last).filter(|(a, b)| a != b).count();
    assert!(moved > 250, "{moved} bodies moved");
    for threads in [2, 3] {
        let (many, _) = heap(300, 90, Some(threads));
        for (step, (a, b)) in one.iter().zip(&many).enumerate() {
            assert!(a == b, "step {step}: the heap differs on {threads} threads");
        }
    }
}

/// Patch 6: a world allowed more than one solver worker, stepped on a pool, shares its solve
/// out (the staged solver's workers claim its colours' constraints); the results depend on
/// the colouring alone, so a pile of 300 limbs — 225 motorised ball joints and some
/// thousand contacts, one island — moves bit for bit the same solved by two and three
/// workers as inline.
#[test]
fn a_solve_shared_out_to_workers_moves_bodies_bit_for_bit_as_one_solving_inline() {
    let ((one, pairs), inline) = heap_of(300, 90, None, true);
    assert_eq!(inline, 1, "off a pool the solve runs inline");
    assert!(pairs > 500, "only {pairs} pairs");
    let (first, last) = (&one[0], &one[89]);
    let moved = first.iter().zip(last).filter(|(a, b)| a != b).count();
    assert!(moved > 250, "{moved} bodies moved");
    for threads in [2, 3] {
        let ((many, _), workers) = heap_of(300, 90, Some(threads), true);
        assert_eq!(
            workers, threads,
            "the solve was not shared out to {threads} workers"
        );
        for (step, (a, b)) in one.iter().zip(&many).enumerate() {
            assert!(
                a == b,
                "step {step}: the pile differs solved by {threads} workers"
            );
        }
    }
}
