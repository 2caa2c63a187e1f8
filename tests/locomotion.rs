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
    // A full minute: bodies used to dive here while turning near a destination.
    let (out, t) = run_trace(dir.path(), 3600, &[root().join("scripts")], &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(t.errors().is_empty(), "{:?}", t.errors());
    // The demo's six spiders, centipede and hound, the patrolling spider and the flyer of
    // the paths mod, the brawl's eight soldiers and the three climbers.
    assert_eq!(
        t.ids().len(),
        21,
        "eight wanderers, a patrol, a flyer, eight brawlers and three climbers"
    );
    // The climbers go up walls: their feet are on walls and tops, not over the floor the
    // walkers' measures read (tests/climbing.rs measures climbers); each of them arrives at
    // stops of its tour, on walls and on tops.
    let climbers: Vec<u64> = t
        .recs
        .iter()
        .filter(|r| r.frame == 0 && r.ty == "climbers/climber")
        .map(|r| r.id)
        .collect();
    assert_eq!(climbers.len(), 3);
    for id in &climbers {
        let arrived = t
            .events
            .iter()
            .filter(|e| e["event"] == "arrive" && e["id"].as_u64() == Some(*id))
            .count();
        assert!(
            arrived >= 1,
            "climber {id} reached no stop of its tour in 60 s"
        );
        let high = t
            .of(*id)
            .iter()
            .filter_map(|r| r.pos)
            .map(|p| p[1])
            .fold(0.0, f64::max);
        assert!(
            high > 1.0,
            "climber {id} never climbed: highest {high:.2} m"
        );
    }
    let t = Trace {
        recs: t
            .recs
            .iter()
            .filter(|r| !climbers.contains(&r.id))
            .cloned()
            .collect(),
        events: t.events.clone(),
    };
    assert_eq!(
        t.recs
            .iter()
            .filter(|r| r.frame == 0 && r.ty == "paths/flyer")
            .count(),
        1
    );
    assert_walks_well(
        "arena",
        &t,
        &[
            ("spider/spider", 4),
            ("menagerie/centipede", 10),
            ("menagerie/hound", 2),
            ("brawl/soldier", 1),
        ],
    );
    let brawled = t.recs.iter().filter(|r| r.ragdoll).count();
    assert!(
        brawled > 600,
        "the brawl knocked soldiers over ({brawled} ragdoll frames)"
    );
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
        "six spiders walked only {path:.1} m in 60 s"
    );
}

#[test]
fn sharp_turns_at_full_speed_keep_the_body_up() {
    let (t, _, _d) = ten_seconds("sharp");
    assert_walks_well("sharp", &t, &[("spider/spider", 4)]);
    // They really turned hard while moving: most of the 200°/s turn rate, at speed.
    let peak = t
        .recs
        .iter()
        .map(|r| r.lean("yaw_rate").abs())
        .fold(0.0, f64::max);
    assert!(peak > 150.0, "peak filtered yaw rate {peak:.0}°/s");
}

/// Frames of the steps scene: the slowest spider gets over the top in 15 s.
const STEPS_FRAMES: u32 = 900;

#[test]
fn stairs_up_and_down_at_four_speeds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (out, t) = run_trace(dir.path(), STEPS_FRAMES, &scene("steps"), &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(t.errors().is_empty(), "{:?}", t.errors());
    assert_walks_well("steps", &t, &[("spider/spider", 4)]);
    for id in t.ids() {
        let recs = t.of(id);
        let top = recs
            .iter()
            .map(|r| r.pos.expect("pos")[1])
            .fold(f64::MIN, f64::max);
        assert!(
            top > 0.75 + 0.3,
            "spider {id} never got up the stairs: {top:.2} m"
        );
    }
    // The three faster ones are down the far side, back at their ride height.
    for id in [2u64, 3, 4] {
        let end = t.of(id).last().and_then(|r| r.pos).expect("pos");
        assert!(end[2] > 4.5, "spider {id} ended at z = {:.2}", end[2]);
        assert!(
            (end[1] - 0.35).abs() < 0.06,
            "spider {id} ended at height {:.3}",
            end[1]
        );
    }
}

