//! Gait styles (issue 47): the bundled hound walks, trots and gallops by speed, changes
//! style at the speeds its type states, both ways, with no planted foot sliding and its
//! support rule (each style's `min_grounded`) held at every tick; `c:style()`,
//! `c:set_destination(v, { speed })`, and located errors for bad styles.

#![allow(clippy::expect_used, clippy::unwrap_used)] // tests: a failure is a failed test

mod common;
use common::*;

/// The hound's styles as `scripts/menagerie/hound.lua` states them: name, the speed it
/// takes over at (m/s), its `min_grounded`.
const STYLES: [(&str, f64, usize); 3] = [("walk", 0.0, 3), ("trot", 0.9, 2), ("gallop", 2.2, 2)];
/// A style gives way to the slower one under this share of its own speed
/// (`locomotion::style::HYSTERESIS`).
const GIVE_WAY: f64 = 0.85;

/// A mod with flat ground and the bundled hound driven by `plan`: a Lua list of
/// `{ seconds, speed }` (c:move straight ahead; a speed that eases from the last when
/// `ramp` is true).
fn hound_mod(dir: &std::path::Path, plan: &str, ramp: bool) -> std::path::PathBuf {
    paces_mod(dir, "menagerie/hound", plan, ramp)
}

/// [`hound_mod`] for a creature of type `ty`.
fn paces_mod(dir: &std::path::Path, ty: &str, plan: &str, ramp: bool) -> std::path::PathBuf {
    let main = format!(
        r#"
world.ground {{ size = vec3(30, 0, 140) }}
behaviour.define {{
  name = "paces",
  params = {{ plan = {plan}, ramp = {ramp} }},
  on_update = function(self, dt)
    local t, at, last = world.time(), 0, 0
    for _, p in ipairs(self.params.plan) do
      if t < at + p[1] then
        local speed = p[2]
        if self.params.ramp then speed = last + (p[2] - last) * (t - at) / p[1] end
        self:move(vec3(0, 0, 1), speed)
        return
      end
      at += p[1]
      last = p[2]
    end
    self:move(vec3(0, 0, 1), 0)
  end,
}}
world.spawn("{ty}", {{ position = vec3(0, 0, -65), behaviour = "paces" }})
"#
    );
    temp_mod(
        dir,
        "paces",
        &[
            (
                "mod.toml",
                &format!(
                    "name = \"paces\"\nversion = \"0.1.0\"\ndepends = [\"{}\"]\n",
                    ty.split('/').next().unwrap_or(ty)
                ),
            ),
            ("main.lua", &main),
        ],
    )
}

