//! Facing apart from moving (issue 45): a crab (`nav.heading = "side"`) goes to its
//! destination side first among others doing the same, its lean rolling into its sideways
//! starts and stops; `c:set_facing` keeps a walker's body on a point, a creature or an
//! angle while it goes elsewhere.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test set-up: a failure is a failed test

mod common;

use common::*;

/// An eight-legged crab: legs out to its sides, wider than long; side first.
const CRAB: &str = r#"
local legs = {}
for i, z in ipairs({ 0.12, 0.04, -0.04, -0.12 }) do
  for _, side in ipairs({ { "L", 1 }, { "R", -1 } }) do
    table.insert(legs, {
      name = side[1] .. i,
      hip = vec3(0.12 * side[2], 0, z),
      rest = vec3(0.42 * side[2], -0.2, z * 2.2),
      segments = { 0.22, 0.24 },
    })
  end
end
creature.define {
  name = "crab",
  body = { size = vec3(0.36, 0.14, 0.26), height = 0.2 },
  legs = legs,
  gait = {
    step_trigger = 0.12, step_duration = 0.16, step_height = 0.07,
    groups = { { "L1", "R2", "L3", "R4" }, { "R1", "L2", "R3", "L4" } },
    min_grounded = 4,
  },
  nav = { speed = 0.8, acceleration = 2, turn_rate = 180, radius = 0.35, heading = "side" },
  -- Two claws held forward, drawn as pincers.
  arms = {
    { name = "clawL", shoulder = vec3(0.1, 0.02, 0.13), segments = { 0.14, 0.12 }, rest = vec3(0.14, -0.02, 0.35), hand = "claw" },
    { name = "clawR", shoulder = vec3(-0.1, 0.02, 0.13), segments = { 0.14, 0.12 }, rest = vec3(-0.14, -0.02, 0.35), hand = "claw" },
  },
}
"#;

/// The angle (degrees, 0..=90) between a record's velocity and its body's sideways axis:
/// 0 is straight sideways.
fn off_sideways(r: &Rec) -> Option<f64> {
    let (v, f) = (r.vel?, r.fwd?);
    let speed = (v[0] * v[0] + v[2] * v[2]).sqrt();
    if speed < 0.2 {
        return None;
    }
    let flen = (f[0] * f[0] + f[2] * f[2]).sqrt();
    let along = ((v[0] * f[0] + v[2] * f[2]) / (speed * flen)).clamp(-1.0, 1.0);
    Some(along.abs().asin().to_degrees())
}