#[test]
fn a_ledge_stops_a_walker_unless_it_asks_to_drop() {
    let (t, q, _d) = ten_seconds("ledge");
    assert_walks_well("ledge", &t, &[("spider/spider", 4)]);
    // Spider 1 (no drop) stands at the edge, on top.
    let a = t.of(1);
    assert!(a.iter().all(|r| !r.falling), "the careful spider fell");
    let max_z = a
        .iter()
        .map(|r| r.pos.expect("pos")[2])
        .fold(f64::MIN, f64::max);
    let min_y = a
        .iter()
        .map(|r| r.pos.expect("pos")[1])
        .fold(f64::MAX, f64::min);
    assert!(max_z < 3.0, "its body went past the edge: z = {max_z:.2}");
    assert!(max_z > 1.5, "it stopped far from the edge: z = {max_z:.2}");
    assert!(
        min_y > 0.5 + 0.25,
        "it sank toward the drop: y = {min_y:.2}"
    );
    // Spider 2 (drop = true) walks off, falls, lands and goes on.
    let b = t.of(2);
    let fell: Vec<&&Rec> = b.iter().filter(|r| r.falling).collect();
    assert!(!fell.is_empty(), "the dropping spider never fell");
    assert!(q.falling_frames >= fell.len());
    let landed = fell.last().expect("fell").frame;
    assert!(!b.last().expect("recs").falling, "still falling at the end");
    let end = b.last().and_then(|r| r.pos).expect("pos");
    assert!(
        end[2] > 5.0,
        "it did not walk on after landing: z = {:.2}",
        end[2]
    );
    assert!((end[1] - 0.35).abs() < 0.06, "it ended at {:.3} m", end[1]);
    // The fall is ballistic: from leaving the edge until the feet touch, the body's
    // vertical speed grows by g each second.
    let first = b.iter().position(|r| r.falling).expect("a fall");
    let vy = |i: usize| b[i].vel.expect("vel")[1];
    let mut last = first + 1;
    while last + 1 < b.len() && vy(last + 1) < vy(last) {
        last += 1;
    }
    assert!(
        last - first >= 5,
        "too short a fall to see: {} frames",
        last - first
    );
    let g = (vy(first + 1) - vy(last)) / ((last - first - 1) as f64 / 60.0);
    assert!((g - 9.81).abs() < 0.3, "fell at {g:.2} m/s²");
    // The landing kick of the vertical lean channel plays: the nose dips.
    let in_air = b[last].lean("pitch");
    let kick = b
        .iter()
        .filter(|r| r.frame > b[last].frame && r.frame < landed + 30)
        .map(|r| r.lean("pitch"))
        .fold(f64::MIN, f64::max);
    assert!(
        kick > in_air + 2.0,
        "no landing kick: pitch {in_air:.1}° at touchdown, {kick:.1}° after"
    );
}

#[test]
fn the_knee_flip_measure_sees_a_knee_on_the_wrong_side() {
    let foot = |knee: [f64; 3]| Foot {
        leg: "L1".into(),
        pos: Some([1.0, 0.0, 0.0]),
        target: None,
        grounded: true,
        ground: None,
        reach: Some(0.8),
        joints: vec![[0.0, 0.4, 0.0], knee, [1.0, 0.0, 0.0]],
        pole: Some([0.0, 1.0, 0.0]),
    };
    assert!(!knee_flipped(&foot([0.5, 0.6, 0.0])), "knee up, pole up");
    assert!(
        knee_flipped(&foot([0.5, 0.0, 0.0])),
        "knee below the hip–foot line"
    );
    assert!(
        !knee_flipped(&foot([0.5, 0.2, 0.0])),
        "a straight leg has no side"
    );
}

#[test]
fn a_centipede_walks_a_metachronal_wave_and_a_hound_trots() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mods = [
        bundled("spider"),
        fixture("walkers"),
        bundled("menagerie"),
        fixture("wave"),
    ];
    let (out, t) = run_trace(dir.path(), 600, &mods, &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(t.errors().is_empty(), "{:?}", t.errors());
    let q = assert_walks_well(
        "wave",
        &t,
        &[("menagerie/centipede", 10), ("menagerie/hound", 2)],
    );
    assert!(
        q.displacement[&1] > 3.5,
        "the centipede walked {:.2} m",
        q.displacement[&1]
    );
    assert!(
        q.displacement[&2] > 7.0,
        "the hound walked {:.2} m",
        q.displacement[&2]
    );
    // The wave: on each side, legs land back to front in turns (every fourth leg
    // together); a landing's turn is the last one's or the next.
    let mut last: std::collections::BTreeMap<String, bool> = Default::default();
    let mut landings: Vec<(u64, char, usize)> = Vec::new();
    for r in t.of(1) {
        for f in &r.feet {
            if last.insert(f.leg.clone(), f.grounded) == Some(false) && f.grounded {
                let side = f.leg.chars().next().expect("side");
                let n: usize = f.leg[1..].parse().expect("leg number");
                landings.push((r.frame, side, n));
            }
        }
    }
    for side in ['L', 'R'] {
        // Leg n counts from the head (1) to the tail (10): its turn is its rank from the back.
        let turns: Vec<usize> = landings
            .iter()
            .filter(|l| l.1 == side && l.0 > 120)
            .map(|l| (10 - l.2) % 4)
            .collect();
        let in_order = turns
            .windows(2)
            .filter(|w| w[1] == w[0] || w[1] == (w[0] + 1) % 4)
            .count();
        assert!(turns.len() > 40, "{side}: only {} landings", turns.len());
        let share = in_order as f64 / (turns.len() - 1) as f64;
        assert!(
            share > 0.9,
            "{side}: {:.0}% of landings in wave order",
            share * 100.0
        );
    }
}

