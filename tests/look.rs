//! Issue 47, look-at: `c:look_at(target)` turns a creature's head to a point or another
//! creature within `body.head.look`'s limits, eased; beyond them it turns as far as it may
//! and no farther; `nil` gives the head back to its counter-yaw. Measured from the trace's
//! `look = { head, at }`.

#![allow(clippy::expect_used, clippy::unwrap_used)] // tests: a failure is a failed test

mod common;

use common::{run_trace, temp_mod, text, v3};
use serde_json::Value;

/// Four-legged watchers with a head 0.5 m ahead of the body's centre and 0.1 m up.
const MOD: &str = r#"
world.ground { size = vec3(40, 0, 40) }
creature.define {
  name = "watcher",
  body = { size = vec3(0.4, 0.3, 0.9), height = 0.5,
           head = { offset = vec3(0, 0.1, 0.5), size = 0.2,
                    look = { max_yaw = 60, max_pitch = 30, speed = 180 } } },
  legs = {
    { name = "FL", hip = vec3( 0.18, 0,  0.35), rest = vec3( 0.22, -0.5,  0.4), segments = { 0.32, 0.32 }, knee = vec3(0, 0, -1) },
    { name = "FR", hip = vec3(-0.18, 0,  0.35), rest = vec3(-0.22, -0.5,  0.4), segments = { 0.32, 0.32 }, knee = vec3(0, 0, -1) },
    { name = "BL", hip = vec3( 0.18, 0, -0.35), rest = vec3( 0.22, -0.5, -0.4), segments = { 0.32, 0.32 }, knee = vec3(0, 0, 1) },
    { name = "BR", hip = vec3(-0.18, 0, -0.35), rest = vec3(-0.22, -0.5, -0.4), segments = { 0.32, 0.32 }, knee = vec3(0, 0, 1) },
  },
  gait = { groups = { { "FL", "BR" }, { "FR", "BL" } } },
}
-- A point going round the watcher once every 15.7 s, 3 m out, a little above its head.
behaviour.define {
  name = "orbit",
  on_spawn = function(self) self.state.t = 0 end,
  on_update = function(self, dt)
    self.state.t += dt
    local a = self.state.t * 0.4
    local p = self:position()
    self:look_at(vec3(p.x + 3 * math.sin(a), 0.9, p.z + 3 * math.cos(a)))
  end,
}
-- A point high overhead, a little ahead: past the pitch limit.
behaviour.define {
  name = "sky",
  on_update = function(self, dt)
    local p = self:position()
    self:look_at(vec3(p.x, 10, p.z + 1.5))
  end,
}
-- Watches a creature (the walker), then after 8 s looks where it goes again.
behaviour.define {
  name = "follow_eyes",
  on_spawn = function(self) self.state.t = 0 end,
  on_update = function(self, dt)
    self.state.t += dt
    self.state.walker = self.state.walker or world.creatures_near(vec3(4, 0, -4), 1)[1]
    if self.state.t < 8 then
      self:look_at(self.state.walker)
    else
      self:look_at(nil)
    end
  end,
}
behaviour.define {
  name = "stroll",
  on_update = function(self, dt) self:move(vec3(0, 0, 1), 0.6) end,
}
world.spawn("watcher", { position = vec3(-6, 0, 0), behaviour = "orbit" })
world.spawn("watcher", { position = vec3(0, 0, 6), behaviour = "sky" })
world.spawn("watcher", { position = vec3(6, 0, 0), behaviour = "follow_eyes" })
world.spawn("watcher", { position = vec3(4, 0, -4), behaviour = "stroll" })
"#;

/// A line's head yaw and pitch relative to its body (degrees), and the target's yaw and
/// pitch from the head (degrees, before the limits), while it looks.
fn angles(v: &Value) -> Option<(f64, f64, f64, f64)> {
    let look = v.get("look")?;
    let head = v3(&look["head"]);
    let at = v3(&look["at"]);
    let pos = v3(&v["pos"]);
    let fwd = v3(&v["fwd"]);
    let body_yaw = fwd[0].atan2(fwd[2]);
    let wrap = |a: f64| (a + 540.0) % 360.0 - 180.0;
    let head_yaw = wrap((head[0].atan2(head[2]) - body_yaw).to_degrees());
    let head_pitch = head[1].asin().to_degrees();
    // The head's centre: 0.5 m ahead of the body's centre, 0.1 m up (the body stands level).
    let c = [pos[0] + 0.5 * fwd[0], pos[1] + 0.1, pos[2] + 0.5 * fwd[2]];
    let d = [at[0] - c[0], at[1] - c[1], at[2] - c[2]];
    let want_yaw = wrap((d[0].atan2(d[2]) - body_yaw).to_degrees());
    let want_pitch = d[1].atan2((d[0] * d[0] + d[2] * d[2]).sqrt()).to_degrees();
    Some((head_yaw, head_pitch, want_yaw, want_pitch))
}