fn run(plan: &str, ramp: bool, frames: u32) -> Trace {
    let dir = tempfile::tempdir().expect("tempdir");
    let m = hound_mod(dir.path(), plan, ramp);
    let mods = [bundled("spider"), bundled("menagerie"), m];
    let (out, t) = run_trace(dir.path(), frames, &mods, &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(t.errors().is_empty(), "{:?}", t.errors());
    t
}

fn min_grounded(style: &str) -> usize {
    STYLES
        .iter()
        .find(|s| s.0 == style)
        .unwrap_or_else(|| panic!("unknown style {style}"))
        .2
}

fn speed(r: &Rec) -> f64 {
    let v = r.vel.expect("vel");
    (v[0] * v[0] + v[2] * v[2]).sqrt()
}

/// The one creature's id.
fn only(t: &Trace) -> u64 {
    t.ids()[0]
}

/// Every tick: the style in the trace, and at least its `min_grounded` feet planted.
fn assert_support_rule(t: &Trace) {
    for r in t.of(only(t)) {
        let style = r.style.as_deref().expect("a styled type's line has style");
        let down = r.feet.iter().filter(|f| f.grounded).count();
        assert!(
            down >= min_grounded(style),
            "frame {}: {down} feet down in {style} (min_grounded {})",
            r.frame,
            min_grounded(style)
        );
    }
}

/// A steady run at `pace` m/s for 6 s: the style in use after the first second, the body's
/// speed (min, max) over seconds 2–6, and the legs that lift together.
fn steady(pace: f64) -> (Trace, Vec<String>, (f64, f64), Vec<Vec<String>>) {
    let t = run(&format!("{{ {{ 6, {pace} }} }}"), false, 360);
    assert_walks_well(&format!("hound at {pace} m/s"), &t, &[]);
    assert_support_rule(&t);
    let styles: Vec<String> = t
        .of(only(&t))
        .iter()
        .filter(|r| r.frame >= 60)
        .filter_map(|r| r.style.clone())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let speeds: Vec<f64> = t
        .of(only(&t))
        .iter()
        .filter(|r| r.frame >= 120)
        .map(|r| speed(r))
        .collect();
    let range = (
        speeds.iter().cloned().fold(f64::INFINITY, f64::min),
        speeds.iter().cloned().fold(0.0, f64::max),
    );
    // Which legs lift at the same tick.
    let recs = t.of(only(&t));
    let mut lifts = Vec::new();
    for w in recs.windows(2).filter(|w| w[1].frame >= 120) {
        let lifted: Vec<String> = w[0]
            .feet
            .iter()
            .zip(&w[1].feet)
            .filter(|(a, b)| a.grounded && !b.grounded)
            .map(|(_, b)| b.leg.clone())
            .collect();
        if !lifted.is_empty() {
            lifts.push(lifted);
        }
    }
    (t, styles, range, lifts)
}

/// Whether the legs `lifted` together are one of `pairs` (each sorted by name).
fn one_of(lifted: &[String], pairs: &[[&str; 2]]) -> bool {
    let mut l = lifted.to_vec();
    l.sort();
    pairs.iter().any(|p| l == p)
}

#[test]
fn a_slow_hound_walks_one_foot_at_a_time_with_three_down() {
    let (_, styles, (lo, hi), lifts) = steady(0.55);
    assert_eq!(styles, ["walk"]);
    assert!(
        lo > 0.5 && hi < 0.6,
        "the walk holds its pace: {lo:.2}..{hi:.2} m/s"
    );
    assert!(lifts.len() > 30, "{} lifts", lifts.len());
    assert!(
        lifts.iter().all(|l| l.len() == 1),
        "one foot at a time: {lifts:?}"
    );
}

#[test]
fn a_hound_at_a_jog_trots_on_diagonal_pairs() {
    let (_, styles, (lo, hi), lifts) = steady(1.6);
    assert_eq!(styles, ["trot"]);
    assert!(
        lo > 1.5 && hi < 1.7,
        "the trot holds its pace: {lo:.2}..{hi:.2} m/s"
    );
    let pairs = lifts
        .iter()
        .filter(|l| one_of(l, &[["BR", "FL"], ["BL", "FR"]]))
        .count();
    assert!(lifts.len() > 20, "{} lifts", lifts.len());
    assert!(
        pairs as f64 >= 0.9 * lifts.len() as f64,
        "diagonal pairs lift together: {pairs} of {} ({lifts:?})",
        lifts.len()
    );
}

#[test]
fn a_bolting_hound_gallops_hind_pair_then_fore_pair() {
    let (_, styles, (lo, hi), lifts) = steady(3.2);
    assert_eq!(styles, ["gallop"]);
    assert!(
        lo > 3.0 && hi < 3.3,
        "the gallop holds its pace: {lo:.2}..{hi:.2} m/s"
    );
    let pairs: Vec<&Vec<String>> = lifts
        .iter()
        .filter(|l| one_of(l, &[["BL", "BR"], ["FL", "FR"]]))
        .collect();
    assert!(lifts.len() > 40, "{} lifts", lifts.len());
    assert!(
        pairs.len() as f64 >= 0.9 * lifts.len() as f64,
        "left and right lift together: {} of {} ({lifts:?})",
        pairs.len(),
        lifts.len()
    );
    // Hind pair, then fore pair, in turn.
    let hind_then_fore = pairs.windows(2).filter(|w| w[0][0] != w[1][0]).count();
    assert!(
        hind_then_fore as f64 >= 0.9 * (pairs.len() - 1) as f64,
        "the pairs alternate: {hind_then_fore} of {}",
        pairs.len() - 1
    );
}

#[test]
fn the_hound_changes_style_at_the_stated_speeds_both_ways_without_sliding() {
    // Up from a stand to a gallop over 8 s, held, and back down over 8 s: the speed the
    // body has is the speed asked of it (the ramp is gentler than `nav.acceleration`).
    let t = run(
        "{ { 8, 3.0 }, { 1, 3.0 }, { 8, 0.2 }, { 1, 0.2 } }",
        true,
        1080,
    );
    assert_walks_well("styles", &t, &[]);
    assert_support_rule(&t);
    let recs = t.of(only(&t));
    let mut changes = Vec::new();
    for w in recs.windows(2) {
        if w[0].style != w[1].style {
            let (from, to) = (w[0].style.clone().unwrap(), w[1].style.clone().unwrap());
            changes.push((w[1].frame, from, to, speed(w[0])));
        }
    }
    let names: Vec<(&str, &str)> = changes
        .iter()
        .map(|c| (c.1.as_str(), c.2.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("walk", "trot"),
            ("trot", "gallop"),
            ("gallop", "trot"),
            ("trot", "walk")
        ],
        "{changes:?}"
    );
    for (frame, from, to, v) in &changes {
        let up = STYLES.iter().position(|s| s.0 == to) > STYLES.iter().position(|s| s.0 == from);
        let (at, lo, hi) = if up {
            let at = STYLES.iter().find(|s| s.0 == to).unwrap().1;
            (at, at - 0.02, at + 0.08)
        } else {
            let at = GIVE_WAY * STYLES.iter().find(|s| s.0 == from).unwrap().1;
            (at, at - 0.08, at + 0.02)
        };
        assert!(
            (lo..=hi).contains(v),
            "{from} → {to} at frame {frame}: {v:.3} m/s, stated {at:.3}"
        );
    }
}

#[test]
fn set_destination_takes_a_speed_and_c_style_names_the_style() {
    let dir = tempfile::tempdir().expect("tempdir");
    let main = r#"
world.ground { size = vec3(60, 0, 60) }
behaviour.define {
  name = "errand",
  params = { speed = 1 },
  on_spawn = function(self)
    self:set_destination(vec3(self:position().x, 0, 20), { speed = self.params.speed })
  end,
  on_update = function(self, dt)
    if math.floor(world.time() * 60 + 0.5) == 240 then
      log.info("style", self.id, self:style())
    end
  end,
}
world.spawn("menagerie/hound", { position = vec3(-4, 0, -20), behaviour = "errand", params = { speed = 0.6 } })
world.spawn("menagerie/hound", { position = vec3(4, 0, -20), behaviour = "errand", params = { speed = 9 } })
world.spawn("spider/spider", { position = vec3(0, 0, 20), behaviour = "errand" })
local ok, err = pcall(function() world.creatures()[1]:set_destination(vec3(0, 0, 0), { speed = -1 }) end)
log.info("bad", err)
local ok2, err2 = pcall(function() world.creatures()[1]:set_destination(vec3(0, 0, 0), { sped = 1 }) end)
log.info("typo", err2)
"#;
    let m = temp_mod(
        dir.path(),
        "errands",
        &[
            (
                "mod.toml",
                "name = \"errands\"\nversion = \"0.1.0\"\ndepends = [\"menagerie\", \"spider\"]\n",
            ),
            ("main.lua", main),
        ],
    );
    let mods = [bundled("spider"), bundled("menagerie"), m];
    let (out, t) = run_trace(dir.path(), 300, &mods, &[]);
    let log = text(&out);
    assert!(out.status.success(), "{log}");
    let top = |id: u64| t.of(id).iter().map(|r| speed(r)).fold(0.0, f64::max);
    assert!(top(1) < 0.62, "asked for 0.6 m/s, went {:.2}", top(1));
    assert!(
        (3.1..3.25).contains(&top(2)),
        "asked for 9 m/s, capped at nav.speed 3.2: {:.2}",
        top(2)
    );
    assert!(log.contains("style\t1\twalk"), "{log}");
    assert!(log.contains("style\t2\tgallop"), "{log}");
    assert!(log.contains("style\t3\twalk"), "{log}");
    assert!(
        log.contains("c:set_destination: speed must be a number > 0, got -1"),
        "{log}"
    );
    assert!(log.contains("sped"), "the typo is named: {log}");
}

#[test]
fn bad_styles_are_located_errors_and_the_world_runs_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = [
        ("amble = { step_height = 0.1 }", "gait.styles.amble.speed"),
        ("trot = { step_height = 0 }", "gait.styles.trot.step_height"),
        ("walk = { pattern = \"hop\" }", "gait.styles.walk.pattern"),
        (
            "trot = { groups = { { \"XX\" } } }",
            "gait.styles.trot.groups[1][1]",
        ),
        (
            "trot = { min_grounded = 4 }",
            "gait.styles.trot.min_grounded",
        ),
        (
            "trot = { speed = 1, froude = 0.5 }",
            "gait.styles.trot.froude",
        ),
        ("trot = { sped = 1 }", "gait.styles.trot.sped"),
    ];
    let mut defs = String::from("world.ground { size = vec3(20, 0, 20) }\n");
    for (i, (styles, _)) in bad.iter().enumerate() {
        defs.push_str(&format!(
            r#"local ok{i}, e{i} = pcall(creature.define, {{ name = "b{i}",
  body = {{ size = vec3(0.3, 0.2, 0.5), height = 0.3 }},
  legs = {{
    {{ name = "FL", hip = vec3( 0.1, 0,  0.15), rest = vec3( 0.2, -0.3,  0.2), segments = {{ 0.2, 0.2 }} }},
    {{ name = "FR", hip = vec3(-0.1, 0,  0.15), rest = vec3(-0.2, -0.3,  0.2), segments = {{ 0.2, 0.2 }} }},
    {{ name = "BL", hip = vec3( 0.1, 0, -0.15), rest = vec3( 0.2, -0.3, -0.2), segments = {{ 0.2, 0.2 }} }},
    {{ name = "BR", hip = vec3(-0.1, 0, -0.15), rest = vec3(-0.2, -0.3, -0.2), segments = {{ 0.2, 0.2 }} }},
  }},
  gait = {{ styles = {{ {styles} }} }},
}})
log.info("def{i}", e{i})
"#
        ));
    }
    defs.push_str("world.spawn(\"spider/spider\", { position = vec3(0, 0, 0) })\n");
    let m = temp_mod(
        dir.path(),
        "badstyles",
        &[
            (
                "mod.toml",
                "name = \"badstyles\"\nversion = \"0.1.0\"\ndepends = [\"spider\"]\n",
            ),
            ("main.lua", &defs),
        ],
    );
    let (out, t) = run_trace(dir.path(), 30, &[bundled("spider"), m], &[]);
    let log = text(&out);
    assert!(out.status.success(), "{log}");
    for (i, (_, field)) in bad.iter().enumerate() {
        let line = log
            .lines()
            .find(|l| l.contains(&format!("def{i}\t")))
            .unwrap_or_else(|| panic!("def{i} logged nothing: {log}"));
        assert!(
            line.contains(&format!("'{field}'")) && line.contains("main.lua:"),
            "def{i}: {line}"
        );
    }
    assert_eq!(t.ids().len(), 1, "the spider still spawned and walked");
}

