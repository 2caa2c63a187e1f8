//! Level of detail (issue 17 §6), end to end from traces of `skitter run --headless`: with
//! `--lod-radius`, spiders near the focus walk exactly as at full detail (byte for byte,
//! quality bars met), far ones move on one tick in `--lod-every` and still arrive, feet on
//! the ground; the trace is the same at any thread count.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test set-up: a failure is a failed test

mod common;
use common::*;

/// Six spiders walking 16 m side by side, 16 m apart, two near the focus (x = ±4: always
/// within 9 m of the origin) and four far (x = ±20, ±36: never within 20 m).
const SCENE: &str = r#"
world.ground { size = vec3(100, 0, 40) }
behaviour.define {
  name = "go",
  on_spawn = function(self) self:set_destination(self.params.dest) end,
}
for _, x in ipairs({ -36, -20, -4, 4, 20, 36 }) do
  world.spawn("spider/spider", { position = vec3(x, 0, -8), yaw = 0,
    behaviour = "go", params = { dest = vec3(x, 0, 8) } })
end
"#;

const LOD: [&str; 6] = [
    "--lod-radius",
    "12",
    "--lod-every",
    "3",
    "--lod-focus",
    "0,0",
];

fn run(dir: &std::path::Path, extra: &[&str]) -> (String, Trace) {
    let manifest = "name = \"lodscene\"\nversion = \"0.1.0\"\ndepends = [\"spider\"]\n";
    let m = temp_mod(
        dir,
        "lodscene",
        &[("mod.toml", manifest), ("main.lua", SCENE)],
    );
    let (out, t) = run_trace(dir, 900, &[bundled("spider"), m], extra);
    assert!(out.status.success(), "{}", text(&out));
    assert!(t.errors().is_empty(), "{:?}", t.errors());
    (text(&out), t)
}

fn arrival(t: &Trace, id: u64) -> Option<u64> {
    t.events
        .iter()
        .find(|e| e["event"] == "arrive" && e["id"].as_u64() == Some(id))
        .and_then(|e| e["frame"].as_u64())
}

/// Only the records of `ids`.
fn only(t: &Trace, ids: &[u64]) -> Trace {
    Trace {
        recs: t
            .recs
            .iter()
            .filter(|r| ids.contains(&r.id))
            .cloned()
            .collect(),
        events: Vec::new(),
    }
}

fn same_motion(a: &Rec, b: &Rec) -> bool {
    a.pos == b.pos
        && a.rot == b.rot
        && a.feet.len() == b.feet.len()
        && a.feet
            .iter()
            .zip(&b.feet)
            .all(|(f, g)| f.pos == g.pos && f.grounded == g.grounded && f.joints == g.joints)
}

#[test]
fn far_spiders_update_every_few_ticks_and_near_ones_exactly_as_at_full_detail() {
    let dir = tempfile::tempdir().expect("tmp");
    let (_, full) = run(dir.path(), &[]);
    let (_, lod) = run(dir.path(), &LOD);
    let ids = lod.ids();
    assert_eq!(ids.len(), 6, "six spiders ran");
    let x_of = |id: u64| lod.of(id)[0].pos.unwrap()[0];
    let (near, far): (Vec<u64>, Vec<u64>) = ids.iter().partition(|id| x_of(**id).abs() < 10.0);
    assert_eq!((near.len(), far.len()), (2, 4));

    // Near the focus: every record as at full detail, and the quality bars.
    for id in &near {
        let (a, b) = (full.of(*id), lod.of(*id));
        assert_eq!(a.len(), b.len());
        for (ra, rb) in a.iter().zip(&b) {
            assert!(
                same_motion(ra, rb),
                "near spider {id} differs from full detail at frame {}",
                ra.frame
            );
        }
        assert!(arrival(&lod, *id).is_some(), "near spider {id} arrives");
    }
    assert_walks_well(
        "near the focus",
        &only(&lod, &near),
        &[("spider/spider", 3)],
    );

    // Far: the body moves on one tick in three while it walks, and it still gets there in
    // about the same time, feet on the ground.
    for id in &far {
        let recs = lod.of(*id);
        let end = arrival(&lod, *id).unwrap_or_else(|| panic!("far spider {id} arrives"));
        let twin = arrival(&full, *id).expect("arrives at full detail");
        assert!(
            (end as f64 - twin as f64).abs() <= 0.1 * twin as f64 + 6.0,
            "far spider {id} arrived at frame {end}, at full detail {twin}"
        );
        let walking: Vec<&&Rec> = recs
            .iter()
            .filter(|r| r.frame > 30 && r.frame < end)
            .collect();
        let moved = walking.windows(2).filter(|w| w[0].pos != w[1].pos).count();
        let share = moved as f64 / (walking.len() - 1) as f64;
        assert!(
            (0.3..=0.37).contains(&share),
            "far spider {id} moved on {:.0} % of its walking ticks (one in three expected)",
            share * 100.0
        );
        eprintln!(
            "far spider {id}: moved on {:.1} % of walking ticks; arrived at frame {end} (full detail: {twin})",
            share * 100.0
        );
        let near_share = {
            let r = full.of(*id);
            let w: Vec<_> = r
                .iter()
                .filter(|r| r.frame > 30 && r.frame < twin)
                .collect();
            w.windows(2).filter(|w| w[0].pos != w[1].pos).count() as f64 / (w.len() - 1) as f64
        };
        assert!(near_share > 0.99, "at full detail it moves every tick");
    }
    let q = quality(&only(&lod, &far));
    assert_eq!(q.nan, 0, "far spiders: no missing numbers");
    assert!(
        q.max_slide <= 0.001,
        "far: a planted foot slid {:.4} m",
        q.max_slide
    );
    assert!(
        q.max_ground_error <= 0.01,
        "far: a grounded foot {:.4} m off the ground",
        q.max_ground_error
    );
    assert_eq!(q.falling_frames, 0, "far spiders never fall");
    assert!(
        q.min_grounded.get("spider/spider").copied().unwrap_or(0) >= 3,
        "far spiders keep 3 feet down"
    );
}

