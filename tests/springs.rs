//! Issue 47, spring chains: the bones a model's binding leaves free (the fox's tail, the
//! spiders' abdomens and jaws) swing on springs, found in the skeleton by themselves, tuned or
//! stopped by `model.springs`, written to the trace as `springs`.

#![allow(clippy::expect_used, clippy::unwrap_used)] // tests: a failure is a failed test

mod common;

use std::path::{Path, PathBuf};

use common::{assets, run_trace, temp_mod, text, v3};
use serde_json::Value;

/// A mod with the shared fox (copied into a temporary folder, never the repository) that
/// trots a circle for 3 s, stops dead, then at 6 s is thrown into physics for a second and
/// gets up. `springs`: its `model.springs` table.
fn fox_mod(dir: &Path, springs: &str) -> PathBuf {
    let m = dir.join("foxtail");
    std::fs::create_dir_all(m.join("assets")).expect("mkdir");
    std::fs::copy(assets().join("fox/fox.glb"), m.join("assets/fox.glb")).expect("fox");
    let main = format!(
        r#"
behaviour.define {{
  name = "circle",
  on_spawn = function(self) self.state.t = 0 end,
  on_update = function(self, dt)
    self.state.t += dt
    local t = self.state.t
    if t < 3 then
      self:move(vec3(math.sin(t * 1.2), 0, math.cos(t * 1.2)), 1.4)
    elseif t < 3.1 then
      self:move(vec3(0, 0, 1), 0)
    elseif t > 6 and not self.state.thrown then
      self.state.thrown = true
      self:ragdoll({{ duration = 1 }})
    end
  end,
}}
world.ground {{ size = vec3(40, 0, 40) }}
creature.define {{ name = "fox", model = {{ file = "assets/fox.glb", scale = 0.01, springs = {springs} }}, behaviour = "circle" }}
world.spawn("fox", {{ position = vec3(0, 0, 0) }})
"#
    );
    temp_mod(
        dir,
        "foxtail",
        &[
            ("mod.toml", "name = \"foxtail\"\nversion = \"0.1.0\"\n"),
            ("main.lua", &main),
        ],
    );
    m
}

/// One trace line of the fox: frame, body position, body rotation, tail tip.
type Line = (u64, [f64; 3], [f64; 4], Option<[f64; 3]>);

/// Each trace line of creature 1.
fn tail(text: &str) -> Vec<Line> {
    common::by_id(text)
        .remove(&1)
        .expect("the fox")
        .iter()
        .map(|v: &Value| {
            let r = v["rot"].as_array().expect("rot");
            let rot = [0, 1, 2, 3].map(|i| r[i].as_f64().expect("rot"));
            let tip = v["springs"].as_array().map(|s| {
                assert_eq!(s.len(), 1, "{s:?}");
                assert_eq!(s[0]["name"], "b_Tail01_012");
                v3(&s[0]["tip"])
            });
            (v["frame"].as_u64().expect("frame"), v3(&v["pos"]), rot, tip)
        })
        .collect()
}

/// `p` in the body's frame (`rot` as x, y, z, w).
fn local(p: [f64; 3], pos: [f64; 3], rot: [f64; 4]) -> [f64; 3] {
    let d = [p[0] - pos[0], p[1] - pos[1], p[2] - pos[2]];
    let [x, y, z, w] = rot;
    // The inverse rotation: the conjugate.
    let (x, y, z) = (-x, -y, -z);
    let t = [
        2.0 * (y * d[2] - z * d[1]),
        2.0 * (z * d[0] - x * d[2]),
        2.0 * (x * d[1] - y * d[0]),
    ];
    [
        d[0] + w * t[0] + (y * t[2] - z * t[1]),
        d[1] + w * t[1] + (z * t[0] - x * t[2]),
        d[2] + w * t[2] + (x * t[1] - y * t[0]),
    ]
}

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    (0..3).map(|k| (a[k] - b[k]).powi(2)).sum::<f64>().sqrt()
}

