//! Climbing (issue 31): a climbing spider walked into a wall goes up it, over the top edge,
//! across the top and down the far side, measured from the trace: planted feet locked,
//! feet on collider surfaces, the body never inside one, its up turning within the rate
//! limit; a walker at the same wall stops as today; bad `climb` fields are located errors.
#![allow(clippy::expect_used, clippy::unwrap_used)] // tests: a failure is a failed test

mod common;

use std::path::{Path, PathBuf};

use common::*;
use serde_json::Value;

/// A mod with a climbing spider (the bundled spider's body with `climb = CLIMB`) and a
/// walking one, and `level` (Lua that builds the level and spawns).
fn climb_mod(dir: &Path, climb: &str, level: &str) -> PathBuf {
    let body = std::fs::read_to_string(bundled("spider").join("body.lua")).expect("body.lua");
    let def = body
        .replace(
            "name = \"spider\"",
            &format!("name = \"climber\", climb = {climb}"),
        )
        .replace("return creature.define", "creature.define");
    let m = temp_mod(
        dir,
        "climbing",
        &[(
            "main.lua",
            &format!(
                "{def}\n\
                 behaviour.define {{ name = \"log_surface\", params = {{ dir = vec3(0, 0, 1), speed = 0.8 }},\n\
                   on_update = function(self) self:move(self.params.dir, self.params.speed) end,\n\
                   on_surface = function(self, n, kind) log.info(\"surface \" .. kind) end }}\n\
                 {level}"
            ),
        )],
    );
    bundled_sounds("spider", &m);
    m
}

