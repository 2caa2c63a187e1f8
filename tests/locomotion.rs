//! Locomotion quality, measured from traces of headless CLI runs over the bundled mods and
//! test-only scenes: zero foot slide, feet on the ground, support never below min_grounded,
//! no overreach, no NaN, and walkers that really get somewhere.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test set-up: a failure is a failed test

mod common;
use common::*;

fn scene(name: &str) -> Vec<std::path::PathBuf> {
    vec![bundled("spider"), fixture("walkers"), fixture(name)]
}

fn ten_seconds(name: &str) -> (Trace, Quality, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("tempdir");
    let (out, t) = run_trace(dir.path(), 600, &scene(name), &[]);
    assert!(out.status.success(), "{name}: {}", text(&out));
    assert!(
        t.errors().is_empty(),
        "{name}: script errors {:?}",
        t.errors()
    );
    let q = quality(&t);
    (t, q, dir)
}

#[test]
fn flat_ground_three_speeds() {
    let (t, _, _d) = ten_seconds("flat");
    let q = assert_walks_well("flat", &t, &[("spider/spider", 4)]);
    // speed 0.6, 1.4 and 1.0 m/s for 10 s, less the time to accelerate.
    for (id, want) in [(1u64, 0.6), (2, 1.4), (3, 1.0)] {
        let d = q.displacement[&id];
        assert!(
            d > want * 10.0 * 0.85,
            "spider {id} went {d:.2} m at {want} m/s"
        );
    }
    assert!(q.landings > 150, "only {} steps", q.landings);
}

#[test]
fn slope_of_25_degrees_up_and_across() {
    let (t, _, _d) = ten_seconds("slope");
    let q = assert_walks_well("slope", &t, &[("spider/spider", 4)]);
    for id in [1u64, 2] {
        assert!(
            q.displacement[&id] > 6.5,
            "spider {id} only went {:.2} m on the slope",
            q.displacement[&id]
        );
    }
    // The climber really climbed: 25° over ~8 m of run is ~3.7 m of rise.
    let climber = t.of(1);
    let rise =
        climber.last().and_then(|r| r.pos).expect("pos")[1] - climber[0].pos.expect("pos")[1];
    assert!(rise > 3.0, "climbed only {rise:.2} m");
    // The body tilts with the slope (pitch about x): the quaternion's x part is about sin(12.5°).
    let rot = climber.last().and_then(|r| r.rot).expect("rot");
    assert!(
        rot[0].abs() > 0.15,
        "body not pitched on the slope: {rot:?}"
    );
}

#[test]
fn stairs_with_20cm_steps() {
    let (t, _, _d) = ten_seconds("stairs");
    assert_walks_well("stairs", &t, &[("spider/spider", 4)]);
    let s = t.of(1);
    let end = s.last().and_then(|r| r.pos).expect("pos");
    assert!(
        end[2] > 0.5 && end[1] > 1.2 + 0.25,
        "spider did not climb the stairs: {end:?}"
    );
    // Feet stood on step tops: grounded foot heights are multiples of 0.2 m (or the floor).
    for r in &s {
        for f in r.feet.iter().filter(|f| f.grounded) {
            let y = f.pos.expect("pos")[1];
            let k = (y / 0.2).round();
            assert!(
                (y - k * 0.2).abs() < 0.01,
                "a planted foot hovers between steps at y = {y:.3}"
            );
        }
    }
}

#[test]
fn six_legs_on_rough_ground() {
    let (t, _, _d) = ten_seconds("hexapod");
    let q = assert_walks_well("hexapod", &t, &[("walkers/hexapod", 3)]);
    assert!(
        q.displacement[&1] > 5.5 && q.displacement[&2] > 7.0,
        "{:?}",
        q.displacement
    );
}

#[test]
fn four_legs_with_forward_and_backward_knees() {
    let (t, _, _d) = ten_seconds("quadruped");
    let q = assert_walks_well("quadruped", &t, &[("walkers/quadruped", 2)]);
    assert!(
        q.displacement[&1] > 4.5 && q.displacement[&2] > 3.8,
        "{:?}",
        q.displacement
    );
}

#[test]
fn turning_in_place_steps_without_sliding_or_drifting() {
    let (t, _, _d) = ten_seconds("turn");
    let q = assert_walks_well("turn", &t, &[("spider/spider", 4)]);
    for id in [1u64, 2] {
        assert!(
            q.displacement[&id] < 0.01,
            "turning spider {id} drifted {:.3} m",
            q.displacement[&id]
        );
    }
    assert!(
        q.landings > 60,
        "turning in place should step: {} landings",
        q.landings
    );
    // It really turned: 90°/s for 10 s is 2.5 turns; the heading at the end differs from the start.
    let s = t.of(1);
    let (a, b) = (
        s[0].rot.expect("rot"),
        s.last().and_then(|r| r.rot).expect("rot"),
    );
    assert!(
        (a[1] - b[1]).abs() > 0.1 || (a[3] - b[3]).abs() > 0.1,
        "did not turn: {a:?} {b:?}"
    );
}

#[test]
fn bundled_demo_wanders_the_arena() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (out, t) = run_trace(dir.path(), 1200, &[root().join("scripts")], &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(t.errors().is_empty(), "{:?}", t.errors());
    // The demo's six wanderers, the patrolling spider and the flyer of the paths mod.
    assert_eq!(t.ids().len(), 8, "six wanderers, a patrol and a flyer");
    assert_eq!(
        t.recs
            .iter()
            .filter(|r| r.frame == 0 && r.ty == "paths/flyer")
            .count(),
        1
    );
    assert_walks_well("arena", &t, &[("spider/spider", 4)]);
    let walked = |id: u64| -> f64 {
        t.of(id)
            .windows(2)
            .map(|w| {
                let (a, b) = (w[0].pos.expect("pos"), w[1].pos.expect("pos"));
                ((b[0] - a[0]).powi(2) + (b[2] - a[2]).powi(2)).sqrt()
            })
            .sum::<f64>()
    };
    // Wanderers pause between goals (and may come back near where they started), but
    // every one covers ground.
    for id in t.ids() {
        let d = walked(id);
        assert!(d > 2.0, "creature {id} barely moved: {d:.2} m");
    }
    let path: f64 = t.ids().iter().map(|id| walked(*id)).sum();
    assert!(
        path > 6.0 * 8.0,
        "six spiders walked only {path:.1} m in 20 s"
    );
}
