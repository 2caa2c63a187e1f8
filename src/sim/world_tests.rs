//! The World's own unit tests (kept apart: `world.rs` is the World).

use super::*;
use crate::locomotion::def::tests::spider;
use crate::sim::level::{BoxDesc, GroundDesc, HeightSource, StairsDesc};

/// A world with flat ground `size` metres square around the origin.
pub(crate) fn flat_world(size: f32) -> World {
    let mut w = World::new(1);
    w.set_ground(&GroundDesc {
        tag: Default::default(),
        position: Vec3::ZERO,
        width: size,
        depth: size,
        heights: HeightSource::Flat,
    })
    .expect("ground");
    w
}

#[test]
fn spider_stands_and_walks_on_rapier_ground() {
    let mut w = flat_world(40.0);
    let t = w.register_type("test/spider", spider().validate().expect("valid"));
    let id = w.spawn(t, Vec3::new(0.0, 3.0, 0.0), 0.0).expect("spawned");
    let c = w.creature(id).expect("exists");
    assert!(
        (c.loco.position.y - 0.35).abs() < 1e-3,
        "{}",
        c.loco.position
    );
    w.push(Command::SetIntent(id, Intent::walk(Vec3::Z, 1.0)));
    for _ in 0..300 {
        w.step(TICK_DT);
    }
    let c = w.creature(id).expect("exists");
    assert!(c.loco.position.z > 3.5, "{}", c.loco.position);
    assert!(w.drain_events().len() > 10);
    let hit = w
        .raycast(Vec3::new(1.0, 5.0, 1.0), Vec3::NEG_Y, 10.0)
        .expect("hit");
    assert!((hit.distance - 5.0).abs() < 1e-4 && hit.normal.y > 0.99);
    w.push(Command::Despawn(id));
    w.step(TICK_DT);
    assert!(w.creature(id).is_none());
}

#[test]
fn creatures_are_found_by_id_after_others_go_and_a_puppet_comes_between() {
    let mut w = flat_world(40.0);
    let t = w.register_type("test/spider", spider().validate().expect("valid"));
    let ids: Vec<CreatureId> = (0..12)
        .map(|i| {
            w.spawn(t, Vec3::new(i as f32, 0.0, 0.0), 0.0)
                .expect("spawned")
        })
        .collect();
    // Gaps: the first, two in the middle and the last go.
    for k in [0, 4, 5, 11] {
        w.push(Command::Despawn(ids[k]));
    }
    w.step(TICK_DT);
    // A viewer's puppet put in at an id past the last.
    let puppet = CreatureId(ids[11].0 + 3);
    assert_eq!(w.spawn_as(puppet, t, Vec3::ZERO, 0.0), Some(puppet));
    for (k, id) in ids.iter().enumerate() {
        let gone = [0, 4, 5, 11].contains(&k);
        let found = w.creature(*id).map(|c| c.id);
        assert_eq!(found, (!gone).then_some(*id), "creature {}", id.0);
        assert_eq!(w.index_of(*id).is_some(), !gone);
    }
    assert_eq!(w.creature(puppet).map(|c| c.id), Some(puppet));
    // Never spawned: between the last and the puppet, and far past.
    for missing in [ids[11].0 + 1, ids[11].0 + 2, u32::MAX] {
        assert!(w.creature(CreatureId(missing)).is_none(), "{missing}");
    }
    // Every creature is where `index_of` says.
    for (i, c) in w.creatures().iter().enumerate() {
        assert_eq!(w.index_of(c.id), Some(i));
    }
}

#[test]
fn a_background_bake_never_blocks_and_creatures_stand_until_it_is_ready() {
    let mut w = World::new(1);
    w.set_background_bakes(true);
    w.set_ground(&GroundDesc {
        tag: Default::default(),
        position: Vec3::ZERO,
        width: 40.0,
        depth: 40.0,
        heights: HeightSource::Flat,
    })
    .expect("ground");
    let t = w.register_type("test/spider", spider().validate().expect("valid"));
    let id = w.spawn(t, Vec3::ZERO, 0.0).expect("spawned");
    w.push(Command::SetDestination(id, Vec3::new(0.0, 0.0, 6.0), None));
    w.step(TICK_DT);
    let c = w.creature(id).expect("exists");
    assert_eq!(
        c.loco.intent,
        Intent::Idle,
        "stands while the navmesh bakes"
    );
    let start = std::time::Instant::now();
    let mut frames = 1;
    while w.creature(id).is_some_and(|c| c.loco.speed() < 0.1) {
        assert!(start.elapsed().as_secs() < 20, "the bake never finished");
        std::thread::sleep(std::time::Duration::from_millis(2));
        w.step(TICK_DT);
        frames += 1;
    }
    assert!(frames >= 2);
    for _ in 0..60 * 12 {
        w.step(TICK_DT);
    }
    let ev = w.drain_events();
    assert!(
        ev.iter()
            .any(|e| matches!(e, WorldEvent::Arrive { id: a } if *a == id)),
        "arrived"
    );
    let p = w.creature(id).expect("exists").loco.position;
    assert!((p.z - 6.0).abs() < 0.5 && p.x.abs() < 0.5, "{p}");
    assert_eq!(w.nav_meshes().len(), 1);
}

/// Agents on the world's (only) navmesh.
fn agents(w: &mut World) -> usize {
    assert!(w.nav.meshes().len() <= 1);
    w.nav.ready().next().map_or(0, |n| n.agent_count())
}