#[test]
fn the_foxs_tail_swings_in_a_turn_settles_when_it_stops_and_survives_a_ragdoll() {
    let dir = tempfile::tempdir().expect("tmp");
    let m = fox_mod(dir.path(), "{}");
    let (out, _) = run_trace(dir.path(), 600, &[m], &[]);
    assert!(out.status.success(), "{}", text(&out));
    let recs = tail(&common::trace_text(dir.path()));
    // (The spawn's line comes before the first tick.)
    let bare: Vec<u64> = recs.iter().filter(|r| r.3.is_none()).map(|r| r.0).collect();
    assert!(
        bare.iter().all(|f| *f == 0),
        "lines without springs at frames {bare:?}"
    );
    let recs = &recs[recs.len() - 600..];
    let tip = |i: usize| local(recs[i].3.expect("tip"), recs[i].1, recs[i].2);
    // Standing still from 3 s: where the tail rests on the body (5.5–6 s).
    let settled = tip(355);
    // Trotting the circle (1–3 s), the tip moves on the body by more than 5 cm.
    let swing = (60..180).map(|i| dist(tip(i), settled)).fold(0.0, f64::max);
    assert!(
        swing > 0.05,
        "the tail swung {swing:.3} m on the body in the turn"
    );
    // Stopped, it settles: within 5 mm of its rest from 5 s to 6 s.
    let late = (300..360)
        .map(|i| dist(tip(i), settled))
        .fold(0.0, f64::max);
    assert!(
        late < 0.005,
        "the tail still moves {late:.4} m 2 s after the stop"
    );
    // Never through the ground (flat at 0), and in reach of the body through the ragdoll
    // and the get-up (6–8 s) and after.
    for (f, pos, _, t) in recs {
        let t = t.expect("tip");
        assert!(
            t[1] >= -1e-3,
            "frame {f}: the tail's tip under the ground: {t:?}"
        );
        assert!(
            dist(t, *pos) < 1.5,
            "frame {f}: the tail's tip {t:?} off its body {pos:?}"
        );
    }
    eprintln!("swing {swing:.3} m, settled to {late:.4} m");
}

#[test]
fn model_springs_tunes_and_stops_chains_and_a_wrong_bone_is_named() {
    let dir = tempfile::tempdir().expect("tmp");
    // Stopped: the tip rides on the body as drawn in the bind pose (rigid: it never moves
    // on the body).
    let m = fox_mod(dir.path(), "{ off = { \"b_Tail02_013\" } }");
    let (out, _) = run_trace(dir.path(), 150, &[m], &[]);
    assert!(out.status.success(), "{}", text(&out));
    let recs = tail(&common::trace_text(dir.path()));
    assert!(
        recs.iter().all(|r| r.3.is_none()),
        "a stopped chain in the trace"
    );
    // A bone no chain holds: one clear message naming the chains there are.
    let dir = tempfile::tempdir().expect("tmp");
    let m = fox_mod(dir.path(), "{ Tial1 = { stiffness = 50 } }");
    let out = common::skitter(&["check", &m.display().to_string()]);
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("no spring chain holds a bone \"Tial1\" (its chains: b_Tail01_012)"),
        "{said}"
    );
    // Out of range.
    let dir = tempfile::tempdir().expect("tmp");
    let m = fox_mod(dir.path(), "{ b_Tail01_012 = { stiffness = -3 } }");
    let out = common::skitter(&["check", &m.display().to_string()]);
    let said = text(&out);
    assert!(
        said.contains("foxtail/main.lua:19")
            && said.contains("field 'model.springs.b_Tail01_012.stiffness' must be > 0"),
        "{said}"
    );
    // Stiffer swings less (same turn).
    let swing = |springs: &str| {
        let dir = tempfile::tempdir().expect("tmp");
        let m = fox_mod(dir.path(), springs);
        let (out, _) = run_trace(dir.path(), 200, &[m], &[]);
        assert!(out.status.success(), "{}", text(&out));
        let recs = tail(&common::trace_text(dir.path()));
        let tip = |i: usize| local(recs[i].3.expect("tip"), recs[i].1, recs[i].2);
        let start = tip(1);
        (60..180).map(|i| dist(tip(i), start)).fold(0.0, f64::max)
    };
    let (soft, stiff) = (
        swing("{ all = { stiffness = 60 } }"),
        swing("{ b_Tail01_012 = { stiffness = 2000, damping = 60 } }"),
    );
    assert!(
        soft > 2.0 * stiff,
        "soft {soft:.3} m against stiff {stiff:.3} m"
    );
}