/// A climbing scene run headless for `frames` ticks in `dir` (the climbing mod of
/// [`climb_mod`] with `climb` and `level`, beside the spider and the walkers' brains),
/// checked to have run without errors: its parsed trace, the trace's text and what it
/// printed.
fn climb_run(
    dir: &Path,
    climb: &str,
    level: &str,
    frames: u32,
    extra: &[&str],
) -> (Trace, String, String) {
    let m = climb_mod(dir, climb, level);
    let (out, t) = run_trace(
        dir,
        frames,
        &[bundled("spider"), fixture("walkers"), m],
        extra,
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(t.errors().is_empty(), "{:?}", t.errors());
    (t, trace_text(dir), text(&out))
}

/// The trace's lines of creature `id`, as JSON.
fn lines_of(text: &str, id: u64) -> Vec<Value> {
    by_id(text).remove(&id).unwrap_or_default()
}

fn angle(a: [f64; 3], b: [f64; 3]) -> f64 {
    let dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let la = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    let lb = (b[0] * b[0] + b[1] * b[1] + b[2] * b[2]).sqrt();
    (dot / (la * lb)).clamp(-1.0, 1.0).acos().to_degrees()
}

/// What a climber's trace shows, checked every tick: planted feet that never move, every
/// planted foot within 1 cm of a collider's surface, the body clear of every collider, its
/// up turning no faster than `rate` degrees a tick, at least `min_grounded` feet planted,
/// and no NaN. Returns the surfaces it stood on, in order, and its highest body point.
fn assert_climbs_well(
    what: &str,
    lines: &[Value],
    rate: f64,
    min_grounded: usize,
) -> (Vec<String>, f64) {
    let mut surfaces: Vec<String> = Vec::new();
    let mut top = f64::MIN;
    let mut worst_up = 0.0f64;
    let mut worst_off = 0.0f64;
    let mut min_clear = f64::MAX;
    for (k, l) in lines.iter().enumerate() {
        let frame = l["frame"].as_u64().unwrap();
        let pos = v3(&l["pos"]);
        top = top.max(pos[1]);
        if let Some(s) = l["surface"].as_str() {
            if surfaces.last().map(String::as_str) != Some(s) {
                surfaces.push(s.to_string());
            }
        }
        let clear = l["clearance"].as_f64().expect("clearance");
        min_clear = min_clear.min(clear);
        assert!(
            clear > 0.05,
            "{what}: frame {frame}: the body is {clear} m from a surface (inside one?)"
        );
        let feet = l["feet"].as_array().unwrap();
        let contacts = l["contacts"].as_array().unwrap();
        let grounded = feet.iter().filter(|f| f["grounded"] == true).count();
        assert!(
            grounded >= min_grounded,
            "{what}: frame {frame}: {grounded} feet planted"
        );
        for (f, c) in feet.iter().zip(contacts) {
            let p = v3(&f["pos"]);
            assert!(p.iter().all(|x| x.is_finite()));
            if f["grounded"] == true {
                // The trace's `ground` is the point the foot stands on (issue 27, 43).
                let g = v3(&f["ground"]);
                let gap =
                    ((p[0] - g[0]).powi(2) + (p[1] - g[1]).powi(2) + (p[2] - g[2]).powi(2)).sqrt();
                assert!(
                    gap <= 0.01,
                    "{what}: frame {frame}: leg {} planted at {p:?} reports its ground at {g:?}, {gap:.3} m away",
                    f["leg"]
                );
                let off = c["off"]
                    .as_f64()
                    .expect("a surface near a planted foot")
                    .abs();
                worst_off = worst_off.max(off);
                assert!(
                    off <= 0.01,
                    "{what}: frame {frame}: leg {} planted {off} m off the surface",
                    f["leg"]
                );
            }
        }
        if k > 0 {
            let prev = &lines[k - 1];
            let turn = angle(v3(&prev["up"]), v3(&l["up"]));
            worst_up = worst_up.max(turn);
            assert!(
                turn <= rate + 0.01,
                "{what}: frame {frame}: the body's up turned {turn}° in a tick"
            );
            for (a, b) in prev["feet"].as_array().unwrap().iter().zip(feet) {
                if a["grounded"] == true && b["grounded"] == true {
                    assert_eq!(
                        a["pos"], b["pos"],
                        "{what}: frame {frame}: planted leg {} slid",
                        b["leg"]
                    );
                }
            }
        }
    }
    eprintln!("{what}: surfaces {surfaces:?}, top {top:.2} m, up turned at most {worst_up:.2}°/tick, feet within {:.1} mm, body clearance ≥ {min_clear:.3} m", worst_off * 1e3);
    (surfaces, top)
}

#[test]
fn a_climbing_spider_goes_up_a_wall_over_the_top_and_down_the_far_side() {
    let dir = tempfile::tempdir().expect("tmp");
    // A block 3 m high and 2 m deep across the way: its near face at z = 2, far face at z = 4.
    let level = r#"
world.ground { size = vec3(30, 0, 30) }
world.box { position = vec3(0, 1.5, 3), size = vec3(8, 3, 2) }
world.spawn("climber", { position = vec3(0, 0, -1), behaviour = "log_surface" })
world.spawn("spider/spider", { position = vec3(6, 0, -1), behaviour = "walkers/line", params = { speed = 0.8 } })
world.box { position = vec3(6, 1.5, 3), size = vec3(2, 3, 2) }
"#;
    let (t, trace, printed) = climb_run(dir.path(), "{ turn_rate = 180 }", level, 1500, &[]);
    let climber = lines_of(&trace, 1);
    // 180°/s at 60 Hz: 3° a tick.
    let (surfaces, top) = assert_climbs_well("climber", &climber, 3.0, 4);
    let end = v3(&climber.last().unwrap()["pos"]);
    assert!(top > 3.2, "never on top: highest {top}");
    assert!(
        end[2] > 4.3 && end[1] < 0.6,
        "not down the far side: {end:?} ({surfaces:?})"
    );
    assert_eq!(
        surfaces,
        ["floor", "wall", "floor", "wall", "floor"],
        "the surfaces it stood on"
    );
    // The creases it crossed, classified by the faces' angle: the wall's foot (concave),
    // the top's two edges (convex), the far wall's foot (concave).
    let mut creases: Vec<&str> = climber
        .iter()
        .filter_map(|l| l["crease"].as_str())
        .collect();
    creases.dedup();
    assert_eq!(
        creases,
        ["concave", "convex", "concave"],
        "the creases crossed"
    );
    // Each change of surface reached the brain's on_surface.
    let said: Vec<&str> = printed
        .lines()
        .filter_map(|l| l.split("surface ").nth(1))
        .collect();
    assert_eq!(said, ["wall", "floor", "wall", "floor"], "{printed}");
    // The walker at the same wall stops at its foot as today, and walks well doing it.
    let walker = t.of(2);
    let highest = walker
        .iter()
        .filter_map(|r| r.pos)
        .map(|p| p[1])
        .fold(f64::MIN, f64::max);
    let last = walker.last().and_then(|r| r.pos).unwrap();
    assert!(
        highest < 0.6 && last[2] < 2.0,
        "the walker climbed: {last:?}"
    );
    assert!(
        !lines_of(&trace, 2)[0]
            .as_object()
            .unwrap()
            .contains_key("up"),
        "a walker's trace is as before"
    );
}

/// Issue 43: a climber driven into a 3 m block (`c:move(vec3(1, 0, 0), 0.5)`, the issue's
/// scene) reports, for every planted foot on every tick, a `ground` within 1 cm of it —
/// on the block's face too (its `ground` was a point 5 cm up the wall: a ray down from
/// just above a foot on a face starts on it).
#[test]
fn a_climbers_planted_feet_stand_on_the_ground_the_trace_reports() {
    let dir = tempfile::tempdir().expect("tmp");
    let level = r#"
world.ground { size = vec3(30, 0, 30) }
world.box { position = vec3(5, 1.5, 0), size = vec3(3, 3, 6) }
behaviour.define { name = "into_x", on_update = function(self) self:move(vec3(1, 0, 0), 0.5) end }
world.spawn("climber", { position = vec3(0, 0, 0.3), yaw = 90, behaviour = "into_x" })
"#;
    let (_, trace, _) = climb_run(dir.path(), "{}", level, 1200, &[]);
    let lines = lines_of(&trace, 1);
    let (mut planted, mut on_wall, mut worst) = (0usize, 0usize, 0.0f64);
    for l in &lines {
        for f in l["feet"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["grounded"] == true)
        {
            let (p, g) = (v3(&f["pos"]), v3(&f["ground"]));
            let gap =
                ((p[0] - g[0]).powi(2) + (p[1] - g[1]).powi(2) + (p[2] - g[2]).powi(2)).sqrt();
            planted += 1;
            on_wall += (p[1] > 0.05 && p[0] > 3.45 && p[0] < 3.55) as usize;
            worst = worst.max(gap);
            assert!(
                gap <= 0.01,
                "frame {}: leg {} planted at {p:?} reports its ground at {g:?}, {gap:.3} m away",
                l["frame"],
                f["leg"]
            );
        }
    }
    eprintln!("{planted} planted foot-ticks, {on_wall} of them on the block's face; ground within {:.1} mm", worst * 1e3);
    assert!(
        on_wall > 500,
        "the climber hardly stood on the block's face: {on_wall} foot-ticks"
    );
    assert!(
        lines.iter().any(|l| l["surface"] == "wall"),
        "the climber never climbed the block"
    );
}

#[test]
fn a_climber_crosses_under_a_slab_upside_down_and_comes_back() {
    let dir = tempfile::tempdir().expect("tmp");
    // A wall 2 m high at z = 3 with a slab on it reaching back over the floor to z = -1:
    // the climber walks under the slab, up the wall, along the slab's underside (a
    // ceiling 2 m up), then turns back the way it came, and comes down again.
    let level = r#"
world.ground { size = vec3(30, 0, 30) }
world.box { position = vec3(0, 1, 3.5), size = vec3(6, 2, 1) }
world.box { position = vec3(0, 2.15, 1.5), size = vec3(6, 0.3, 5) }
behaviour.define { name = "there_and_back", params = { back_at = 13 },
  on_spawn = function(self) self.state.t = 0 end,
  on_update = function(self, dt)
    self.state.t += dt
    local d = if self.state.t < self.params.back_at then 1 else -1
    self:move(vec3(0, 0, d), 0.8)
  end,
  on_surface = function(self, n, kind) log.info("surface " .. kind) end }
world.spawn("climber", { position = vec3(0, 0, -3), behaviour = "there_and_back" })
"#;
    let (_, trace, _) = climb_run(dir.path(), "{}", level, 1500, &[]);
    let lines = lines_of(&trace, 1);
    let (surfaces, top) = assert_climbs_well("ceiling", &lines, 3.0, 4);
    // Upside down under the slab, well away from the wall.
    let under = lines
        .iter()
        .filter(|l| l["surface"] == "ceiling")
        .map(|l| v3(&l["pos"]))
        .fold(f64::MAX, |m, p| m.min(p[2]));
    assert!(
        top > 1.5 && under < 1.5,
        "never across the ceiling: top {top}, reached z {under} ({surfaces:?})"
    );
    assert_eq!(
        surfaces,
        ["floor", "wall", "ceiling", "wall", "floor"],
        "the surfaces it stood on"
    );
    let end = v3(&lines.last().unwrap()["pos"]);
    assert!(
        end[1] < 0.5 && end[2] < 2.0,
        "not back on the floor: {end:?}"
    );
}

#[test]
fn climbers_reach_destinations_on_a_box_top_and_up_a_wall_by_the_short_way() {
    let dir = tempfile::tempdir().expect("tmp");
    // A block 3 m high (near face at z = 8), destinations 10 m away: on its top, and on
    // its near face 2 m up.
    let level = r#"
world.ground { size = vec3(40, 0, 40) }
world.box { position = vec3(0, 1.5, 9.5), size = vec3(12, 3, 3) }
behaviour.define { name = "go", params = { to = vec3(0, 0, 0) },
  on_spawn = function(self) self:set_destination(self.params.to) end,
  on_arrive = function(self) log.info("arrived") end }
world.spawn("climber", { position = vec3(-3, 0, -1), behaviour = "go", params = { to = vec3(-3, 3, 9) } })
world.spawn("climber", { position = vec3(3, 0, -2), behaviour = "go", params = { to = vec3(3, 2, 8) } })
"#;
    let (t, trace, _) = climb_run(dir.path(), "{}", level, 1500, &[]);
    let arrivals: Vec<u64> = t
        .events
        .iter()
        .filter(|e| e["event"] == "arrive")
        .filter_map(|e| e["id"].as_u64())
        .collect();
    // The shortest ways over the surfaces: 9 m to the wall's foot, 3 m up it, 1 m on
    // top; 10 m to the wall's foot, 2 m up it.
    for (id, dest, shortest) in [(1u64, [-3.0, 3.0, 9.0], 13.0), (2, [3.0, 2.0, 8.0], 12.0)] {
        assert!(
            arrivals.contains(&id),
            "climber {id} never arrived: {arrivals:?}"
        );
        let lines = lines_of(&trace, id);
        assert_climbs_well(&format!("climber {id}"), &lines, 3.0, 4);
        // Its route until it arrived, followed by the feet's point on its surface.
        let mut walked = 0.0;
        let mut last: Option<[f64; 3]> = None;
        let mut at = None;
        for l in &lines {
            let (p, up) = (v3(&l["pos"]), v3(&l["up"]));
            let feet = [
                p[0] - up[0] * 0.35,
                p[1] - up[1] * 0.35,
                p[2] - up[2] * 0.35,
            ];
            if let Some(q) = last {
                walked += ((feet[0] - q[0]).powi(2)
                    + (feet[1] - q[1]).powi(2)
                    + (feet[2] - q[2]).powi(2))
                .sqrt();
            }
            last = Some(feet);
            let d = ((feet[0] - dest[0]).powi(2)
                + (feet[1] - dest[1]).powi(2)
                + (feet[2] - dest[2]).powi(2))
            .sqrt();
            if d <= 0.25 {
                at = Some(walked);
                break;
            }
        }
        let walked =
            at.unwrap_or_else(|| panic!("climber {id} never came within 25 cm of {dest:?}"));
        eprintln!("climber {id}: {walked:.2} m walked, the shortest {shortest} m");
        assert!(
            walked <= 1.3 * shortest,
            "climber {id} took {walked:.2} m for {shortest} m"
        );
    }
}

#[test]
fn a_climb_is_the_same_at_any_thread_count() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut level = String::from("world.ground { size = vec3(40, 0, 40), noise = { amplitude = 0.2, scale = 5, seed = 4 } }\nworld.box { position = vec3(0, 1.5, 4), size = vec3(16, 3, 2) }\n");
    for i in 0..6 {
        level += &format!("world.spawn(\"climber\", {{ position = vec3({}, 0, {}), behaviour = \"log_surface\" }})\n", -5.0 + 2.0 * i as f64, -1.0 - 0.3 * i as f64);
    }
    let mut traces = Vec::new();
    for threads in ["1", "2"] {
        let sub = dir.path().join(threads);
        std::fs::create_dir_all(&sub).expect("mkdir");
        traces.push(climb_run(&sub, "{}", &level, 600, &["--threads", threads]).1);
    }
    assert!(traces[0].contains("\"surface\":\"wall\""), "nobody climbed");
    assert!(
        traces[0] == traces[1],
        "the traces at 1 and 2 threads differ"
    );
}

