//! Bézier paths from Lua and the creatures that follow them, measured from traces.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test set-up: a failure is a failed test

mod common;
use common::*;

fn run(frames: u32) -> (std::process::Output, Trace, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("tmp");
    let (out, t) = run_trace(
        dir.path(),
        frames,
        &[bundled("spider"), fixture("followers")],
        &[],
    );
    assert!(
        out.status.success() && t.errors().is_empty(),
        "{} {:?}",
        text(&out),
        t.errors()
    );
    (out, t, dir)
}

fn speed(a: &Rec, b: &Rec) -> f64 {
    let (p, q) = (a.pos.unwrap(), b.pos.unwrap());
    ((q[0] - p[0]).powi(2) + (q[1] - p[1]).powi(2) + (q[2] - p[2]).powi(2)).sqrt() * 60.0
        / (b.frame - a.frame) as f64
}

#[test]
fn a_flyer_keeps_its_speed_through_a_tight_s_curve_and_starts_and_stops_at_its_acceleration() {
    let (out, t, _d) = run(600);
    let log = text(&out);
    let len: f64 = log
        .split("lengths ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .expect("length logged");
    let s = t.of(1);
    // Tick 1 attaches the flyer to the path (from its spawn height): measure from tick 2.
    let speeds: Vec<(u64, f64)> = s
        .windows(2)
        .skip(1)
        .map(|w| (w[1].frame, speed(w[0], w[1])))
        .filter(|(_, v)| *v > 1e-6)
        .collect();
    let moving = speeds.len();
    // It starts and stops at its type's `nav.acceleration` (6 m/s², the default: 0.1 m/s a
    // tick), and flies every tick between at 2 m/s ±1 %.
    let dv = 6.0 / 60.0;
    // (Tick 1 is not measured: by tick 2 it has had two ticks to speed up.)
    assert!(
        speeds[0].1 <= 2.0 * dv * 1.05,
        "started at {:.3} m/s",
        speeds[0].1
    );
    let mut prev = speeds[0].1;
    // (The last tick arrives part-way through it.)
    for (frame, v) in &speeds[..moving - 1] {
        assert!(
            (v - prev).abs() <= dv * 1.05 + 0.002,
            "speed {prev:.4} → {v:.4} m/s at frame {frame}: faster than nav.acceleration"
        );
        prev = *v;
    }
    let full: Vec<&(u64, f64)> = speeds.iter().filter(|(_, v)| *v > 1.9).collect();
    assert!(
        full.len() > moving / 2,
        "{} of {moving} ticks at speed",
        full.len()
    );
    for (frame, v) in speeds
        .iter()
        .filter(|(f, _)| *f > full[0].0 && *f < full[full.len() - 1].0)
    {
        assert!(
            (v - 2.0).abs() <= 0.02,
            "speed {v:.4} m/s at frame {frame} (limit ±1 %)"
        );
    }
    // The last ticks slow to a creep before it stops.
    assert!(
        speeds[moving - 1].1 < 0.3,
        "stopped from {:.3} m/s",
        speeds[moving - 1].1
    );
    // It flew the whole S once: in length / speed seconds, and half of 2 / 6 s more for the
    // start and again for the stop.
    let expect = ((len / 2.0 + 2.0 / 6.0) * 60.0) as i64;
    assert!(
        (moving as i64 - expect).abs() <= 4,
        "moved {moving} ticks, expected about {expect}"
    );
    let end = s.last().and_then(|r| r.pos).unwrap();
    assert!(
        (end[0] + 10.0).abs() < 0.01 && (end[2] + 1.0).abs() < 0.01 && (end[1] - 3.0).abs() < 0.01,
        "{end:?}"
    );
}

#[test]
fn ping_pong_turns_around_at_both_ends() {
    let (_, t, _d) = run(300);
    let z: Vec<f64> = t.of(2).iter().map(|r| r.pos.unwrap()[2]).collect();
    let (lo, hi) = z
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(*v), b.max(*v)));
    assert!(lo > -10.01 && hi < -5.99, "left the line: {lo} .. {hi}");
    assert!(
        lo < -9.9 && hi > -6.1,
        "did not reach both ends: {lo} .. {hi}"
    );
    let turns = z
        .windows(3)
        .filter(|w| (w[1] - w[0]) * (w[2] - w[1]) < 0.0)
        .count();
    // 5 s at 2 m/s on a 4 m line: out, back, and out again.
    assert!(
        turns >= 2,
        "only {turns} turns in 5 s on a 4 m line at 2 m/s"
    );
}

#[test]
fn a_legged_follower_keeps_foot_quality() {
    let (_, t, _d) = run(900);
    let spider: Vec<Rec> = t
        .recs
        .iter()
        .filter(|r| r.ty == "spider/spider")
        .cloned()
        .collect();
    let only = Trace {
        recs: spider,
        events: Vec::new(),
    };
    let q = assert_walks_well("follower", &only, &[("spider/spider", 4)]);
    // 15 s at 1 m/s around a ~22 m loop: it went most of the way round and came back near.
    let path: f64 = only
        .recs
        .windows(2)
        .map(|w| speed(&w[0], &w[1]) / 60.0)
        .sum();
    assert!(path > 13.0, "walked only {path:.1} m");
    assert!(q.landings > 60);
}

#[test]
fn paths_from_lua() {
    let dir = tempfile::tempdir().expect("tmp");
    let src = r#"
local p = path.bezier { points = {
  { position = vec3(0, 0, 0), handle_out = vec3(2, 0, 0) },
  { position = vec3(6, 0, 4), handle_in = vec3(5, 0, 1), handle_out = vec3(7, 0, 7) },
  { position = vec3(0, 0, 8) },
} }
log.info("len", string.format("%.3f", p:length()))
local a = p:point(0)
local b = p:point(p:length())
log.info("ends", a.x, a.z, b.x, b.z)
local t = p:tangent(0)
log.info("tangent", string.format("%.3f", t.x))
local s, q = p:closest(vec3(6, 1, 4))
log.info("closest", string.format("%.2f %.2f", q.x, q.z))
log.info("sample", #p:sample(5))
local c = path.bezier { closed = true, points = { { position = vec3(0,0,0) }, { position = vec3(4,0,0) }, { position = vec3(4,0,4) }, { position = vec3(0,0,4) } } }
log.info("closed", string.format("%.4f", vector.magnitude(c:point(0) - c:point(c:length()))))
log.info("simplified", tostring(c:simplify(0.01)))
local ok, err = pcall(function() path.bezier { points = { { position = vec3(0,0,0) } } } end)
log.info("one point", ok, tostring(err):match("needs at least 2 points") ~= nil)
local ok2, err2 = pcall(function() path.bezier { points = { { position = vec3(0,0,0), handel_out = vec3(1,0,0) }, { position = vec3(1,0,0) } } } end)
log.info("typo", ok2, tostring(err2):match("points%[1%]%.handel_out") ~= nil)
"#;
    let m = temp_mod(dir.path(), "bez", &[("main.lua", src)]);
    let out = one_tick_beside_walkers(&m);
    let log = text(&out);
    for want in [
        "[bez] ends\t0\t0\t0\t8",
        "[bez] tangent\t1.000",
        "[bez] closest\t6.00 4.00",
        "[bez] sample\t5",
        "[bez] closed\t0.0000",
        "[bez] one point\tfalse\ttrue",
        "[bez] typo\tfalse\ttrue",
    ] {
        assert!(log.contains(want), "missing {want:?} in\n{log}");
    }
    assert!(log.contains("[bez] simplified\tpath("), "{log}");
}