/// Thirty crabs in two files of fifteen, facing each other 10 m apart, each told to go to
/// the other file's place (within 60 s: a head-on crowd of forward walkers takes as long): they go side first (90 % of their moving ticks within 20° of
/// sideways), avoid each other, arrive, and walk within the locomotion bars (4 feet down
/// at least, no slide); their lean rolls into their sideways starts and stops.
#[test]
fn thirty_crabs_cross_side_first_and_arrive() {
    let dir = tempfile::tempdir().expect("tmp");
    let main = format!(
        "{CRAB}\n\
         world.ground {{ size = vec3(30, 0, 30), noise = {{ amplitude = 0.08, scale = 4, seed = 3 }} }}\n\
         behaviour.define {{ name = \"cross\", on_spawn = function(self) self:set_destination(self.params.to) end }}\n\
         for i = 1, 15 do\n\
           local x = -8.4 + 1.2 * i\n\
           world.spawn(\"crab\", {{ position = vec3(x, 0, -5), yaw = 90, behaviour = \"cross\", params = {{ to = vec3(x, 0, 5) }} }})\n\
           world.spawn(\"crab\", {{ position = vec3(x + 0.6, 0, 5), yaw = 90, behaviour = \"cross\", params = {{ to = vec3(x + 0.6, 0, -5) }} }})\n\
         end\n"
    );
    let m = temp_mod(
        dir.path(),
        "crabs",
        &[
            ("mod.toml", "name = \"crabs\"\nversion = \"0.1.0\"\n"),
            ("main.lua", &main),
        ],
    );
    let (out, t) = run_trace(dir.path(), 3600, &[m], &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(t.errors().is_empty(), "{:?}", t.errors());
    assert_walks_well("crabs", &t, &[("crabs/crab", 4)]);
    let arrived = t.arrived();
    assert_eq!(arrived.len(), 30, "arrived: {arrived:?}");
    let mut moving = 0usize;
    let mut sideways = 0usize;
    let mut roll = 0f64;
    for r in t.recs.iter().filter(|r| !r.ragdoll) {
        if let Some(a) = off_sideways(r) {
            moving += 1;
            sideways += usize::from(a <= 20.0);
        }
        // Starting sideways from a standstill (the first second and a half): rolled into it.
        if r.frame < 90 {
            roll = roll.max(r.lean("roll").abs());
        }
    }
    let share = sideways as f64 / moving.max(1) as f64;
    eprintln!(
        "crabs: {:.1} % of {moving} moving ticks within 20° of sideways; largest roll starting {roll:.1}°",
        share * 100.0
    );
    assert!(
        moving > 3000 && share >= 0.9,
        "{sideways} of {moving} moving ticks sideways"
    );
    assert!(
        roll > 3.0,
        "largest roll {roll:.2}°: no lean into sideways starts and stops"
    );
}

/// `c:set_facing` with a point, a creature and an angle: a walker told to go +Z keeps its
/// body toward each while it goes (within 10° once turned), reaching where it was sent as
/// fast as a walker facing its way; `nil` faces its way again.
#[test]
fn set_facing_turns_the_body_while_it_goes_elsewhere() {
    let dir = tempfile::tempdir().expect("tmp");
    let main = format!(
        "{CRAB}\n\
         creature.define {{ name = \"walker\", body = {{ size = vec3(0.3, 0.15, 0.45), height = 0.25 }},\n\
           legs = {{\n\
             {{ name = \"L1\", hip = vec3( 0.1, 0,  0.12), rest = vec3( 0.35, -0.25,  0.3), segments = {{ 0.25, 0.3 }} }},\n\
             {{ name = \"R1\", hip = vec3(-0.1, 0,  0.12), rest = vec3(-0.35, -0.25,  0.3), segments = {{ 0.25, 0.3 }} }},\n\
             {{ name = \"L2\", hip = vec3( 0.1, 0, -0.12), rest = vec3( 0.35, -0.25, -0.3), segments = {{ 0.25, 0.3 }} }},\n\
             {{ name = \"R2\", hip = vec3(-0.1, 0, -0.12), rest = vec3(-0.35, -0.25, -0.3), segments = {{ 0.25, 0.3 }} }},\n\
           }}, nav = {{ speed = 0.6, turn_rate = 180 }} }}\n\
         world.ground {{ size = vec3(30, 0, 30) }}\n\
         local post = world.spawn(\"crab\", {{ position = vec3(4, 0, 0) }})\n\
         behaviour.define {{ name = \"go\", on_update = function(self)\n\
           local t = world.time()\n\
           if t < 0.1 then self:set_facing({{ point = vec3(-4, 0, 0) }})\n\
           elseif t > 3 and t < 3.1 then self:set_facing(post)\n\
           elseif t > 6 and t < 6.1 then self:set_facing({{ offset = 90 }})\n\
           elseif t > 9 and t < 9.1 then self:set_facing(nil) end\n\
           self:move(vec3(0, 0, 1), 0.5)\n\
         end }}\n\
         world.spawn(\"walker\", {{ position = vec3(0, 0, -6), behaviour = \"go\" }})\n"
    );
    let m = temp_mod(
        dir.path(),
        "facing",
        &[
            ("mod.toml", "name = \"facing\"\nversion = \"0.1.0\"\n"),
            ("main.lua", &main),
        ],
    );
    let (out, t) = run_trace(dir.path(), 720, &[m], &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(t.errors().is_empty(), "{:?}", t.errors());
    assert_walks_well("facing", &t, &[("facing/walker", 2)]);
    let walker = t.of(2);
    let yaw = |r: &Rec| {
        let f = r.fwd.expect("fwd");
        f[0].atan2(f[2]).to_degrees()
    };
    let toward = |r: &Rec, p: [f64; 3]| {
        let at = r.pos.expect("pos");
        (p[0] - at[0]).atan2(p[2] - at[2]).to_degrees()
    };
    let off = |a: f64, b: f64| ((a - b + 540.0).rem_euclid(360.0) - 180.0).abs();
    let post = [4.0, 0.0, 0.0];
    let mut along = Vec::new();
    for r in &walker[60..720] {
        let t = r.frame as f64 / 60.0;
        let want = match t {
            t if (1.0..3.0).contains(&t) => Some(toward(r, [-4.0, 0.0, 0.0])),
            t if (4.0..6.0).contains(&t) => Some(toward(r, post)),
            // Going +Z (yaw 0), turned 90° toward its left.
            t if (7.0..9.0).contains(&t) => Some(90.0),
            t if t >= 10.0 => Some(0.0),
            _ => None,
        };
        if let Some(w) = want {
            assert!(
                off(yaw(r), w) < 10.0,
                "frame {}: facing {:.1}°, wanted {w:.1}°",
                r.frame,
                yaw(r)
            );
            // Turned, it goes where it was sent, never stalling (a stretched foot may hold
            // it back a little until it steps).
            let v = r.vel.expect("vel");
            assert!(
                v[2] > 0.1 && v[0].abs() < 0.2,
                "frame {}: velocity {v:?}",
                r.frame
            );
            along.push(v[2]);
        }
    }
    // Near the speed it was given (0.5 m/s), on average: a four-legged walker going side
    // first is held back a moment now and then while a stretched foot waits its turn.
    let mean = along.iter().sum::<f64>() / along.len() as f64;
    eprintln!("set_facing: {:.3} m/s on average while facing apart", mean);
    assert!(
        along.len() > 300 && mean > 0.45,
        "{mean:.3} m/s over {} ticks",
        along.len()
    );
}

/// Issue 45: `c:pose{ pitch = -15, time = 0.3 }` rears a standing crab up on its rear hips —
/// its front hips rise by their distance from the rear ones × sin 15° (6.2 cm) within half a
/// second, its rear hips stay, its feet do not move — and `c:pose()` lowers it back;
/// `c:pose{ height = 1.3 }` raises the whole body by 0.3 of its ride height.
#[test]
fn pose_rears_a_crab_up_on_planted_feet_and_lowers_it_back() {
    let dir = tempfile::tempdir().expect("tmp");
    let main = format!(
        "{CRAB}\n\
         world.ground {{ size = vec3(20, 0, 20) }}\n\
         behaviour.define {{ name = \"rear\", on_update = function(self)\n\
           local t = world.time()\n\
           if t > 1 and t < 1.02 then self:pose {{ pitch = -15, time = 0.3 }}\n\
           elseif t > 2.5 and t < 2.52 then self:pose()\n\
           elseif t > 4 and t < 4.02 then self:pose {{ height = 1.3 }} end\n\
         end }}\n\
         world.spawn(\"crab\", {{ position = vec3(0, 0, 0), behaviour = \"rear\" }})\n"
    );
    let m = temp_mod(
        dir.path(),
        "rear",
        &[
            ("mod.toml", "name = \"rear\"\nversion = \"0.1.0\"\n"),
            ("main.lua", &main),
        ],
    );
    let (out, t) = run_trace(dir.path(), 360, &[m], &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(t.errors().is_empty(), "{:?}", t.errors());
    let recs = t.of(1);
    let hip_y =
        |r: &Rec, leg: &str| r.feet.iter().find(|f| f.leg == leg).expect("leg").joints[0][1];
    let front = |r: &Rec| 0.5 * (hip_y(r, "L1") + hip_y(r, "R1"));
    let rear = |r: &Rec| 0.5 * (hip_y(r, "L4") + hip_y(r, "R4"));
    let (f0, r0) = (front(recs[55]), rear(recs[55]));
    let want = 0.24 * 15f64.to_radians().sin();
    for k in [70, 80, 90, 100, 120, 140] {
        eprintln!(
            "{k}: front {:.4} rear {:.4} body {:.4}",
            front(recs[k]) - f0,
            rear(recs[k]) - r0,
            recs[k].pos.unwrap()[1]
        );
    }
    // Reared within half a second of asking.
    let at = recs[90]; // t = 1.5
    assert!(
        front(at) - f0 > 0.85 * want && front(at) - f0 < 1.1 * want,
        "front hips rose {:.4} m (wanted {want:.4})",
        front(at) - f0
    );
    // The rear hips stay (the body's height follows the tilt a little behind it).
    for r in &recs[55..150] {
        assert!(
            (rear(r) - r0).abs() < 0.02,
            "frame {}: rear hips moved {:.4} m",
            r.frame,
            rear(r) - r0
        );
    }
    // The feet never moved while it reared and came down.
    let feet0: Vec<[f64; 3]> = recs[55].feet.iter().map(|f| f.pos.expect("pos")).collect();
    for r in &recs[55..230] {
        for (f, p0) in r.feet.iter().zip(&feet0) {
            let p = f.pos.expect("pos");
            let d = ((p[0] - p0[0]).powi(2) + (p[2] - p0[2]).powi(2)).sqrt();
            assert!(
                f.grounded && d < 0.001,
                "frame {}: foot {} moved {d:.4} m",
                r.frame,
                f.leg
            );
        }
    }
    // Back down within a second.
    assert!(
        (front(recs[210]) - f0).abs() < 0.005,
        "front hips at {:.4}",
        front(recs[210]) - f0
    );
    // Raised: the whole body 0.3 × its 0.2 m ride height up.
    let body = |r: &Rec| r.pos.expect("pos")[1];
    let rise = body(recs[330]) - body(recs[230]);
    assert!((rise - 0.06).abs() < 0.01, "raised {rise:.4} m");
    eprintln!(
        "pose: front hips +{:.4} m (want {want:.4}), body raised {rise:.4} m",
        front(at) - f0
    );
}

/// Issue 45: a crab's claws are held forward where its arms' `rest` says (not hanging),
/// `c:reach` takes one claw's tip to a reachable point and holds it within 1 cm, and
/// `c:reach(arm, nil)` brings it back to rest.
#[test]
fn claws_rest_forward_and_reach_a_point() {
    let dir = tempfile::tempdir().expect("tmp");
    let main = format!(
        "{CRAB}\n\
         world.ground {{ size = vec3(20, 0, 20) }}\n\
         behaviour.define {{ name = \"grab\", on_update = function(self)\n\
           local t = world.time()\n\
           if t > 1 and t < 1.02 then self:reach(\"clawL\", self:position() + vec3(0.02, 0.0, 0.34))\n\
           elseif t > 2.5 and t < 2.52 then self:reach(1, nil) end\n\
         end }}\n\
         world.spawn(\"crab\", {{ position = vec3(0, 0, 0), behaviour = \"grab\" }})\n"
    );
    let m = temp_mod(
        dir.path(),
        "grab",
        &[
            ("mod.toml", "name = \"grab\"\nversion = \"0.1.0\"\n"),
            ("main.lua", &main),
        ],
    );
    let (out, t) = run_trace(dir.path(), 240, &[m], &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(t.errors().is_empty(), "{:?}", t.errors());
    let recs = t.of(1);
    let dist = |a: [f64; 3], b: [f64; 3]| {
        ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
    };
    // At rest: each claw where its rest is (body space, the crab faces +Z).
    let rest = |r: &Rec, x: f64| {
        let p = r.pos.expect("pos");
        [p[0] + x, p[1] - 0.02, p[2] + 0.35]
    };
    for r in &recs[30..60] {
        assert!(
            dist(r.hands[0], rest(r, 0.14)) < 0.02,
            "frame {}: {:?}",
            r.frame,
            r.hands
        );
        assert!(
            dist(r.hands[1], rest(r, -0.14)) < 0.02,
            "frame {}: {:?}",
            r.frame,
            r.hands
        );
    }
    // Reaching: the left claw's tip on the point (asked at t = 1 from where it stood).
    let p = recs[60].pos.expect("pos");
    let goal = [p[0] + 0.02, p[1], p[2] + 0.34];
    let mut worst = 0.0f64;
    for r in &recs[100..150] {
        worst = worst.max(dist(r.hands[0], goal));
        assert!(
            dist(r.hands[1], rest(r, -0.14)) < 0.02,
            "the other claw moved"
        );
    }
    assert!(worst < 0.01, "a reaching claw {worst:.4} m off its target");
    // Let go: back at rest.
    for r in &recs[200..240] {
        assert!(
            dist(r.hands[0], rest(r, 0.14)) < 0.02,
            "frame {}: {:?}",
            r.frame,
            r.hands
        );
    }
    eprintln!("reach: claw within {worst:.4} m of its target");
}

/// Issue 45: a low-bodied creature following a path straight over a low box never sinks into
/// it: two crabs (their underside 13 cm over their feet's plane) walk paths up onto a 20 cm
/// box and off its far edge, side first, one box square to the path and one turned 30°;
/// wherever its feet stand on both sides of
/// an edge, its body's centre stays at least its half-height (7 cm) over the ground right
/// under it (the box's top, there): it sank 3 cm into the box for 40 ticks.
#[test]
fn a_path_over_a_low_box_never_sinks_the_body_into_it() {
    let dir = tempfile::tempdir().expect("tmp");
    let main = format!(
        "{CRAB}\n\
         world.ground {{ size = vec3(30, 0, 30) }}\n\
         world.box {{ position = vec3(1, 0.1, 0), size = vec3(2, 0.2, 3) }}\n\
         world.box {{ position = vec3(1, 0.1, 5), size = vec3(2, 0.2, 3), rotation = vec3(0, 30, 0) }}\n\
         local a = path.bezier {{ points = {{ {{ position = vec3(-3, 0, 0) }}, {{ position = vec3(5, 0, 0) }} }} }}\n\
         local b = path.bezier {{ points = {{ {{ position = vec3(-3, 0, 5) }}, {{ position = vec3(5, 0, 5) }} }} }}\n\
         world.spawn(\"crab\", {{ position = vec3(-3, 0, 0) }}):follow_path(a, {{ speed = 0.8, loop = false, rotation = \"none\" }})\n\
         world.spawn(\"crab\", {{ position = vec3(-3, 0, 5), yaw = 90 }}):follow_path(b, {{ speed = 0.8, loop = false, rotation = \"none\" }})\n"
    );
    let m = temp_mod(
        dir.path(),
        "boxes",
        &[
            ("mod.toml", "name = \"boxes\"\nversion = \"0.1.0\"\n"),
            ("main.lua", &main),
        ],
    );
    let (out, t) = run_trace(dir.path(), 900, &[m], &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(t.errors().is_empty(), "{:?}", t.errors());
    for id in [1, 2] {
        let recs = t.of(id);
        let on_box = recs
            .iter()
            .filter(|r| r.floor.is_some_and(|f| f[1] > 0.15))
            .count();
        assert!(on_box > 60, "crab {id} was over the box {on_box} ticks");
        let (low, frame) = recs
            .iter()
            .filter_map(|r| Some((r.pos?[1] - r.floor?[1], r.frame)))
            .fold((f64::INFINITY, 0), |a, b| if b.0 < a.0 { b } else { a });
        assert!(
            low >= 0.07,
            "crab {id}: body centre {low:.3} m over the ground under it at frame {frame} (its underside is 0.07 m below it)"
        );
        let end = recs.last().and_then(|r| r.pos).unwrap();
        assert!(end[0] > 4.9, "crab {id} ended at {end:?}");
    }
    assert_walks_well("boxes", &t, &[("boxes/crab", 4)]);
}