#[test]
fn a_climber_that_lets_go_or_is_knocked_off_or_thrown_into_physics_falls_and_climbs_on() {
    let dir = tempfile::tempdir().expect("tmp");
    let level = r#"
world.ground { size = vec3(30, 0, 30) }
world.box { position = vec3(0, 2, 3), size = vec3(10, 4, 2) }
behaviour.define { name = "drop_at", params = { how = "let_go" },
  on_update = function(self)
    self:move(vec3(0, 0, 1), 0.8)
    if self:surface() == "wall" and self:position().y > 2 and not self.state.done then
      self.state.done = true
      if self.params.how == "let_go" then self:let_go()
      elseif self.params.how == "hit" then self:hit(vec3(0, 0, -1), 2)
      else self:hit(vec3(0, 0, -1), 8) end
    end
  end }
world.spawn("climber", { position = vec3(-3, 0, -1), behaviour = "drop_at", params = { how = "let_go" } })
world.spawn("climber", { position = vec3(0, 0, -1), behaviour = "drop_at", params = { how = "hit" } })
world.spawn("climber", { position = vec3(3, 0, -1), behaviour = "drop_at", params = { how = "ragdoll" } })
"#;
    let (_, trace, _) = climb_run(dir.path(), "{}", level, 1600, &[]);
    for id in [1u64, 2] {
        let lines = lines_of(&trace, id);
        let fell = lines
            .iter()
            .position(|l| l["falling"] == true && l["surface"].is_null())
            .unwrap_or_else(|| panic!("climber {id} never fell"));
        let high = v3(&lines[fell]["pos"])[1];
        assert!(high > 2.0, "climber {id} let go at {high} m");
        // It lands on the floor, stands level and climbs again (it keeps walking on).
        let landed = lines[fell..]
            .iter()
            .position(|l| l["surface"] == "floor")
            .map(|k| fell + k)
            .unwrap_or_else(|| panic!("climber {id} never landed"));
        let p = v3(&lines[landed]["pos"]);
        assert!(p[1] < 0.8 && p[2] < 2.0, "climber {id} landed at {p:?}");
        assert!(
            lines[landed..].iter().any(|l| l["surface"] == "wall"),
            "climber {id} never climbed again"
        );
        // Falling, the body stays clear of the level; on its surfaces, the bars hold.
        assert!(lines
            .iter()
            .all(|l| l["clearance"].as_f64().unwrap() > 0.05));
        assert_climbs_well(&format!("climber {id} before"), &lines[..fell], 3.0, 4);
        assert_climbs_well(
            &format!("climber {id} after"),
            &lines[landed + 30..],
            3.0,
            4,
        );
    }
    // A blow past physics.hit_threshold throws it off the wall into physics: it falls as a
    // ragdoll, gets up on the floor and climbs again.
    let lines = lines_of(&trace, 3);
    let limp = lines
        .iter()
        .position(|l| l["ragdoll"] == true)
        .expect("climber 3 never went into physics");
    assert!(
        v3(&lines[limp]["pos"])[1] > 2.0,
        "thrown off below the wall's middle"
    );
    let up_again = lines[limp..]
        .iter()
        .position(|l| l["ragdoll"] == false)
        .map(|k| limp + k)
        .expect("climber 3 never got up");
    assert!(
        lines[up_again..].iter().any(|l| l["surface"] == "wall"),
        "climber 3 never climbed again: {:?}",
        lines
            .last()
            .map(|l| (&l["pos"], &l["surface"], &l["ragdoll_state"], &l["falling"]))
    );
    assert_climbs_well("climber 3 up again", &lines[up_again + 30..], 3.0, 4);
}
/// Issue 43: a climber on a wall holds on by its feet, and lets go when too few of them
/// hold (`climb`'s adhesion: fewer than two planted for 0.3 s). A blow too weak to knock it
/// off (under half of `physics.hit_threshold`) sweeps a share of its feet off their holds
/// in proportion: at 0.4 of the threshold, seven feet of eight — it falls, lands and climbs
/// on; at 0.2, four — it keeps its hold and climbs on.
#[test]
fn a_blow_that_sweeps_a_climbers_feet_off_drops_it_and_a_lighter_one_does_not() {
    let dir = tempfile::tempdir().expect("tmp");
    let level = r#"
world.ground { size = vec3(30, 0, 30) }
world.box { position = vec3(0, 2, 3), size = vec3(10, 4, 2) }
behaviour.define { name = "hit_at", params = { strength = 1.2 },
  on_update = function(self)
    self:move(vec3(0, 0, 1), 0.8)
    if self:surface() == "wall" and self:position().y > 2 and not self.state.done then
      self.state.done = true
      self:hit(vec3(0, 0, -1), self.params.strength)
    end
  end }
world.spawn("climber", { position = vec3(-2, 0, -1), behaviour = "hit_at", params = { strength = 1.2 } })
world.spawn("climber", { position = vec3(2, 0, -1), behaviour = "hit_at", params = { strength = 0.6 } })
"#;
    let (_, trace, _) = climb_run(dir.path(), "{}", level, 900, &[]);
    // The hit lands on the first tick above 2 m on the wall.
    let hit_at = |lines: &[Value]| {
        lines
            .iter()
            .position(|l| l["surface"] == "wall" && v3(&l["pos"])[1] > 2.0)
            .expect("never 2 m up the wall")
    };
    let swept = lines_of(&trace, 1);
    let hit = hit_at(&swept);
    let fell = swept[hit..]
        .iter()
        .position(|l| l["falling"] == true)
        .expect("the swept climber never let go");
    assert!(
        (10..=30).contains(&fell),
        "it let go {fell} ticks after the blow (its swept feet flail 0.45 s; it holds on 0.3 s)"
    );
    let landed = hit
        + fell
        + swept[hit + fell..]
            .iter()
            .position(|l| l["surface"] == "floor")
            .expect("never landed");
    assert!(v3(&swept[landed]["pos"])[1] < 0.8, "landed high");
    assert!(
        swept[landed..].iter().any(|l| l["surface"] == "wall"),
        "never climbed again"
    );
    let held = lines_of(&trace, 2);
    let hit = hit_at(&held);
    assert!(
        held[hit..].iter().all(|l| l["falling"] == false),
        "a blow of a fifth of the threshold knocked it off"
    );
    assert!(
        held[hit..].iter().any(|l| v3(&l["pos"])[1] > 3.5),
        "it did not climb on"
    );
}

