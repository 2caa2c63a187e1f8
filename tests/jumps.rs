//! Jumps and links (issue 28): agents leap gaps, drop off ledges and hop onto blocks by the
//! links a bake finds within their type's `nav.jump` limits or a level gives
//! (`world.link`), measured from the trace: the flight a ballistic arc (9.81 m/s² down),
//! planted feet locked, the body never inside a box, the quality bars after the landing;
//! a gap past the limits gets no link, a blocked link is refused and the agent re-plans;
//! `on_link` can take a crossing over; `c:jump` refuses clearly; the same trace at any
//! thread count, through record/replay and across a checkpoint taken in flight.
#![allow(clippy::expect_used, clippy::unwrap_used)] // tests: a failure is a failed test

mod common;

use std::path::{Path, PathBuf};

use common::*;
use serde_json::Value;

/// The bundled spider's body as type `jumper` (its `nav` gets `nav_extra`), and the
/// hound of the menagerie as `hopper` (with `jump = { up = 0.8 }`), a `goer` brain that
/// walks to `params.to` and logs its links, arrivals and jumps, then `level`.
fn jump_mod(dir: &Path, nav_extra: &str, level: &str) -> PathBuf {
    let body = std::fs::read_to_string(bundled("spider").join("body.lua")).expect("body.lua");
    // The spider's own `nav` line (with its jump limits) gives way to ours.
    let spider: String = body
        .lines()
        .map(|l| {
            if l.trim_start().starts_with("nav = {") {
                format!(
                    "  nav = {{ speed = 1.6, acceleration = 4, turn_rate = 200, {nav_extra} }},"
                )
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        .replace("name = \"spider\"", "name = \"jumper\"")
        .replace("behaviour = \"wander\"", "behaviour = \"goer\"")
        .replace("return creature.define", "creature.define");
    assert!(spider.contains(nav_extra), "the spider's nav line moved");
    let hound =
        std::fs::read_to_string(root().join("scripts/menagerie/hound.lua")).expect("hound.lua");
    let hound = hound
        .replace("name = \"hound\"", "name = \"hopper\"")
        .replace(
            "nav = { speed = 3.2, acceleration = 3, turn_rate = 160 }",
            "nav = { speed = 1.3, acceleration = 3, turn_rate = 160, jump = { gap = 1.0, up = 0.8, down = 1.0 } }",
        )
        .replace("behaviour = \"romp\"", "behaviour = \"goer\"")
        .replace("return creature.define", "creature.define");
    assert!(hound.contains("up = 0.8"), "the hound's nav line moved");
    let m = temp_mod(
        dir,
        "jumps",
        &[
            ("mod.toml", "name = \"jumps\"\nversion = \"0.1.0\"\n"),
            (
            "main.lua",
            &format!(
                "{spider}\n{hound}\n\
                 behaviour.define {{ name = \"goer\", params = {{ to = vec3(0, 0, 0) }},\n\
                   on_spawn = function(self) self:set_destination(self.params.to) end,\n\
                   on_arrive = function(self) log.info(\"arrived \" .. self.id) end,\n\
                   on_link = function(self, kind, from, to) log.info(\"link \" .. kind .. \" \" .. self.id) end }}\n\
                 {level}"
            ),
        ),
        ],
    );
    bundled_sounds("spider", &m);
    bundled_sounds("menagerie", &m);
    m
}

/// A jumping scene run headless for `frames` ticks: its trace (parsed, and its text) and
/// what it printed; checked to have run without errors.
fn jump_run(
    dir: &Path,
    nav_extra: &str,
    level: &str,
    frames: u32,
    extra: &[&str],
) -> (Trace, String, String) {
    let m = jump_mod(dir, nav_extra, level);
    let (out, t) = run_trace(dir, frames, &[m], extra);
    assert!(out.status.success(), "{}", text(&out));
    assert!(t.errors().is_empty(), "{:?}", t.errors());
    (t, trace_text(dir), text(&out))
}

const JUMP: &str = "jump = { gap = 1.5, up = 0.8, down = 2.0 }";

/// Two 6 m platforms 3 m tall (nothing below), `gap` m apart along x, and a jumper sent
/// from the first to the second.
fn gap_level(gap: f32) -> String {
    format!(
        "world.box {{ position = vec3(0, -1.5, 0), size = vec3(6, 3, 6) }}\n\
         world.box {{ position = vec3({x}, -1.5, 0), size = vec3(6, 3, 6) }}\n\
         world.spawn(\"jumper\", {{ position = vec3(-1.5, 0, 0.5), yaw = math.rad(90), params = {{ to = vec3({to}, 0, 0) }} }})\n",
        x = 6.0 + gap,
        to = 6.0 + gap + 1.0
    )
}

/// An axis-aligned box: centre and size.
type Boxed = ([f64; 3], [f64; 3]);

fn inside(p: [f64; 3], (c, s): Boxed) -> bool {
    (0..3).all(|i| (p[i] - c[i]).abs() < s[i] / 2.0)
}

/// What one creature's jumps looked like: (flights, the largest distance from gravity of
/// a flight's vertical acceleration in m/s² — a parabola fitted by least squares to its
/// heights, the trace's rounding being 0.1 mm — and the largest distance of a height from
/// its parabola in m, the links' kinds).
fn flights(lines: &[Value]) -> (usize, f64, f64, Vec<String>) {
    let mut flights = 0;
    let (mut worst, mut off): (f64, f64) = (0.0, 0.0);
    let mut kinds: Vec<String> = Vec::new();
    let mut run: Vec<f64> = Vec::new();
    let mut close = |run: &mut Vec<f64>, worst: &mut f64, off: &mut f64| {
        if run.len() >= 5 {
            flights += 1;
            let (a, dev) = parabola(run);
            *worst = worst.max((2.0 * a + 9.81).abs());
            *off = off.max(dev);
        }
        run.clear();
    };
    for l in lines {
        if let Some(k) = l["link"].as_str() {
            if kinds.last().map(String::as_str) != Some(k) {
                kinds.push(k.to_string());
            }
        }
        if l["jump"].as_str() == Some("flight") {
            run.push(v3(&l["pos"])[1]);
        } else {
            close(&mut run, &mut worst, &mut off);
        }
    }
    close(&mut run, &mut worst, &mut off);
    (flights, worst, off, kinds)
}

/// `y = a t² + b t + c` fitted to heights one tick apart: `a`, and the largest distance of
/// a height from the curve.
fn parabola(ys: &[f64]) -> (f64, f64) {
    let dt = 1.0 / 60.0;
    // Normal equations for (a, b, c).
    let mut m = [[0.0f64; 4]; 3];
    for (i, y) in ys.iter().enumerate() {
        let t = i as f64 * dt;
        let row = [t * t, t, 1.0];
        for r in 0..3 {
            for c in 0..3 {
                m[r][c] += row[r] * row[c];
            }
            m[r][3] += row[r] * y;
        }
    }
    for col in 0..3 {
        let p = (col..3)
            .max_by(|a, b| m[*a][col].abs().total_cmp(&m[*b][col].abs()))
            .expect("pivot");
        m.swap(col, p);
        let pivot = m[col];
        for (r, row) in m.iter_mut().enumerate() {
            if r != col {
                let f = row[col] / pivot[col];
                for (x, p) in row.iter_mut().zip(pivot).skip(col) {
                    *x -= f * p;
                }
            }
        }
    }
    let [a, b, c] = [0, 1, 2].map(|r| m[r][3] / m[r][r]);
    let dev = ys
        .iter()
        .enumerate()
        .map(|(i, y)| {
            let t = i as f64 * dt;
            (a * t * t + b * t + c - y).abs()
        })
        .fold(0.0, f64::max);
    (a, dev)
}

/// Eight g at 60 Hz, as a second difference of heights one tick apart (mm/frame²).
const EIGHT_G_MM: f64 = 8.0 * 9.81 / 3.6;

/// Issue 43: every jump of a creature (`lines`) pushes off: from its crouch to a second
/// after its touch-down the body's vertical acceleration stays within 8 g at every tick
/// (a one-tick launch was 30 g); between the crouch and the flight a push of at least
/// 0.08 s, begun on planted feet that stay put while they are down. Returns the pushes'
/// lengths in ticks and the largest acceleration seen, mm/frame².
fn assert_pushes_off(what: &str, lines: &[Value]) -> (Vec<usize>, f64) {
    let phase = |l: &Value| l["jump"].as_str().unwrap_or("").to_string();
    let mut pushes = Vec::new();
    let mut worst = 0.0f64;
    let mut k = 0;
    while let Some(start) = lines[k..].iter().position(|l| phase(l) == "crouch") {
        let start = k + start;
        let end = lines[start..]
            .iter()
            .position(|l| phase(l).is_empty())
            .map_or(lines.len(), |e| start + e);
        let until = (end + 60).min(lines.len());
        for w in lines[start..until].windows(3) {
            let y = |l: &Value| v3(&l["pos"])[1];
            let mm = (y(&w[2]) - 2.0 * y(&w[1]) + y(&w[0])).abs() * 1000.0;
            worst = worst.max(mm);
            assert!(
                mm <= EIGHT_G_MM,
                "{what}: frame {}: the body's vertical acceleration is {mm:.1} mm/frame² ({:.1} g) in a jump ({})",
                w[1]["frame"],
                mm * 3.6 / 9.81,
                phase(&w[1])
            );
        }
        let push: Vec<&Value> = lines[start..end]
            .iter()
            .filter(|l| phase(l) == "push")
            .collect();
        assert!(
            push.len() >= 5,
            "{what}: a push-off of {} ticks (at least 0.08 s)",
            push.len()
        );
        let planted = |l: &Value| -> Vec<bool> {
            l["feet"]
                .as_array()
                .expect("feet")
                .iter()
                .map(|f| f["grounded"] == true)
                .collect()
        };
        let first = planted(push[0]);
        assert!(
            first.iter().filter(|g| **g).count() * 2 >= first.len(),
            "{what}: the push began with only {first:?} planted"
        );
        for w in push.windows(2) {
            for (a, b) in w[0]["feet"]
                .as_array()
                .expect("feet")
                .iter()
                .zip(w[1]["feet"].as_array().expect("feet"))
            {
                if a["grounded"] == true && b["grounded"] == true {
                    assert_eq!(
                        a["pos"], b["pos"],
                        "{what}: frame {}: a planted foot moved in the push",
                        w[1]["frame"]
                    );
                }
            }
        }
        pushes.push(push.len());
        k = end;
    }
    (pushes, worst)
}

/// Every line of every creature: the body centre is inside none of `boxes`.
fn assert_outside(text: &str, boxes: &[Boxed]) {
    for (id, lines) in by_id(text) {
        for l in &lines {
            let p = v3(&l["pos"]);
            for b in boxes {
                assert!(
                    !inside(p, *b),
                    "creature {id} at frame {}: body {p:?} inside the box {b:?}",
                    l["frame"]
                );
            }
        }
    }
}

#[test]
fn a_spider_jumps_a_gap_between_platforms_on_a_ballistic_arc_and_walks_on() {
    let dir = tempfile::tempdir().expect("tmp");
    let (t, text, out) = jump_run(dir.path(), JUMP, &gap_level(1.2), 600, &[]);
    assert!(out.contains("link jump 1"), "{out}");
    assert!(out.contains("arrived 1"), "{out}");
    let lines = &by_id(&text)[&1];
    let (n, worst, off, kinds) = flights(lines);
    assert_eq!(n, 1, "one flight");
    assert!(
        worst <= 0.3,
        "in flight the body is {worst:.3} m/s² off gravity"
    );
    assert!(
        off <= 0.002,
        "in flight the body is {off:.4} m off its parabola"
    );
    assert_eq!(kinds, vec!["jump".to_string()]);
    let end = v3(&lines.last().expect("lines")["pos"]);
    assert!(
        end[0] > 7.2 && end[1] > 0.2,
        "not on the far platform: {end:?}"
    );
    // The landing kicks the lean (pitch) within a second of the touch.
    let first = lines
        .iter()
        .position(|l| l["jump"].as_str() == Some("flight"))
        .expect("a flight");
    let touch = first
        + lines[first..]
            .iter()
            .position(|l| l.get("jump").is_none())
            .expect("a touch-down");
    let kick = lines[touch..(touch + 60).min(lines.len())]
        .iter()
        .map(|l| l["lean"]["pitch"].as_f64().expect("pitch").abs())
        .fold(0.0, f64::max);
    assert!(
        kick > 3.0,
        "no landing kick: the lean's pitch peaked at {kick:.2}°"
    );
    assert_outside(
        &text,
        &[
            ([0.0, -1.5, 0.0], [6.0, 3.0, 6.0]),
            ([7.2, -1.5, 0.0], [6.0, 3.0, 6.0]),
        ],
    );
    assert_walks_well("gap jump", &t, &[("jumps/jumper", 4)]);
    let (pushes, worst) = assert_pushes_off("gap jump", lines);
    assert_eq!(pushes.len(), 1, "one push-off");
    eprintln!("gap jump: push-offs of {pushes:?} ticks, at most {worst:.1} mm/frame²");
}

#[test]
fn a_spider_drops_off_a_ledge_and_a_hound_hops_onto_a_block() {
    let dir = tempfile::tempdir().expect("tmp");
    let level = "world.ground { size = vec3(30, 0, 30) }\n\
        world.box { position = vec3(0, 0.75, 0), size = vec3(6, 1.5, 6) }\n\
        world.box { position = vec3(0, 0.3, -8), size = vec3(3, 0.6, 3) }\n\
        world.spawn(\"jumper\", { position = vec3(-1, 1.5, 0), yaw = math.rad(90), params = { to = vec3(7, 0, 0) } })\n\
        world.spawn(\"hopper\", { position = vec3(-5, 0, -8), yaw = math.rad(90), behaviour = \"goer\", params = { to = vec3(0, 0.6, -8) } })\n";
    let (t, text, out) = jump_run(dir.path(), JUMP, level, 720, &[]);
    let lines = by_id(&text);
    let (n, worst, off, kinds) = flights(&lines[&1]);
    assert!(out.contains("arrived 1"), "{out}");
    assert_eq!((n, kinds), (1, vec!["drop".to_string()]));
    assert!(
        worst <= 0.3 && off <= 0.002,
        "the drop is {worst:.3} m/s² off gravity, {off:.4} m off its parabola"
    );
    let end = v3(&lines[&1].last().expect("lines")["pos"]);
    assert!(
        end[0] > 4.0 && end[1] < 0.6,
        "not down on the floor: {end:?}"
    );
    let (n, worst, off, kinds) = flights(&lines[&2]);
    assert!(out.contains("arrived 2"), "{out}");
    assert_eq!((n, kinds), (1, vec!["hop".to_string()]));
    assert!(
        worst <= 0.3 && off <= 0.002,
        "the hop is {worst:.3} m/s² off gravity, {off:.4} m off its parabola"
    );
    let end = v3(&lines[&2].last().expect("lines")["pos"]);
    assert!(end[1] > 0.9, "not up on the block: {end:?}");
    assert_outside(
        &text,
        &[
            ([0.0, 0.75, 0.0], [6.0, 1.5, 6.0]),
            ([0.0, 0.3, -8.0], [3.0, 0.6, 3.0]),
        ],
    );
    assert_walks_well(
        "drop and hop",
        &t,
        &[("jumps/jumper", 4), ("jumps/hopper", 2)],
    );
    for (id, what) in [(1u64, "drop"), (2, "hop")] {
        let (pushes, worst) = assert_pushes_off(what, &lines[&id]);
        assert_eq!(pushes.len(), 1, "{what}: one push-off");
        eprintln!("{what}: push-offs of {pushes:?} ticks, at most {worst:.1} mm/frame²");
    }
}

#[test]
fn a_gap_wider_than_the_limit_gets_no_link_and_no_try() {
    let dir = tempfile::tempdir().expect("tmp");
    let (_, text, out) = jump_run(dir.path(), JUMP, &gap_level(3.0), 400, &[]);
    assert!(
        out.contains("cannot be reached from here"),
        "the destination should be unreachable: {out}"
    );
    assert!(!out.contains("link "), "{out}");
    let lines = &by_id(&text)[&1];
    assert!(lines.iter().all(|l| l.get("jump").is_none()
        && l.get("link").is_none()
        && l["falling"] == Value::Bool(false)));
    let end = v3(&lines.last().expect("lines")["pos"]);
    assert!(end[0] < 3.0 && end[1] > 0.2, "left its platform: {end:?}");
}

#[test]
fn a_link_blocked_after_the_bake_is_refused_and_the_agent_goes_round() {
    // Two platforms 1.2 m apart joined by a bridge 8 m away, and a level link straight
    // across; a walker without jump limits of its own. A box drops into the link's arc
    // once the spider is on its way: the crossing is refused, the link taken off, and the
    // spider goes round by the bridge.
    let dir = tempfile::tempdir().expect("tmp");
    let level = "world.box { position = vec3(0, -1.5, 0), size = vec3(6, 3, 20) }\n\
        world.box { position = vec3(7.2, -1.5, 0), size = vec3(6, 3, 20) }\n\
        world.box { position = vec3(3.6, -0.25, 8), size = vec3(1.4, 0.5, 2) }\n\
        world.link { from = vec3(2.6, 0, 0), to = vec3(4.6, 0, 0), kind = \"leap\", width = 1.5 }\n\
        world.spawn(\"jumper\", { position = vec3(-1, 0, 0), yaw = math.rad(90), params = { to = vec3(8, 0, 0) } })\n\
        local n = 0\n\
        behaviour.define { name = \"blocker\", on_update = function(self)\n\
          n += 1\n\
          if n == 20 then world.box { position = vec3(3.6, 0.9, 0), size = vec3(0.6, 0.6, 3) } end\n\
        end }\n\
        world.spawn(\"jumper\", { position = vec3(-2, 0, -8), behaviour = \"blocker\" })\n";
    let (_, text, out) = jump_run(dir.path(), "links = { \"leap\" }", level, 1500, &[]);
    assert!(out.contains("is blocked"), "{out}");
    assert!(out.contains("arrived 1"), "{out}");
    let lines = &by_id(&text)[&1];
    assert!(
        lines.iter().all(|l| l.get("jump").is_none()),
        "it jumped into the box"
    );
    assert!(
        lines.iter().any(|l| v3(&l["pos"])[2] > 6.0),
        "it did not go by the bridge"
    );
    assert_outside(&text, &[([3.6, 0.9, 0.0], [0.6, 0.6, 3.0])]);
}

#[test]
fn a_jump_is_the_same_at_any_thread_count_and_through_record_and_replay() {
    let dir = tempfile::tempdir().expect("tmp");
    let m = jump_mod(dir.path(), JUMP, &gap_level(1.2));
    let run = |name: &str, extra: &[&str]| -> Vec<u8> {
        let trace = dir.path().join(format!("{name}.jsonl"));
        let mut args: Vec<String> = ["run", "--headless", "--frames", "420", "--trace"]
            .map(String::from)
            .to_vec();
        args.push(trace.display().to_string());
        args.extend(extra.iter().map(|s| s.to_string()));
        args.push(m.display().to_string());
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = skitter(&argv);
        assert!(out.status.success(), "{}", text(&out));
        std::fs::read(&trace).expect("trace")
    };
    let rec = dir.path().join("run.rec").display().to_string();
    let one = run("one", &["--threads", "1", "--record", &rec]);
    let two = run("two", &["--threads", "2"]);
    let replayed = run("replayed", &["--replay", &rec]);
    let text = String::from_utf8_lossy(&one);
    assert!(
        text.contains("\"jump\":\"flight\""),
        "no jump in the run to compare"
    );
    assert!(one == two, "the trace differs at 2 threads");
    assert!(one == replayed, "the replay's trace differs from the run's");
}

#[test]
fn a_checkpoint_taken_in_flight_restores_to_the_same_jump() {
    use skitter::script::{HostOptions, ScriptHost};
    let dir = tempfile::tempdir().expect("tmp");
    let m = jump_mod(dir.path(), JUMP, &gap_level(1.2));
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(&[m]);
    assert!(host.take_errors().is_empty());
    let in_flight = |host: &ScriptHost| {
        host.world().creatures()[0]
            .loco
            .jump
            .as_ref()
            .is_some_and(|j| j.in_flight())
    };
    for _ in 0..600 {
        host.tick();
        if in_flight(&host) {
            break;
        }
    }
    assert!(in_flight(&host), "never took off");
    // A few ticks into the flight.
    for _ in 0..5 {
        host.tick();
    }
    let cp = host.world().checkpoint();
    let states = |host: &mut ScriptHost| -> Vec<(glam::Vec3, f32, Vec<glam::Vec3>)> {
        (0..240)
            .map(|_| {
                host.tick();
                let w = host.world();
                let c = &w.creatures()[0];
                (
                    c.loco.position,
                    c.loco.yaw,
                    c.loco.legs.iter().map(|l| l.foot).collect(),
                )
            })
            .collect()
    };
    let first = states(&mut host);
    host.world_mut().restore(cp);
    let again = states(&mut host);
    assert_eq!(first.len(), again.len());
    for (i, (a, b)) in first.iter().zip(&again).enumerate() {
        assert!(a == b, "tick {i} after the checkpoint: {a:?} then {b:?}");
    }
    let end = first.last().expect("states").0;
    assert!(end.x > 5.0, "did not land and walk on: {end}");
}

#[test]
fn c_jump_leaps_to_a_point_and_refuses_clearly_what_it_cannot() {
    let dir = tempfile::tempdir().expect("tmp");
    let level = "world.ground { size = vec3(12, 0, 12) }\n\
        world.box { position = vec3(-2, 1.5, 2), size = vec3(2, 3, 0.3) }\n\
        behaviour.define { name = \"leaper\", on_update = function(self)\n\
          self.state.n = (self.state.n or 0) + 1\n\
          if self.state.n == 30 then\n\
            for _, to in ipairs({ vec3(0, 0, 6), vec3(-2, 0, 3), vec3(0, 0, 40), vec3(-0.8, 0, 1.6) }) do\n\
              local ok, err = pcall(function() self:jump(to) end)\n\
              log.info((ok and \"jumped\" or (\"refused: \" .. tostring(err))))\n\
              if ok then break end\n\
            end\n\
          end\n\
          if self.state.n == 40 then log.info(\"jumping \" .. tostring(self:is_jumping())) end\n\
        end }\n\
        world.spawn(\"jumper\", { position = vec3(-2, 0, 1), behaviour = \"leaper\" })\n";
    let (t, text, out) = jump_run(dir.path(), "links = {}", level, 300, &[]);
    for want in [
        "nav.jump.gap",
        "is blocked by the level",
        "no ground to land on",
        "jumped",
        "jumping true",
    ] {
        assert!(out.contains(want), "{want}: {out}");
    }
    assert!(out.contains("main.lua:"), "refusals name the line: {out}");
    let lines = &by_id(&text)[&1];
    let (n, worst, off, kinds) = flights(lines);
    assert_eq!(n, 1);
    assert!(kinds.is_empty(), "a jump without a link: {kinds:?}");
    assert!(worst <= 0.3 && off <= 0.002, "{worst} {off}");
    let end = v3(&lines.last().expect("lines")["pos"]);
    assert!(
        (end[0] + 0.8).abs() < 0.35 && (end[2] - 1.6).abs() < 0.35,
        "landed at {end:?}, not by (-0.8, 1.6)"
    );
    assert_walks_well("c:jump", &t, &[("jumps/jumper", 4)]);
}

#[test]
fn on_link_can_take_a_crossing_over_and_cross_later() {
    let dir = tempfile::tempdir().expect("tmp");
    let level = format!(
        "behaviour.define {{ name = \"waiter\", params = {{ to = vec3(8.2, 0, 0) }},\n\
           on_spawn = function(self) self:set_destination(self.params.to) end,\n\
           on_arrive = function(self) log.info(\"arrived \" .. self.id) end,\n\
           on_link = function(self, kind, from, to)\n\
             log.info(\"holding at a \" .. kind .. \" link\")\n\
             self.state.wait = 60\n\
             return true\n\
           end,\n\
           on_update = function(self)\n\
             if self.state.wait then\n\
               self.state.wait -= 1\n\
               if self.state.wait == 0 then\n\
                 log.info(\"waited at \" .. tostring(self:link()) .. \", jumping: \" .. tostring(self:is_jumping()))\n\
                 self:cross_link()\n\
               end\n\
             end\n\
           end }}\n{}",
        gap_level(1.2).replace("params =", "behaviour = \"waiter\", params =")
    );
    let (_, text, out) = jump_run(dir.path(), JUMP, &level, 720, &[]);
    assert!(out.contains("holding at a jump link"), "{out}");
    assert!(out.contains("waited at jump, jumping: false"), "{out}");
    assert!(out.contains("arrived 1"), "{out}");
    let lines = &by_id(&text)[&1];
    // It stood at the link (a link, no jump) for the wait, then crossed.
    let held = lines
        .iter()
        .filter(|l| l.get("link").is_some() && l.get("jump").is_none())
        .count();
    assert!(held >= 55, "held only {held} ticks");
    let (n, _, _, kinds) = flights(lines);
    assert_eq!((n, kinds), (1, vec!["jump".to_string()]));
}

#[test]
fn bad_link_and_jump_fields_are_located_errors() {
    let dir = tempfile::tempdir().expect("tmp");
    for (nav, level, want) in [
        (
            "jump = { gap = -1 }",
            "",
            "field 'nav.jump.gap' must be >= 0",
        ),
        (
            "jump = { hop = 1 }",
            "",
            "field 'nav.jump.hop' is not a known field",
        ),
        (
            "links = { 3 }",
            "",
            "field 'nav.links[1]' must be a link kind name",
        ),
        (
            "links = {}",
            "world.link { from = vec3(0, 0, 0) }",
            "world.link: field 'to' is required",
        ),
        (
            "links = {}",
            "world.box { position = vec3(0, -0.5, 0), size = vec3(8, 1, 8) } world.link { from = vec3(0, 0, 0), to = vec3(2, 0, 0), width = -1 }",
            "world.link: field 'width' must be > 0",
        ),
        (
            "links = {}",
            "world.link { from = vec3(0, 0, 0), to = vec3(2, 0, 0), kind = \"\" }",
            "world.link: field 'kind' must be a name",
        ),
        (
            "links = {}",
            "world.box { position = vec3(0, -0.5, 0), size = vec3(8, 1, 8) } world.link { from = vec3(0, 0, 0), to = vec3(30, 0, 0) }",
            "world.link: field 'to' (30.00, 0.00, 0.00) has no ground within 1.5 m",
        ),
    ] {
        let sub = dir.path().join(format!("case{}", want.len()));
        std::fs::create_dir_all(&sub).expect("mkdir");
        let m = jump_mod(&sub, nav, level);
        let out = skitter(&["check", &m.display().to_string()]);
        assert!(!out.status.success(), "{nav} {level}: accepted");
        let said = text(&out);
        assert!(
            said.contains("jumps/main.lua:") && said.contains(want),
            "{nav} {level}: {said}"
        );
    }
}

#[test]
fn a_reload_takes_a_mods_links_away_and_gives_them_back() {
    use skitter::script::{HostOptions, ScriptHost};
    let dir = tempfile::tempdir().expect("tmp");
    let link = "world.link { from = vec3(2.6, 0, -2), to = vec3(4.6, 0, -2), kind = \"leap\" }";
    let level = format!("{}{link}\n", gap_level(1.2));
    let m = jump_mod(dir.path(), JUMP, &level);
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(std::slice::from_ref(&m));
    assert!(host.take_errors().is_empty());
    host.tick();
    let kinds = |host: &ScriptHost| -> (Vec<String>, usize) {
        let w = host.world();
        let links = w.nav_links();
        let level: Vec<String> = links
            .iter()
            .filter(|(l, _)| l.id < skitter::nav::GENERATED_ID)
            .map(|(l, _)| w.link_kinds()[l.kind].clone())
            .collect();
        (level, links.len())
    };
    let (level_links, all) = kinds(&host);
    assert_eq!(level_links, vec!["leap".to_string()]);
    assert!(all > 1, "the bake found none of its own");
    let changed =
        std::collections::BTreeMap::from([("jumps".to_string(), vec![PathBuf::from("main.lua")])]);
    // Saved without the link: it goes, the links the bake finds stay.
    let src = std::fs::read_to_string(m.join("main.lua")).expect("main");
    std::fs::write(m.join("main.lua"), src.replace(link, "")).expect("write");
    let r = host.reload(&changed);
    assert!(r.len() == 1 && r[0].ok, "{r:?}");
    host.tick();
    let (level_links, after) = kinds(&host);
    assert!(level_links.is_empty(), "{level_links:?}");
    assert_eq!(after, all - 1);
    // And back.
    std::fs::write(m.join("main.lua"), &src).expect("write");
    let r = host.reload(&changed);
    assert!(r.len() == 1 && r[0].ok, "{r:?}");
    host.tick();
    assert_eq!(kinds(&host).0, vec!["leap".to_string()]);
}