/// The slab of the overhang scene: centre, half extents, rotation (pitch 20°): its -z end
/// stands 1.5 m up, its end face leans out over the ground below.
const SLAB: ([f32; 3], [f32; 3], f32) = ([-8.0, 0.5, 4.0], [1.5, 0.1, 3.0], 20.0);

/// Where `p` is in the slab's own frame.
fn in_slab(p: [f64; 3]) -> glam::Vec3 {
    let (c, _, pitch) = SLAB;
    let rot = glam::Quat::from_rotation_x(pitch.to_radians());
    let p = glam::Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32);
    rot.inverse() * (p - glam::Vec3::from(c))
}

#[test]
fn a_foot_stands_only_on_faces_it_can_stand_on_at_a_slab_end_from_either_side() {
    // Issue 27's scene: a spider walks up a 20° slab on noise ground to its high end (before
    // the fix a foot stood on the end face's lower rim, 1.5 m over the ground the trace
    // reported), another walks at that end from beyond it, under the overhang, a hexapod
    // climbs it aslant.
    let dir = tempfile::tempdir().expect("tempdir");
    let (c, h, pitch) = SLAB;
    let level = format!(
        r#"
world.ground {{ size = vec3(40, 0, 40), noise = {{ amplitude = 0.3, scale = 6, seed = 3 }} }}
world.box {{ position = vec3({}, {}, {}), size = vec3({}, {}, {}), rotation = vec3({pitch}, 0, 0) }}
behaviour.define {{
  name = "go",
  params = {{ dir = vec3(0, 0, -1) }},
  on_update = function(self, dt) self:move(self.params.dir, 0.6) end,
}}
world.spawn("spider/spider", {{ position = vec3(-8, 0, 9), yaw = 180, behaviour = "go" }})
world.spawn("spider/spider", {{ position = vec3(-7.2, 0, -2), behaviour = "go", params = {{ dir = vec3(0, 0, 1) }} }})
world.spawn("walkers/hexapod", {{ position = vec3(-9, 0, 9), yaw = 170, behaviour = "go", params = {{ dir = vec3(0.15, 0, -1) }} }})
"#,
        c[0],
        c[1],
        c[2],
        2.0 * h[0],
        2.0 * h[1],
        2.0 * h[2]
    );
    let m = temp_mod(dir.path(), "overhang", &[("main.lua", &level)]);
    let mods = [bundled("spider"), fixture("walkers"), m];
    let (out, t) = run_trace(dir.path(), 1500, &mods, &["--seed", "3"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(t.errors().is_empty(), "script errors {:?}", t.errors());
    let half = glam::Vec3::from(h);
    // The slab's top: its local +y face, within 1 cm.
    let on_top = |l: glam::Vec3| {
        (l.y - half.y).abs() <= 0.01 && l.x.abs() <= half.x + 1e-3 && l.z.abs() <= half.z + 1e-3
    };
    let mut top_near_end = f32::MAX;
    for r in t.recs.iter().filter(|r| !r.ragdoll) {
        for f in r.feet.iter().filter(|f| f.grounded) {
            let pos = f.pos.expect("pos");
            let g = f.ground.unwrap_or_else(|| {
                panic!(
                    "frame {} creature {} foot {}: grounded at {pos:?} over no ground",
                    r.frame, r.id, f.leg
                )
            });
            let off = (0..3).map(|k| (pos[k] - g[k]).powi(2)).sum::<f64>().sqrt();
            assert!(
                off <= 0.01,
                "frame {} creature {} foot {}: grounded at {pos:?}, {off:.3} m from its \
                 reported ground {g:?}",
                r.frame,
                r.id,
                f.leg
            );
            // A ground point on or in the slab (the noise ground pokes through its buried
            // low end: points a centimetre clear of it are the ground's) is on its top.
            let l = in_slab(g);
            if (l.abs() - half).max_element() <= 0.01 {
                assert!(
                    on_top(l),
                    "frame {} creature {} foot {}: stands at {g:?} on a face of the slab \
                     steeper than the slope limit (slab frame {l})",
                    r.frame,
                    r.id,
                    f.leg
                );
                top_near_end = top_near_end.min(l.z + half.z);
            }
        }
    }
    // The climber got to the high end (its feet within 20 cm of the end's edge), the one
    // from beyond came under the overhang.
    assert!(
        top_near_end < 0.2,
        "no foot reached the slab's high end: the nearest stood {top_near_end:.2} m from it"
    );
    let end_z = c[2] as f64 - h[2] as f64 * (pitch as f64).to_radians().cos();
    let under = t
        .of(2)
        .iter()
        .map(|r| r.pos.expect("pos")[2] - end_z)
        .fold(f64::MIN, f64::max);
    assert!(
        under > 0.5,
        "the spider from beyond never came under the overhang (it got {under:.2} m past its end)"
    );
}

/// Issue 43: a spider walked up along a 15° ramp's side edge (the arena's ramp), straddling
/// it — the feet on one side on the ramp, on the other on the ground as much as 0.85 m
/// below — turns round where the drop is deepest and walks back down: the ramp on its left
/// one way and on its right the other, and a second spider the mirror of it. Its body
/// keeps at least three quarters of its ride height over the plane of its footing (where
/// its feet stand, and where the swinging ones land) at every tick (issue 43's main sank to
/// 0.30 of it in the turn, and to 0.72 walking up), and its underside stays out of the
/// ramp: its centre at least 8 cm (of its 11 cm half-height, tilted) over the ground
/// right under it (issue 45: it went 4 cm *into* the ramp at the corner where it turns,
/// which the plane of the feet did not see). At that corner four feet stand on the ramp
/// and four swing down to the ground: the plane of the planted four alone put the body
/// "on its feet" while it sat, as drawn, just over the ramp's corner.
#[test]
fn a_body_keeps_its_ride_height_straddling_a_ramps_side_edge_both_ways() {
    let dir = tempfile::tempdir().expect("tempdir");
    let scene = temp_mod(
        dir.path(),
        "ramp_edge",
        &[(
            "main.lua",
            r#"
world.ground { size = vec3(40, 0, 40) }
local dir = vec3(math.sin(math.rad(30)), 0, math.cos(math.rad(30)))
local side = vec3(math.cos(math.rad(30)), 0, -math.sin(math.rad(30)))
behaviour.define {
  name = "there_and_back",
  params = { dir = vec3(0, 0, 1), speed = 1.0, up = 6, turn = 2 },
  on_update = function(self, dt)
    self.state.t = (self.state.t or 0) + dt
    local p = self.params
    if self.state.t < p.up then self:move(p.dir, p.speed)
    elseif self.state.t < p.up + p.turn then self:face(-p.dir)
    else self:move(-p.dir, p.speed) end
  end,
}
for i, s in ipairs({ 1, -1 }) do
  local c = vec3(-6 + 12 * (i - 1), -0.3, 0)
  world.box { position = c, size = vec3(3, 0.6, 8), rotation = vec3(-15, 30, 0) }
  world.spawn("spider/spider", { position = c + side * (1.5 * s) - dir * 3.8, yaw = 30,
    behaviour = "there_and_back", params = { dir = dir } })
end
"#,
        )],
    );
    let (out, t) = run_trace(
        dir.path(),
        840,
        &[bundled("spider"), fixture("walkers"), scene],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(t.errors().is_empty(), "{:?}", t.errors());
    const RIDE: f64 = 0.35;
    const TURN: u64 = 6 * 60;
    for id in [1u64, 2] {
        // The deepest drop between its planted feet on the way up and on the way down.
        let (mut up, mut down) = (0.0f64, 0.0f64);
        for r in t.of(id) {
            let p = r.pos.expect("pos");
            assert!(!r.falling, "spider {id} fell at frame {}", r.frame);
            let planted = r.planted();
            assert!(
                !planted.is_empty(),
                "spider {id}: no foot down at frame {}",
                r.frame
            );
            let clearance = p[1] - support_height(&r.footing(), p);
            assert!(
                clearance >= 0.75 * RIDE,
                "spider {id} at frame {}: {clearance:.3} m over its footing (ride height {RIDE}, limit 0.75 of it)",
                r.frame
            );
            let floor = r.floor.expect("floor");
            assert!(
                p[1] - floor[1] >= 0.08,
                "spider {id} at frame {}: its centre {:.3} m over the ground under it: the body is in the ramp",
                r.frame,
                p[1] - floor[1]
            );
            let ys = planted.iter().map(|f| f[1]);
            let spread = ys.clone().fold(f64::MIN, f64::max) - ys.fold(f64::MAX, f64::min);
            let way = if r.frame < TURN { &mut up } else { &mut down };
            *way = way.max(spread);
        }
        assert!(
            up > 0.6 && down > 0.6,
            "spider {id} never straddled the edge: its feet at most {up:.2} m apart in height on the way up, {down:.2} on the way down"
        );
    }
}