/// Issue 43: a save that takes the wall from under a climber's feet — the block removed
/// while it is 1.2 m up (the floor, out of its feet's reach, still within the distance it
/// senses surfaces at), or cut down to a metre while it is 2.5 m up (the wall ends under
/// it) — loses it its holds: it lets go within half a second (it used to float down on
/// its ride height's spring, held by nothing), falls and stands on what is below.
#[test]
fn a_climber_whose_wall_a_save_takes_away_lets_go_and_falls() {
    use skitter::script::{HostOptions, ScriptHost};
    for (case, up_to, new_box) in [
        ("removed", 1.2f32, ""),
        (
            "cut down",
            2.5,
            "world.box { position = vec3(0, 0.5, 3), size = vec3(8, 1, 2) }",
        ),
    ] {
        let dir = tempfile::tempdir().expect("tmp");
        let wall = "world.box { position = vec3(0, 1.5, 3), size = vec3(8, 3, 2) }";
        let level = format!(
            "world.ground {{ size = vec3(30, 0, 30) }}
{wall}
             world.spawn(\"climber\", {{ position = vec3(0, 0, -1), behaviour = \"log_surface\" }})
"
        );
        let m = climb_mod(dir.path(), "{}", &level);
        let mut host = ScriptHost::new(HostOptions::default());
        host.load(&[bundled("spider"), fixture("walkers"), m.clone()]);
        assert!(host.take_errors().is_empty());
        let state = |host: &ScriptHost| {
            let w = host.world();
            let c = &w.creatures()[0];
            (c.loco.position, c.loco.up, c.loco.airborne)
        };
        for _ in 0..900 {
            host.tick();
            let (p, up, _) = state(&host);
            if p.y > up_to && up.z < -0.99 {
                break;
            }
        }
        let (p, up, _) = state(&host);
        assert!(
            p.y > up_to && up.z < -0.99,
            "{case}: not on the wall: {p} {up}"
        );
        let body = std::fs::read_to_string(m.join("main.lua")).expect("main");
        std::fs::write(m.join("main.lua"), body.replace(wall, new_box)).expect("write");
        let changed = std::collections::BTreeMap::from([(
            "climbing".to_string(),
            vec![std::path::PathBuf::from("main.lua")],
        )]);
        let r = host.reload(&changed);
        assert!(r.len() == 1 && r[0].ok, "{case}: {r:?}");
        let fell = (1..=30).find(|_| {
            host.tick();
            state(&host).2
        });
        assert!(
            fell.is_some(),
            "{case}: still holding on to nothing half a second after the save: {:?}",
            state(&host)
        );
        let stood = (0..180).find(|_| {
            host.tick();
            let w = host.world();
            let c = &w.creatures()[0];
            !c.loco.airborne
                && !c.loco.landing
                && c.loco.legs.iter().filter(|l| l.grounded).count() >= 4
        });
        let (p, _, _) = state(&host);
        assert!(
            stood.is_some() && p.y < 1.5,
            "{case}: never stood below: {p}"
        );
    }
}

#[test]
fn a_crowd_of_climbers_crosses_a_field_of_blocks_without_sticking() {
    // 28 climbers in rows walking +Z through blocks 3 m high, many met off-centre or on
    // their side edges: up their faces, along their edges with legs hanging over or
    // gripping round the side, over and down.
    let dir = tempfile::tempdir().expect("tmp");
    let level = r#"
world.ground { size = vec3(40, 0, 40) }
for bx = -8, 8, 8 do for bz = 0, 16, 8 do
  world.box { position = vec3(bx + 2, 1.5, bz), size = vec3(3, 3, 2) }
end end
for i = 0, 27 do
  world.spawn("climber", { position = vec3(i % 14 * 1.15 - 7.5, 0, math.floor(i / 14) * 1.6 - 5), behaviour = "log_surface" })
end
"#;
    let (t, trace, _) = climb_run(dir.path(), "{}", level, 900, &[]);
    let mut all_lines = by_id(&trace);
    let mut climbed = 0;
    let travel = |ls: &[Value]| -> f64 {
        ls.windows(2)
            .map(|w| {
                let (a, b) = (v3(&w[0]["pos"]), v3(&w[1]["pos"]));
                ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2) + (b[2] - a[2]).powi(2)).sqrt()
            })
            .sum()
    };
    for id in t.ids() {
        let lines = all_lines.remove(&id).expect("lines");
        let (surfaces, _) = assert_climbs_well(&format!("climber {id}"), &lines, 3.0, 4);
        climbed += surfaces.iter().any(|s| s == "wall") as usize;
        // At 0.8 m/s for 15 s: most of the way walked, and still going at the end.
        let (all, last) = (travel(&lines), travel(&lines[lines.len() - 120..]));
        assert!(
            all > 7.0 && last > 0.6,
            "climber {id} stuck: {all:.2} m in all, {last:.2} m in the last 2 s ({surfaces:?})"
        );
    }
    assert!(climbed >= 10, "only {climbed} climbers met a block");
}