#[test]
fn a_run_with_level_of_detail_is_the_same_at_any_thread_count() {
    let dir = tempfile::tempdir().expect("tmp");
    let one = dir.path().join("one");
    let two = dir.path().join("two");
    std::fs::create_dir_all(&one).expect("mkdir");
    std::fs::create_dir_all(&two).expect("mkdir");
    let with = |t: &'static str| [&LOD[..], &["--threads", t]].concat();
    let (_, a) = run(&one, &with("1"));
    let (_, b) = run(&two, &with("3"));
    assert_eq!(a.recs.len(), b.recs.len());
    for (ra, rb) in a.recs.iter().zip(&b.recs) {
        assert!(
            same_motion(ra, rb),
            "creature {} differs at frame {}",
            ra.id,
            ra.frame
        );
    }
}

/// Two spiders near the focus and two far, standing; one of each pair with a plain brain,
/// one with a brain that follows the level of detail (`lod = true`). Each counts its
/// `on_update` calls and adds up their `dt`. The mod has a global of its own named
/// `buffer` (a name the host's update loop uses from the standard library): nothing changes.
const BRAINS: &str = r#"
buffer = { readf32 = function() error("the mod's own buffer") end }
world.ground { size = vec3(100, 0, 40) }
local function count(self, dt)
  local s = self.state
  s.calls = (s.calls or 0) + 1
  s.time = (s.time or 0) + dt
end
behaviour.define { name = "plain", on_update = count }
behaviour.define { name = "thin", lod = true, on_update = count }
for i, x in ipairs({ -4, 4, 30, 36 }) do
  world.spawn("spider/spider", { position = vec3(x, 0, 0),
    behaviour = (i % 2 == 0) and "thin" or "plain" })
end
"#;

/// `(calls, time)` of each of the four brains after `ticks` ticks.
fn brain_counts(detail: Option<skitter::sim::Detail>, ticks: u32) -> Vec<(f64, f64)> {
    use skitter::script::{HostOptions, ScriptHost};
    let dir = tempfile::tempdir().expect("tmp");
    let m = temp_mod(
        dir.path(),
        "brains",
        &[
            (
                "mod.toml",
                "name = \"brains\"\nversion = \"0.1.0\"\ndepends = [\"spider\"]\n",
            ),
            ("main.lua", BRAINS),
        ],
    );
    let mut host = ScriptHost::new(HostOptions {
        detail,
        ..HostOptions::default()
    });
    host.load(&[bundled("spider"), m]);
    assert!(host.take_errors().is_empty());
    for _ in 0..ticks {
        host.tick();
    }
    assert!(host.take_errors().is_empty());
    (1..=4)
        .map(|i| {
            let id = skitter::sim::CreatureId(i);
            let n = |k| host.state_number(id, k).unwrap_or(0.0);
            (n("calls"), n("time"))
        })
        .collect()
}

#[test]
fn brains_that_follow_the_level_of_detail_run_on_their_far_creatures_turns() {
    let dt = 1.0 / 60.0;
    let ticks = 300;
    let lod = brain_counts(
        Some(skitter::sim::Detail::around(glam::Vec3::ZERO, 12.0)),
        ticks,
    );
    let full = brain_counts(None, ticks);
    let elapsed = ticks as f64 * dt;
    // Without a level of detail every brain runs every tick, lod or not.
    for (calls, time) in &full {
        assert_eq!(*calls, ticks as f64, "{full:?}");
        assert!((time - elapsed).abs() < 1e-3, "{full:?}");
    }
    // With one: plain brains (near and far) and the near lod brain run every tick; the far
    // lod brain one tick in three, with three ticks' time: its timers add up the same.
    for i in [0, 1, 2] {
        assert_eq!(lod[i].0, ticks as f64, "brain {}: {lod:?}", i + 1);
        assert!(
            (lod[i].1 - elapsed).abs() < 1e-3,
            "brain {}: {lod:?}",
            i + 1
        );
    }
    let (calls, time) = lod[3];
    assert!(
        (calls - ticks as f64 / 3.0).abs() <= 1.0,
        "the far lod brain ran {calls} times in {ticks} ticks"
    );
    assert!(
        (time - elapsed).abs() <= 3.0 * dt + 1e-3,
        "the far lod brain's dt add up to {time:.3} s of {elapsed:.3}"
    );
}

#[test]
fn a_brain_whose_lod_is_not_a_boolean_is_a_load_error_naming_it() {
    use skitter::script::{HostOptions, ScriptHost};
    let dir = tempfile::tempdir().expect("tmp");
    let m = temp_mod(
        dir.path(),
        "badlod",
        &[
            ("mod.toml", "name = \"badlod\"\nversion = \"0.1.0\"\n"),
            (
                "main.lua",
                "behaviour.define { name = \"x\", lod = 3, on_update = function() end }\n",
            ),
        ],
    );
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(&[m]);
    let errors: Vec<String> = host.take_errors().iter().map(|e| e.to_string()).collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("main.lua:1")
            && errors[0].contains("'lod'")
            && errors[0].contains("boolean"),
        "{errors:?}"
    );
}