/// The bundled spider's gait tightens as it runs: below 1.2 m/s it walks, above it runs —
/// the same two groups of four, quicker and lower steps — four feet down at every tick.
#[test]
fn the_spiders_gait_tightens_as_it_runs() {
    // Each leg's swings: (frames in the air, highest its foot rose above where it lifted).
    let swings = |pace: f64| -> (Vec<String>, Vec<(usize, f64)>) {
        let dir = tempfile::tempdir().expect("tempdir");
        let m = paces_mod(
            dir.path(),
            "spider/spider",
            &format!("{{ {{ 6, {pace} }} }}"),
            false,
        );
        let mods = [bundled("spider"), m];
        let (out, t) = run_trace(dir.path(), 360, &mods, &[]);
        assert!(out.status.success(), "{}", text(&out));
        assert_walks_well(&format!("spider at {pace} m/s"), &t, &[]);
        let recs: Vec<&Rec> = t
            .of(only(&t))
            .into_iter()
            .filter(|r| r.frame >= 120)
            .collect();
        for r in &recs {
            let down = r.feet.iter().filter(|f| f.grounded).count();
            assert!(
                down >= 4,
                "frame {}: {down} feet down at {pace} m/s",
                r.frame
            );
        }
        let styles: Vec<String> = recs
            .iter()
            .filter_map(|r| r.style.clone())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let mut out = Vec::new();
        for leg in 0..recs[0].feet.len() {
            let mut from: Option<(usize, f64)> = None;
            let mut top = 0.0f64;
            for (k, r) in recs.iter().enumerate() {
                let f = &r.feet[leg];
                match (f.grounded, from) {
                    (false, None) if k > 0 => {
                        from = Some((k, recs[k - 1].feet[leg].pos.expect("pos")[1]));
                        top = f.pos.expect("pos")[1];
                    }
                    (false, Some(_)) => top = top.max(f.pos.expect("pos")[1]),
                    (true, Some((k0, y0))) => {
                        out.push((k - k0, top - y0));
                        from = None;
                    }
                    _ => {}
                }
            }
        }
        (styles, out)
    };
    let mean = |v: &[(usize, f64)], f: fn(&(usize, f64)) -> f64| {
        v.iter().map(f).sum::<f64>() / v.len().max(1) as f64
    };
    let (walk_styles, walk) = swings(1.05);
    let (run_styles, run) = swings(1.4);
    assert_eq!(walk_styles, ["walk"]);
    assert_eq!(run_styles, ["run"]);
    assert!(
        walk.len() > 20 && run.len() > 20,
        "{} / {} swings",
        walk.len(),
        run.len()
    );
    let (walk_t, run_t) = (mean(&walk, |s| s.0 as f64), mean(&run, |s| s.0 as f64));
    let (walk_h, run_h) = (mean(&walk, |s| s.1), mean(&run, |s| s.1));
    eprintln!("spider: walk swings {walk_t:.1} frames {walk_h:.3} m high; run {run_t:.1} frames {run_h:.3} m");
    // Its own speed shortens every step a little (`speed_scale`); the run's are shorter
    // still, and lower (0.09 m high against 0.12).
    assert!(
        run_t < walk_t * 0.85,
        "run swings {run_t:.1} frames, walk {walk_t:.1}"
    );
    assert!(
        run_h < walk_h * 0.9,
        "run steps {run_h:.3} m high, walk {walk_h:.3} m"
    );
}