#[test]
fn a_save_keeps_a_climber_on_its_wall_and_a_bad_save_changes_nothing() {
    use skitter::script::{HostOptions, ScriptHost};
    let dir = tempfile::tempdir().expect("tmp");
    let level = |extra: &str, step: f32| {
        format!(
            "world.ground {{ size = vec3(30, 0, 30) }}\n\
             world.box {{ position = vec3(0, 1.5, 3), size = vec3(8, 3, 2) }}\n{extra}\n\
             world.spawn(\"climber\", {{ position = vec3(0, 0, -1), behaviour = \"log_surface\" }})\n\
             -- step {step}\n"
        )
    };
    let m = climb_mod(dir.path(), "{}", &level("", 0.12));
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(&[bundled("spider"), fixture("walkers"), m.clone()]);
    assert!(host.take_errors().is_empty());
    let on_wall = |host: &ScriptHost| {
        let w = host.world();
        let c = &w.creatures()[0];
        (c.loco.position, c.loco.up, c.loco.is_climbing())
    };
    for _ in 0..900 {
        host.tick();
        let (p, up, _) = on_wall(&host);
        if p.y > 1.2 && up.z < -0.99 {
            break;
        }
    }
    let (p, up, climbing) = on_wall(&host);
    assert!(
        p.y > 1.2 && up.z < -0.99 && climbing,
        "not on the wall: {p} {up}"
    );
    let feet: Vec<glam::Vec3> = host.world().creatures()[0]
        .loco
        .legs
        .iter()
        .map(|l| l.foot)
        .collect();
    // A save that changes the level (a block elsewhere) and the type (its climb): the
    // world is rebuilt round the creature, which keeps its hold, its feet where they were.
    let body = std::fs::read_to_string(m.join("main.lua")).expect("main");
    let saved = body
        .replace("climb = {}", "climb = { turn_rate = 120 }")
        .replace(
            "-- step 0.12",
            "world.box { position = vec3(8, 0.5, 8), size = vec3(1, 1, 1) }",
        );
    std::fs::write(m.join("main.lua"), &saved).expect("write");
    let changed = std::collections::BTreeMap::from([(
        "climbing".to_string(),
        vec![std::path::PathBuf::from("main.lua")],
    )]);
    let r = host.reload(&changed);
    assert!(r.len() == 1 && r[0].ok, "{r:?}");
    let (p2, up2, climbing2) = on_wall(&host);
    assert!(
        climbing2 && (p2 - p).length() < 1e-6 && (up2 - up).length() < 1e-6,
        "moved by the reload: {p2} {up2}"
    );
    let feet2: Vec<glam::Vec3> = host.world().creatures()[0]
        .loco
        .legs
        .iter()
        .map(|l| l.foot)
        .collect();
    assert_eq!(feet, feet2, "its feet moved");
    assert_eq!(
        host.world().creatures()[0]
            .def
            .climb
            .as_ref()
            .map(|c| c.turn_rate),
        Some(120.0)
    );
    // A broken save: nothing changes, it climbs on.
    std::fs::write(
        m.join("main.lua"),
        saved.replace("climb = { turn_rate = 120 }", "climb = { turn_rate = -1 }"),
    )
    .expect("write");
    let r = host.reload(&changed);
    assert!(r.len() == 1 && !r[0].ok, "{r:?}");
    assert!(host
        .take_errors()
        .iter()
        .any(|e| e.to_string().contains("climb.turn_rate")));
    let (p3, _, climbing3) = on_wall(&host);
    assert!(climbing3 && (p3 - p).length() < 1e-6);
    for _ in 0..120 {
        host.tick();
    }
    let (p4, _, climbing4) = on_wall(&host);
    assert!(climbing4 && p4.y > p.y + 0.5, "it did not climb on: {p4}");
}