#[test]
fn an_arrived_creature_stands_as_an_agent_again_after_a_restore() {
    let mut w = flat_world(40.0);
    let t = w.register_type("test/spider", spider().validate().expect("valid"));
    let id = w.spawn(t, Vec3::ZERO, 0.0).expect("spawned");
    w.push(Command::SetDestination(id, Vec3::new(0.0, 0.0, 3.0), None));
    let mut arrived = false;
    for _ in 0..60 * 8 {
        w.step(TICK_DT);
        arrived |= w
            .drain_events()
            .iter()
            .any(|e| matches!(e, WorldEvent::Arrive { id: a } if *a == id));
    }
    assert!(arrived, "it arrives");
    assert_eq!(
        agents(&mut w),
        1,
        "arrived, it stands as an agent others avoid"
    );
    let cp = w.checkpoint();
    w.restore(cp);
    assert_eq!(agents(&mut w), 0, "a restore drops the agents");
    w.step(TICK_DT);
    assert_eq!(agents(&mut w), 1, "and it stands as one again");
    let c = w.creature(id).expect("exists");
    assert!(c.nav.as_ref().is_some_and(|g| g.arrived && !g.pending));
    assert_eq!(c.loco.intent, Intent::Idle, "it stays where it stands");
    assert!(
        !w.drain_events()
            .iter()
            .any(|e| matches!(e, WorldEvent::Arrive { .. } | WorldEvent::NavWarning { .. })),
        "no new arrival nor warning for it"
    );
}

#[test]
fn boxes_and_stairs_are_solid() {
    let mut w = World::new(1);
    w.add_stairs(StairsDesc {
        tag: Default::default(),
        position: Vec3::ZERO,
        yaw: 0.0,
        steps: 4,
        step_height: 0.2,
        step_depth: 0.5,
        width: 2.0,
    })
    .expect("stairs");
    let hit = w
        .raycast(Vec3::new(0.0, 5.0, 1.75), Vec3::NEG_Y, 10.0)
        .expect("hit the 4th step");
    assert!((hit.position.y - 0.8).abs() < 1e-4, "{}", hit.position);
    assert!(w
        .add_box(BoxDesc {
            tag: Default::default(),
            position: Vec3::ZERO,
            size: Vec3::new(1.0, -1.0, 1.0),
            rotation: Vec3::ZERO
        })
        .is_err());
}

/// 160 test spiders in two blocks of 80 on flat ground sent through each other (a crowd:
/// its navigation updates every few ticks, deferred), for 90 ticks on two threads; with
/// `to_caller` the crowd's updates are taken after each step and run on a thread of the
/// test's: after even ticks a navmesh query is made while they wait, after odd ones they
/// run 5 ms late, so that the next step waits for them. Every creature's position and velocity
/// bits, and how many updates were taken.
fn crowd_run(to_caller: bool) -> (Vec<[u32; 6]>, usize) {
    let mut w = flat_world(60.0);
    w.set_threads(2);
    w.set_crowds_to_caller(to_caller);
    let t = w.register_type("test/spider", spider().validate().expect("valid"));
    let spot = |i: usize, sign: f32| {
        let (col, row) = ((i % 16) as f32, (i / 16) as f32);
        Vec3::new(col * 2.0 - 15.0, 0.0, sign * (4.0 + row * 2.0))
    };
    for i in 0..160 {
        let (side, k) = (if i < 80 { 1.0 } else { -1.0 }, i % 80);
        let id = w.spawn(t, spot(k, side), 0.0).expect("spawned");
        w.push(Command::SetDestination(id, spot(k, -side), None));
    }
    let mut taken = 0;
    for tick in 0..90 {
        w.step(TICK_DT);
        let updates = w.take_crowd_updates();
        if updates.is_empty() {
            continue;
        }
        taken += updates.len();
        if tick % 2 == 1 {
            // Late: the next step reaches the crowd before its update is back, and waits.
            std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(5));
                for u in updates {
                    u.run();
                }
            });
            continue;
        }
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let job = std::thread::spawn(move || {
            let late = wait
                .recv_timeout(std::time::Duration::from_secs(10))
                .is_err();
            for u in updates {
                u.run();
            }
            late
        });
        assert!(w.nearest_nav_point(Vec3::ZERO, None).is_some());
        let _ = go.send(());
        assert!(!job.join().expect("ran"), "the query waited for the crowd");
    }
    let bits = w
        .creatures()
        .iter()
        .map(|c| {
            let (p, v) = (c.loco.position, c.loco.velocity);
            [p.x, p.y, p.z, v.x, v.y, v.z].map(f32::to_bits)
        })
        .collect();
    (bits, taken)
}

#[test]
fn a_crowds_navigation_taken_to_run_beside_the_callers_work_leaves_the_same_world() {
    let (beside, none) = crowd_run(false);
    assert_eq!(none, 0, "beside locomotion, nothing is left to take");
    let (taken, n) = crowd_run(true);
    assert!(n >= 80, "the crowd's updates were taken: {n}");
    assert!(beside == taken, "the crowd moved differently");
    let walking = beside
        .iter()
        .filter(|b| Vec3::new(f32::from_bits(b[3]), 0.0, f32::from_bits(b[5])).length() > 0.3)
        .count();
    assert!(
        walking > 100,
        "a crowd on its way: {walking} of 160 walking"
    );
}