#[test]
fn every_shared_model_finds_its_free_chains() {
    let dir = tempfile::tempdir().expect("tmp");
    let m = dir.path().join("four");
    std::fs::create_dir_all(m.join("assets")).expect("mkdir");
    for (from, to) in [
        ("spider/spider.gltf", "spider.gltf"),
        ("fox/fox.glb", "fox.glb"),
        ("knight/knight.glb", "knight.glb"),
        ("spider_quaternius/spider.glb", "qspider.glb"),
    ] {
        std::fs::copy(assets().join(from), m.join("assets").join(to)).expect("copy");
    }
    temp_mod(
        dir.path(),
        "four",
        &[
            ("mod.toml", "name = \"four\"\nversion = \"0.1.0\"\n"),
            (
                "main.lua",
                r#"
creature.define { name = "spider", model = { file = "assets/spider.gltf", scale = 0.25 } }
creature.define { name = "fox", model = { file = "assets/fox.glb", scale = 0.01 } }
creature.define { name = "knight", model = { file = "assets/knight.glb" } }
creature.define { name = "qspider", model = { file = "assets/qspider.glb" } }
"#,
            ),
        ],
    );
    let out = common::skitter(&["check", &m.display().to_string()]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    // The spider's abdomen and its two jaws (on the head); the fox's tail; the other
    // spider's abdomen; the knight has none (its cape is a rigid node, its IK and roll
    // controllers carry no vertex, its toes and hand slots are its limbs').
    for want in [
        "Body.001 > Body.002 (2 bones)",
        "JawBase.L > Pincer.L (2 bones, on the head)",
        "JawBase.R > Pincer.R (2 bones, on the head)",
        "b_Tail01_012 > b_Tail02_013 > b_Tail03_014 (3 bones)",
        "Abdomen (1 bones)",
    ] {
        assert!(said.contains(want), "no {want:?} in\n{said}");
    }
    assert_eq!(said.matches("spring chains (").count(), 3, "{said}");
}

/// A hound-like walker drawn from its definition with `tail` and `antennae` (`extra`: more
/// fields of its define), trotting a circle for 3 s, then standing.
fn tailed_mod(dir: &Path, extra: &str) -> PathBuf {
    let main = format!(
        r#"
world.ground {{ size = vec3(40, 0, 40) }}
behaviour.define {{
  name = "circle",
  on_spawn = function(self) self.state.t = 0 end,
  on_update = function(self, dt)
    self.state.t += dt
    local t = self.state.t
    if t < 3 then
      self:move(vec3(math.sin(t * 1.2), 0, math.cos(t * 1.2)), 1.4)
    else
      self:move(vec3(0, 0, 1), 0)
    end
  end,
}}
creature.define {{
  name = "dog",
  body = {{ size = vec3(0.4, 0.3, 0.9), height = 0.5,
           head = {{ offset = vec3(0, 0.14, 0.5), size = vec3(0.16, 0.16, 0.24), counter_yaw = 0.8 }} }},
  tail = {{ segments = 5, length = 0.6, rise = 25 }},
  antennae = true,
  legs = {{
    {{ name = "FL", hip = vec3( 0.18, 0,  0.35), rest = vec3( 0.22, -0.5,  0.4), segments = {{ 0.32, 0.32 }}, knee = vec3(0, 0, -1) }},
    {{ name = "FR", hip = vec3(-0.18, 0,  0.35), rest = vec3(-0.22, -0.5,  0.4), segments = {{ 0.32, 0.32 }}, knee = vec3(0, 0, -1) }},
    {{ name = "BL", hip = vec3( 0.18, 0, -0.35), rest = vec3( 0.22, -0.5, -0.4), segments = {{ 0.32, 0.32 }}, knee = vec3(0, 0, 1) }},
    {{ name = "BR", hip = vec3(-0.18, 0, -0.35), rest = vec3(-0.22, -0.5, -0.4), segments = {{ 0.32, 0.32 }}, knee = vec3(0, 0, 1) }},
  }},
  gait = {{ groups = {{ {{ "FL", "BR" }}, {{ "FR", "BL" }} }} }},
  behaviour = "circle",
  {extra}
}}
world.spawn("dog", {{ position = vec3(0, 0, 0) }})
"#
    );
    temp_mod(
        dir,
        "tails",
        &[
            ("mod.toml", "name = \"tails\"\nversion = \"0.1.0\"\n"),
            ("main.lua", &main),
        ],
    )
}

/// Each chain's tip in one trace line, by name.
fn tips(v: &Value) -> Vec<(String, [f64; 3])> {
    v["springs"]
        .as_array()
        .map(|s| {
            s.iter()
                .map(|c| (c["name"].as_str().unwrap_or("").to_string(), v3(&c["tip"])))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_creature_made_from_its_definition_grows_a_tail_and_antennae_that_swing() {
    let dir = tempfile::tempdir().expect("tmp");
    let m = tailed_mod(dir.path(), "");
    let (out, _) = run_trace(dir.path(), 360, &[m], &[]);
    assert!(out.status.success(), "{}", text(&out));
    let lines = common::by_id(&common::trace_text(dir.path()))
        .remove(&1)
        .expect("dog");
    let names: Vec<String> = tips(&lines[10]).into_iter().map(|t| t.0).collect();
    assert_eq!(names, ["tail1", "antenna.L.1", "antenna.R.1"]);
    let local_tip = |v: &Value, k: usize| {
        let r = v["rot"].as_array().expect("rot");
        let rot = [0, 1, 2, 3].map(|i| r[i].as_f64().expect("rot"));
        local(tips(v)[k].1, v3(&v["pos"]), rot)
    };
    for (k, what, least) in [(0, "tail", 0.05), (1, "left antenna", 0.01)] {
        let settled = local_tip(&lines[359], k);
        let swing = (60..180)
            .map(|i| dist(local_tip(&lines[i], k), settled))
            .fold(0.0, f64::max);
        assert!(swing > least, "the {what} swung {swing:.3} m on the body");
        let late = (300..360)
            .map(|i| dist(local_tip(&lines[i], k), settled))
            .fold(0.0, f64::max);
        assert!(
            late < 0.005,
            "the {what} still moves {late:.4} m 2 s after the stop"
        );
    }
    for v in &lines {
        for (name, t) in tips(v) {
            assert!(
                t[1] >= -1e-3,
                "frame {}: {name}'s tip under the ground",
                v["frame"]
            );
        }
    }
}

#[test]
fn tail_and_antennae_in_a_definition_are_checked() {
    for (extra, want) in [
        (
            "tail = { segments = 0 },",
            "field 'tail.segments' must be a whole number from 1 to 12, got 0",
        ),
        (
            "antennae = { spread = 120 },",
            "field 'antennae.spread' must be between 0 and 90 degrees, got 120",
        ),
        (
            "antennae = { damping = -1 },",
            "field 'antennae.damping' must be ≥ 0 and ≤ 1000 (1/s), got -1",
        ),
        ("tail = 3,", "field 'tail' must be a table"),
    ] {
        let dir = tempfile::tempdir().expect("tmp");
        // (Given twice, the later wins: the mod's own `tail`/`antennae` are replaced.)
        let m = tailed_mod(dir.path(), "");
        let main = m.join("main.lua");
        let src = std::fs::read_to_string(&main).expect("main");
        let key = extra.split(' ').next().unwrap_or("");
        let src: String = src
            .lines()
            .map(|l| {
                if l.trim_start().starts_with(&format!("{key} =")) {
                    format!("  {extra}")
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        std::fs::write(&main, src).expect("write");
        let out = common::skitter(&["check", &m.display().to_string()]);
        let said = text(&out);
        assert!(!out.status.success(), "{extra}: {said}");
        assert!(
            said.contains("tails/main.lua:") && said.contains(want),
            "{extra}: {said}"
        );
    }
}

#[test]
fn a_hot_reload_keeps_the_tail_swinging_where_it_was() {
    use skitter::script::{HostOptions, ScriptHost};
    let dir = tempfile::tempdir().expect("tmp");
    let m = tailed_mod(dir.path(), "");
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(std::slice::from_ref(&m));
    assert!(host.take_errors().is_empty());
    let line = |host: &ScriptHost| -> Value {
        let mut buf = Vec::new();
        let l = skitter::headless::TraceLine {
            frame: 0,
            t: 0.0,
            server_time: None,
        };
        skitter::headless::write_world(&mut buf, &host.world(), l, &|_| None).expect("trace");
        serde_json::from_slice(&buf).expect("json")
    };
    for _ in 0..100 {
        host.tick();
    }
    let before = tips(&line(&host))[0].1;
    host.tick();
    let moving = dist(tips(&line(&host))[0].1, before);
    assert!(moving > 1e-3, "the tail is not moving ({moving})");
    // The tail made stiffer, saved while it swings: it goes on from where it was.
    let at = tips(&line(&host))[0].1;
    let main = m.join("main.lua");
    let src = std::fs::read_to_string(&main).expect("main");
    std::fs::write(
        &main,
        src.replace("rise = 25 }", "rise = 25, stiffness = 300 }"),
    )
    .expect("write");
    let changed =
        std::collections::BTreeMap::from([("tails".to_string(), vec![PathBuf::from("main.lua")])]);
    let r = host.reload(&changed);
    assert!(r.iter().all(|r| r.ok), "{r:?}");
    host.tick();
    let after = tips(&line(&host))[0].1;
    // The tick across the reload moves the tip about as far as the tick before it did (a
    // chain put back at rest would jump).
    assert!(
        dist(after, at) < 2.0 * moving + 0.002,
        "the tail jumped {:.4} m on the reload (it moved {moving:.4} m a tick before)",
        dist(after, at)
    );
    assert!(host.take_errors().is_empty());
}

/// Pixels of the `springs` layer's pink in a PNG.
fn pink_pixels(p: &Path) -> usize {
    common::count_pixels(p, |c| c[0] > 200 && c[1] < 170 && c[2] > 150)
}

#[test]
fn the_springs_layer_draws_each_chain() {
    let dir = tempfile::tempdir().expect("tmp");
    let m = tailed_mod(dir.path(), "");
    let main = m.join("main.lua");
    let src = std::fs::read_to_string(&main).expect("main");
    std::fs::write(
        &main,
        format!("{src}\ncamera.look(vec3(4.2, 1.4, 0.8), vec3(2.3, 0.4, -0.6))\n"),
    )
    .expect("write");
    let shot = |name: &str, extra: &[&str]| {
        let png = dir.path().join(name);
        let p = png.display().to_string();
        let ms = m.display().to_string();
        let mut args = vec![
            "run",
            "--screenshot",
            &p,
            "--frames",
            "200",
            "--size",
            "400x225",
        ];
        args.extend_from_slice(extra);
        args.push(&ms);
        let o = common::skitter(&args);
        (o, png)
    };
    let (o, plain) = shot("plain.png", &[]);
    let out = text(&o);
    if !o.status.success() && out.contains("no GPU adapter") {
        assert!(!common::ci(), "CI=true but no GPU adapter:\n{out}");
        eprintln!("\n!!!!! SKIPPED the springs layer: no GPU adapter on this machine !!!!!\n{out}");
        return;
    }
    assert!(o.status.success(), "{out}");
    let (o, drawn) = shot("springs.png", &["--debug", "springs"]);
    assert!(o.status.success(), "{}", text(&o));
    let (a, b) = (pink_pixels(&plain), pink_pixels(&drawn));
    assert!(
        b > a + 30,
        "the springs layer drew nothing: {a} then {b} pink pixels"
    );
}

/// The inspector's sliders tune one creature's chains (`Command::Tune`): the bundled hound's
/// tail made very stiff swings far less in the same walk than its twin's with the type's
/// settings, and the other hound is untouched; a chain it does not have changes nothing.
#[test]
fn one_creatures_chain_tuned_stiff_swings_less_than_its_twins() {
    use skitter::script::{HostOptions, ScriptHost};
    use skitter::sim::{Command, Snapshot, Tune};
    let dir = tempfile::tempdir().expect("tmp");
    let m = temp_mod(
        dir.path(),
        "twins",
        &[
            (
                "mod.toml",
                "name = \"twins\"\nversion = \"0.1.0\"\ndepends = [\"menagerie\"]\n",
            ),
            (
                "main.lua",
                r#"
world.ground { size = vec3(40, 0, 40) }
behaviour.define {
  name = "weave",
  on_update = function(self, dt)
    local a = math.sin(world.time() * 2) * 1.2
    self:move(vec3(math.sin(a), 0, math.cos(a)), 1.4)
  end,
}
world.spawn("menagerie/hound", { position = vec3(-3, 0, -10), behaviour = "weave" })
world.spawn("menagerie/hound", { position = vec3(3, 0, -10), behaviour = "weave" })
"#,
            ),
        ],
    );
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(&[common::bundled("spider"), common::bundled("menagerie"), m]);
    let ids: Vec<_> = host.world().creatures().iter().map(|c| c.id).collect();
    assert_eq!(ids.len(), 2);
    let stiff = skitter::math::SpringParams {
        stiffness: 2000.0,
        damping: 90.0,
        gravity: 0.0,
        drag: 0.0,
    };
    host.world_mut()
        .push(Command::Tune(ids[1], Box::new(Tune::Spring(0, stiff))));
    host.world_mut()
        .push(Command::Tune(ids[1], Box::new(Tune::Spring(7, stiff))));
    // Each tail's tip in its body's frame: how far it swings about its mean.
    let mut tips: [Vec<glam::Vec3>; 2] = [Vec::new(), Vec::new()];
    let mut snap = Snapshot::default();
    for _ in 0..300 {
        host.tick();
        snap.capture(&host.world());
        let mut at = 0;
        for (k, c) in snap.creatures.iter().enumerate() {
            let n = snap.spring_chains[k] as usize;
            let tip = snap.spring_points[at + n - 1];
            at += n;
            tips[k].push(c.rotation.inverse() * (tip - c.position));
        }
    }
    let swing = |t: &[glam::Vec3]| {
        let mean = t.iter().copied().sum::<glam::Vec3>() / t.len() as f32;
        t.iter().map(|p| p.distance(mean)).fold(0.0f32, f32::max)
    };
    let (loose, tight) = (swing(&tips[0][60..]), swing(&tips[1][60..]));
    assert!(
        tight < 0.5 * loose && loose > 0.02,
        "tuned stiff: {tight:.3} m of swing, its twin {loose:.3} m"
    );
    let w = host.world();
    assert!(w.creature(ids[0]).expect("twin").tuned.is_none());
    assert_eq!(
        w.creature(ids[1])
            .expect("tuned")
            .tuned
            .as_ref()
            .map(|t| t.springs.len()),
        Some(1),
        "one chain (the tail); chain 7 is not one"
    );
}