/// Issue 45: climbers sent over a 3 m block to the floor 2.3 m beyond its far face arrive,
/// on flat ground and on noise ground. They came down the far wall (or the block's corner
/// edge), turned back 1 m from the floor and climbed again for ever: the surface graph
/// had nodes under the ground heightfield (its earth not told apart), a floor point seen
/// from below with its way out pointing down, and an aim behind the wall's plane (round
/// the block's corner) was read as one straight above.
#[test]
fn climbers_come_down_a_blocks_far_side_to_a_goal_near_its_foot_and_arrive() {
    for ground in ["", ", noise = { amplitude = 0.3, scale = 4, seed = 7 }"] {
        let dir = tempfile::tempdir().expect("tmp");
        let level = format!(
            r#"
world.ground {{ size = vec3(30, 0, 30){ground} }}
world.box {{ position = vec3(0, 1.5, 3), size = vec3(8, 3, 2) }}
behaviour.define {{ name = "go", params = {{ to = vec3(0, 0, 0) }},
  on_spawn = function(self) self:set_destination(self.params.to) end }}
for _, x in ipairs({{ -2.5, 0, 2.5 }}) do
  local hit = world.raycast(vec3(x, 5, 6.3), vec3(0, -1, 0), 10)
  world.spawn("climber", {{ position = vec3(x, 0.3, -1), behaviour = "go", params = {{ to = hit.position }} }})
end
"#
        );
        let (t, _, _) = climb_run(dir.path(), "{}", &level, 1800, &[]);
        let arrived = t.arrived();
        assert_eq!(arrived.len(), 3, "{ground:?}: arrived {arrived:?}");
        for id in 1..=3u64 {
            let end = t.of(id).last().and_then(|r| r.pos).unwrap();
            assert!(
                end[2] > 5.5 && end[1] < 0.8,
                "{ground:?}: climber {id} ended at {end:?}"
            );
        }
    }
}

