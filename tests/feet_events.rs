//! Issue 47: `on_lift(self, foot)` when a foot leaves the ground and `on_step`'s `speed`, how
//! fast it came down — checked against the trace's own grounded flags, tick by tick.

#![allow(clippy::expect_used, clippy::unwrap_used)] // tests: a failure is a failed test

mod common;

use common::{bundled, run_trace, temp_mod, text};

#[test]
fn lifts_and_landings_reach_the_brain_on_the_tick_they_happen() {
    let dir = tempfile::tempdir().expect("tmp");
    let src = r#"
world.ground { size = vec3(30, 0, 30) }
behaviour.define {
  name = "feel",
  on_update = function(self, dt) self:move(vec3(0, 0, 1), 1.0) end,
  on_lift = function(self, foot) log.info("lift", math.floor(world.time() * 60 + 0.5), foot.name) end,
  on_step = function(self, foot) log.info("step", math.floor(world.time() * 60 + 0.5), foot.name, foot.speed) end,
}
world.spawn("spider/spider", { position = vec3(0, 0, -8), behaviour = "feel" })
"#;
    let m = temp_mod(
        dir.path(),
        "feel",
        &[
            (
                "mod.toml",
                "name = \"feel\"\nversion = \"0.1.0\"\ndepends = [\"spider\"]\n",
            ),
            ("main.lua", src),
        ],
    );
    let tdir = tempfile::tempdir().expect("tmp");
    let (out, t) = run_trace(tdir.path(), 240, &[bundled("spider"), m], &[]);
    let log = text(&out);
    assert!(out.status.success() && t.errors().is_empty(), "{log}");
    // Each logged event: (kind, frame, leg, speed).
    let events: Vec<(String, u64, String, f64)> = log
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("[feel] ")?;
            let mut w = rest.split_whitespace();
            let kind = w.next()?.to_string();
            let frame = w.next()?.parse().ok()?;
            let leg = w.next()?.to_string();
            let speed = w.next().map_or(0.0, |s| s.parse().unwrap_or(f64::NAN));
            Some((kind, frame, leg, speed))
        })
        .collect();
    let lifts = events.iter().filter(|e| e.0 == "lift").count();
    let steps = events.iter().filter(|e| e.0 == "step").count();
    assert!(
        lifts > 40 && steps > 40,
        "{lifts} lifts, {steps} steps:\n{log}"
    );
    // Against the trace: a lift at frame F is a foot grounded at F-1 and not at F; a step,
    // the other way round; every landing comes down at some speed.
    let recs: Vec<_> = t.recs.iter().filter(|r| r.id == 1).collect();
    let at = |f: u64| recs.iter().find(|r| r.frame == f).expect("a line a frame");
    for (kind, f, leg, speed) in &events {
        let k = at(*f).feet.iter().position(|x| &x.leg == leg).expect("leg");
        let (before, now) = (at(f - 1).feet[k].grounded, at(*f).feet[k].grounded);
        match kind.as_str() {
            "lift" => assert!(before && !now, "frame {f}: {leg} lifted? {before} → {now}"),
            _ => {
                assert!(!before && now, "frame {f}: {leg} landed? {before} → {now}");
                assert!(
                    speed.is_finite() && *speed > 0.05,
                    "frame {f}: {leg} came down at {speed}"
                );
            }
        }
    }
    // Every change of a foot's grounded flag in the trace was told.
    let told = |kind: &str, f: u64, leg: &str| {
        events.iter().any(|e| e.0 == kind && e.1 == f && e.2 == leg)
    };
    for w in recs.windows(2).filter(|w| w[0].frame >= 1) {
        for (a, b) in w[0].feet.iter().zip(&w[1].feet) {
            if a.grounded && !b.grounded {
                assert!(
                    told("lift", w[1].frame, &b.leg),
                    "frame {}: {} lifted untold",
                    w[1].frame,
                    b.leg
                );
            }
            if !a.grounded && b.grounded {
                assert!(
                    told("step", w[1].frame, &b.leg),
                    "frame {}: {} landed untold",
                    w[1].frame,
                    b.leg
                );
            }
        }
    }
}

/// `on_step`'s foot says what it landed on: the level piece's `name` and `surface`
/// (`world.ground`, `world.box`, `world.stairs` take both), nil where a piece has none.
#[test]
fn a_landing_foot_says_which_piece_and_surface_it_landed_on() {
    let dir = tempfile::tempdir().expect("tmp");
    let src = r#"
world.ground { size = vec3(30, 0, 30), name = "field", surface = "grass" }
world.box { position = vec3(6, 0.1, 0), size = vec3(4, 0.2, 12), name = "deck", surface = "wood" }
world.box { position = vec3(-6, 0.1, 0), size = vec3(4, 0.2, 12) }
world.stairs { position = vec3(0, 0, -2), steps = 3, width = 3, surface = "stone" }
behaviour.define {
  name = "feel",
  on_update = function(self, dt) self:move(vec3(0, 0, 1), 0.6) end,
  on_step = function(self, foot)
    log.info("on", self.id, tostring(foot.piece), tostring(foot.surface))
  end,
}
world.spawn("spider/spider", { position = vec3(0, 0, -6), behaviour = "feel" })
world.spawn("spider/spider", { position = vec3(6, 0.2, -5), behaviour = "feel" })
world.spawn("spider/spider", { position = vec3(-6, 0.2, -5), behaviour = "feel" })
local ok, err = pcall(world.box, { position = vec3(0, 0, 0), size = vec3(1, 1, 1), surface = "" })
log.info("bad", err)
"#;
    let m = temp_mod(
        dir.path(),
        "feel",
        &[
            (
                "mod.toml",
                "name = \"feel\"\nversion = \"0.1.0\"\ndepends = [\"spider\"]\n",
            ),
            ("main.lua", src),
        ],
    );
    let tdir = tempfile::tempdir().expect("tmp");
    let (out, t) = run_trace(tdir.path(), 600, &[bundled("spider"), m], &[]);
    let log = text(&out);
    assert!(out.status.success(), "{log}");
    let seen = |id: u64| -> std::collections::BTreeSet<String> {
        log.lines()
            .filter_map(|l| l.strip_prefix(&format!("[feel] on\t{id}\t")))
            .map(String::from)
            .collect()
    };
    // The first walks the field onto the stone stairs; the second the wooden deck; the
    // third a box with neither.
    let first = seen(1);
    assert!(first.contains("field\tgrass"), "{first:?}\n{log}");
    assert!(first.contains("nil\tstone"), "{first:?}");
    assert_eq!(
        seen(2).into_iter().collect::<Vec<_>>(),
        ["deck\twood"],
        "{log}"
    );
    assert_eq!(
        seen(3).into_iter().collect::<Vec<_>>(),
        ["nil\tnil"],
        "{log}"
    );
    assert!(
        log.contains("field 'surface' must be 1 to 64 characters, got 0"),
        "{log}"
    );
    assert_eq!(t.ids().len(), 3);
}