#[test]
fn a_head_follows_its_target_within_its_limits_and_no_farther() {
    let dir = tempfile::tempdir().expect("tmp");
    let m = temp_mod(
        dir.path(),
        "look",
        &[
            ("mod.toml", "name = \"look\"\nversion = \"0.1.0\"\n"),
            ("main.lua", MOD),
        ],
    );
    let (out, _) = run_trace(dir.path(), 960, &[m], &[]);
    assert!(out.status.success(), "{}", text(&out));
    let lines = common::by_id(&common::trace_text(dir.path()));
    // The orbiting point: inside the limits (10° margin) the head is on it within 4°; past
    // them it stops at 60° exactly and never turns farther.
    let (mut inside, mut outside, mut crossing) = (0, 0, 0);
    let (mut worst_in, mut most) = (0.0f64, 0.0f64);
    for v in lines[&1].iter().filter(|v| v["frame"].as_u64() > Some(60)) {
        let Some((yaw, pitch, want_yaw, want_pitch)) = angles(v) else {
            continue;
        };
        most = most.max(yaw.abs());
        if want_yaw.abs() < 50.0 {
            inside += 1;
            worst_in = worst_in
                .max((yaw - want_yaw).abs())
                .max((pitch - want_pitch).abs());
        } else if want_yaw.abs() > 70.0 && yaw * want_yaw > 0.0 && yaw.abs() > 59.5 {
            outside += 1;
            assert!(
                (yaw.abs() - 60.0).abs() < 0.5,
                "frame {}: the target at {want_yaw:.1}°, the head at {yaw:.1}°",
                v["frame"]
            );
        } else if want_yaw.abs() > 70.0 {
            // The target passed behind to the other side: the head swings across (120° at
            // most 180°/s, eased).
            crossing += 1;
        }
    }
    assert!(inside > 150 && outside > 300, "{inside} {outside}");
    assert!(
        crossing < 60,
        "{crossing} frames to swing from one limit to the other"
    );
    assert!(
        worst_in < 4.0,
        "the head {worst_in:.2}° off a target within its limits"
    );
    assert!(
        most < 60.5,
        "the head turned {most:.2}°, past its 60° limit"
    );
    // Overhead: the pitch stops at 30°.
    let sky: Vec<f64> = lines[&2]
        .iter()
        .filter(|v| v["frame"].as_u64() > Some(60))
        .filter_map(|v| angles(v).map(|a| a.1))
        .collect();
    assert!(!sky.is_empty());
    assert!(sky.iter().all(|p| (p - 30.0).abs() < 0.5), "pitch {sky:?}");
    // A creature walking by: the head on it while it looks; after `look_at(nil)` no `look`.
    let eyes = &lines[&3];
    let watching: Vec<(f64, f64)> = eyes
        .iter()
        .filter(|v| (60..470).contains(&v["frame"].as_u64().unwrap_or(0)))
        .filter_map(|v| angles(v).map(|a| (a.0, a.2)))
        .collect();
    assert!(watching.len() > 300, "{}", watching.len());
    for (yaw, want) in &watching {
        assert!(
            (yaw - want.clamp(-60.0, 60.0)).abs() < 4.0,
            "the head at {yaw:.1}° watching a creature at {want:.1}°"
        );
    }
    assert!(
        eyes.iter()
            .filter(|v| v["frame"].as_u64() > Some(500))
            .all(|v| v.get("look").is_none()),
        "still looking after look_at(nil)"
    );
}

#[test]
fn a_bad_look_target_or_limit_is_a_clear_error() {
    // Each on its own (a bad limit fails the define, so its brains never run).
    let said = |name: &str, from: &str, to: &str| {
        let dir = tempfile::tempdir().expect("tmp");
        let m = temp_mod(
            dir.path(),
            name,
            &[
                (
                    "mod.toml",
                    &format!("name = \"{name}\"\nversion = \"0.1.0\"\n"),
                ),
                ("main.lua", &MOD.replace(from, to)),
            ],
        );
        let (out, _) = run_trace(dir.path(), 5, &[m], &[]);
        text(&out)
    };
    let limit = said("badlimit", "max_pitch = 30", "max_pitch = 120");
    assert!(
        limit.contains("badlimit/main.lua:7")
            && limit
                .contains("'body.head.look.max_pitch' must be between 0 and 90 degrees, got 120"),
        "{limit}"
    );
    let target = said(
        "badtarget",
        "self:look_at(vec3(p.x, 10, p.z + 1.5))",
        "self:look_at(\"up\")",
    );
    assert!(
        target.contains("badtarget/main.lua:")
            && target
                .contains("c:look_at: expects a point (vector), a creature or nil, got string"),
        "{target}"
    );
}