#[test]
fn a_climber_reaches_a_point_on_a_ceiling_by_a_route_up_a_wall() {
    // A slab 2 m up on a wall at its far end; the destination on the slab's underside,
    // over open floor. No bearing leads onto a ceiling: the surface graph routes it up the
    // wall and along the underside.
    let dir = tempfile::tempdir().expect("tmp");
    let level = r#"
world.ground { size = vec3(30, 0, 30) }
world.box { position = vec3(0, 1, 3.5), size = vec3(6, 2, 1) }
world.box { position = vec3(0, 2.15, 1.5), size = vec3(6, 0.3, 5) }
behaviour.define { name = "go", on_spawn = function(self) self:set_destination(vec3(0, 2, 0.5)) end,
  on_arrive = function(self) log.info("arrived on " .. tostring(self:surface())) end }
world.spawn("climber", { position = vec3(0, 0, -3), behaviour = "go" })
"#;
    let (_, trace, printed) = climb_run(dir.path(), "{}", level, 1500, &[]);
    assert!(printed.contains("arrived on ceiling"), "{printed}");
    let lines = lines_of(&trace, 1);
    let (surfaces, _) = assert_climbs_well("to a ceiling", &lines, 3.0, 4);
    assert_eq!(surfaces, ["floor", "wall", "ceiling"], "the way it went");
}

#[test]
fn random_points_on_surfaces_land_on_walls_and_tops_too() {
    let dir = tempfile::tempdir().expect("tmp");
    let level = r#"
world.ground { size = vec3(30, 0, 30) }
world.box { position = vec3(0, 1.5, 3), size = vec3(4, 3, 2) }
behaviour.define { name = "sample", on_spawn = function(self)
  for i = 1, 60 do
    local p = world.random_nav_point(vec3(0, 1.5, 3), 2.5, { surfaces = true })
    if p then log.info(string.format("pt %.3f %.3f %.3f", p.x, p.y, p.z)) end
  end
  local ok, err = pcall(world.random_nav_point, vec3(0, 0, 0), 2, { surface = true })
  log.info("bad: " .. tostring(err))
end }
world.spawn("climber", { position = vec3(0, 0, -3), behaviour = "sample" })
"#;
    let (_, _, printed) = climb_run(dir.path(), "{}", level, 2, &[]);
    let pts: Vec<[f64; 3]> = printed
        .lines()
        .filter_map(|l| l.split("pt ").nth(1))
        .map(|l| {
            let v: Vec<f64> = l.split(' ').map(|x| x.parse().expect("number")).collect();
            [v[0], v[1], v[2]]
        })
        .collect();
    assert!(pts.len() >= 50, "{printed}");
    // Every one on a surface within 2.5 m: the ground, the block's faces or its top.
    let on_block = |p: &[f64; 3]| {
        let inside = |v: f64, lo: f64, hi: f64| v >= lo - 1e-3 && v <= hi + 1e-3;
        inside(p[0], -2.0, 2.0) && inside(p[1], 0.0, 3.0) && inside(p[2], 2.0, 4.0)
    };
    let (mut walls, mut tops, mut floor) = (0, 0, 0);
    for p in &pts {
        let d = (p[0].powi(2) + (p[1] - 1.5).powi(2) + (p[2] - 3.0).powi(2)).sqrt();
        assert!(d <= 2.5 + 1e-3, "{p:?} is {d} m away");
        if p[1].abs() < 1e-3 {
            floor += 1;
        } else if (p[1] - 3.0).abs() < 1e-3 && on_block(p) {
            tops += 1;
        } else {
            assert!(on_block(p), "{p:?} is on no surface");
            walls += 1;
        }
    }
    assert!(
        walls > 5 && tops > 0 && floor > 0,
        "walls {walls}, tops {tops}, floor {floor}"
    );
    assert!(
        printed.contains("bad: ") && printed.contains("'surface' is not a known field"),
        "{printed}"
    );
}

#[test]
fn a_climber_of_slopes_only_goes_round_a_wall_on_its_navmesh() {
    // max_angle 60: no walls. Sent to a point behind a wall 3 m high, it walks round the
    // wall's end as a navmesh agent (its navmesh baked for 60° slopes), never up the wall.
    let dir = tempfile::tempdir().expect("tmp");
    let level = r#"
world.ground { size = vec3(30, 0, 30) }
world.box { position = vec3(-1, 1.5, 3), size = vec3(8, 3, 1) }
behaviour.define { name = "go", on_spawn = function(self) self:set_destination(vec3(0, 0, 7)) end,
  on_arrive = function(self) log.info("arrived") end }
world.spawn("climber", { position = vec3(0, 0, -1), behaviour = "go" })
"#;
    let (t, trace, printed) = climb_run(dir.path(), "{ max_angle = 60 }", level, 1200, &[]);
    assert!(printed.contains("arrived"), "it never arrived: {printed}");
    let lines = lines_of(&trace, 1);
    let (surfaces, top) = assert_climbs_well("slope climber", &lines, 3.0, 4);
    assert_eq!(surfaces, ["floor"], "it stood on a wall");
    assert!(top < 0.6, "it went up: {top}");
    let end = t.of(1).last().and_then(|r| r.pos).expect("pos");
    assert!(end[2] > 6.0, "not behind the wall: {end:?}");
}

#[test]
fn bad_climb_fields_are_located_errors() {
    let dir = tempfile::tempdir().expect("tmp");
    for (climb, want) in [
        (
            "{ max_angle = 200 }",
            "field 'climb.max_angle' must be > 0 and <= 180, got 200",
        ),
        ("{ turn_rate = -1 }", "field 'climb.turn_rate' must be > 0"),
        (
            "{ max_angel = 90 }",
            "field 'climb.max_angel' is not a known field (did you mean 'climb.max_angle'?)",
        ),
        (
            "3",
            "field 'climb' must be a table or a boolean, got number",
        ),
    ] {
        let m = climb_mod(dir.path(), climb, "");
        let out = skitter(&[
            "check",
            &bundled("spider").display().to_string(),
            &fixture("walkers").display().to_string(),
            &m.display().to_string(),
        ]);
        assert!(!out.status.success(), "{climb}: accepted");
        let said = text(&out);
        assert!(
            said.contains("climbing/main.lua:") && said.contains(want),
            "{climb}: {said}"
        );
    }
}
