//! Mod tooling from the command line: `skitter new` scaffolds a mod that checks clean and
//! runs; `skitter check` reports every error in every mod, not just the first.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test set-up: a failure is a failed test

mod common;
use common::*;

#[test]
fn a_new_mod_checks_clean_and_runs() {
    let dir = tempfile::tempdir().expect("tmp");
    let m = dir.path().join("bugs");
    let ms = m.display().to_string();
    let out = skitter(&["new", &ms]);
    assert!(out.status.success(), "{}", text(&out));
    // Every command it prints that ends (all but the window's) runs as printed, and ends.
    let printed = text(&out);
    let commands: Vec<Vec<String>> = printed
        .lines()
        .filter_map(|l| l.trim().strip_prefix("skitter "))
        .map(|l| {
            l.split('#')
                .next()
                .unwrap_or("")
                .split_whitespace()
                .map(String::from)
                .collect()
        })
        .collect();
    assert_eq!(commands.len(), 3, "{printed}");
    let mut ran = 0;
    for c in commands
        .iter()
        .filter(|c| c[0] == "check" || c.contains(&"--headless".to_string()))
    {
        let args: Vec<&str> = c.iter().map(String::as_str).collect();
        let o = skitter(&args);
        assert!(o.status.success(), "skitter {args:?}: {}", text(&o));
        ran += 1;
    }
    assert_eq!(ran, 2, "a check and a headless run that ends: {printed}");
    for f in [
        "mod.toml",
        "main.lua",
        "brains/roam.lua",
        "defs/skitter.d.luau",
        "defs/skitter.lua",
        ".luarc.json",
        ".vscode/settings.json",
    ] {
        assert!(m.join(f).is_file(), "{f} missing");
    }
    let out = skitter(&["check", &ms]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("ok: 1 mod(s) (bugs), 1 creature type(s), 3 creature(s)"),
        "{}",
        text(&out)
    );
    let (out, t) = run_trace(dir.path(), 300, std::slice::from_ref(&m), &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(t.errors().is_empty(), "{:?}", t.errors());
    let q = assert_walks_well("new mod", &t, &[("bugs/critter", 3)]);
    assert!(
        q.displacement.values().all(|d| *d > 0.5),
        "{:?}",
        q.displacement
    );
    // Never over an existing folder; never with a name a mod cannot have.
    assert!(!skitter(&["new", &ms]).status.success());
    let bad = skitter(&["new", &dir.path().join("Bad Name").display().to_string()]);
    assert!(
        !bad.status.success() && text(&bad).contains("cannot name a mod"),
        "{}",
        text(&bad)
    );
}

#[test]
fn check_reports_every_error_in_every_mod() {
    let dir = tempfile::tempdir().expect("tmp");
    let a = temp_mod(
        dir.path(),
        "a",
        &[
            (
                "main.lua",
                "creature.define { name = 'x', legs = {}, body = { height = -1 } }\ncreature.define { name = 'y', legs = {}, gait = { step_height = 0 } }\nworld.box { position = vec3(0, 0, 0), size = vec3(1, -1, 1) }\nbehaviour.define { name = 'ok' }\n",
            ),
            ("brains/broken.lua", "local x = = 1\n"),
            ("mod.toml", "name = \"a\"\nversion = \"0.1.0\"\n"),
        ],
    );
    let b = temp_mod(
        dir.path(),
        "b",
        &[
            ("main.lua", "log.info('b')\n"),
            (
                "mod.toml",
                "name = \"b\"\nversion = \"0.1.0\"\ndepends = [\"missing >= 1\"]\n",
            ),
        ],
    );
    let c = temp_mod(
        dir.path(),
        "c",
        &[
            ("main.lua", "local = 1\n"),
            ("mod.toml", "name = \"c\"\nversion = \"0.1.0\"\n"),
        ],
    );
    let out = skitter(&[
        "check",
        &a.display().to_string(),
        &b.display().to_string(),
        &c.display().to_string(),
    ]);
    let log = text(&out);
    assert_eq!(out.status.code(), Some(1), "{log}");
    for needle in [
        "a/main.lua:1: creature.define: field 'body.height' must be > 0",
        "a/main.lua:2: creature.define: field 'gait.step_height' must be > 0",
        // Every bad field of a define: with no legs, each needs a hover too.
        "a/main.lua:1: creature.define: field 'body.hover' is required",
        "a/main.lua:2: creature.define: field 'body.hover' is required",
        "a/main.lua:3: world.box: field 'size' must have every component > 0",
        "a/brains/broken.lua:1:",
        "missing",
        "c/main.lua:1:",
        "8 error(s)",
    ] {
        assert!(log.contains(needle), "missing {needle:?} in\n{log}");
    }
}

#[test]
fn run_options_that_would_do_nothing_are_refused() {
    for (args, needle) in [
        (&["run", "--trace", "x.jsonl"][..], "--headless"),
        // Issue 45: unbounded and unpaced, a trace wrote 210 MB in 5 s.
        (
            &["run", "--headless", "--trace", "x.jsonl"][..],
            "--trace needs --frames N (or --realtime",
        ),
        (&["run", "--realtime"][..], "--headless"),
        (&["run", "--bench-frames"][..], "--screenshot"),
        (
            &["run", "--screenshot", "x.png", "--headless"][..],
            "cannot be used with",
        ),
    ] {
        let out = skitter(args);
        assert!(!out.status.success(), "{args:?} ran");
        assert!(text(&out).contains(needle), "{args:?}: {}", text(&out));
    }
}

/// Issue 45: the arena's rocks (placed by its script with vertical `world.raycast`s, which
/// slipped between the noise ground's triangles at whole-metre points and left 3 of 5 at
/// y = 0) sit on the ground: each sunk to its middle where the ground is (centre within
/// 2 cm of the ground under it), no corner of its bottom face more than 2 cm over the
/// ground under that corner.
#[test]
fn the_arenas_rocks_sit_on_the_ground_under_them() {
    let (host, errors) =
        skitter::headless::check(&[bundled("arena")], skitter::script::HostOptions::default());
    assert!(errors.is_empty(), "{errors:?}");
    let w = host.world();
    let sizes = [
        glam::Vec3::new(1.2, 0.5, 0.9),
        glam::Vec3::new(0.9, 0.4, 1.4),
        glam::Vec3::new(1.6, 0.6, 1.1),
        glam::Vec3::new(1.0, 0.5, 1.0),
        glam::Vec3::new(2.0, 0.4, 0.8),
    ];
    let rocks: Vec<_> = w
        .level()
        .boxes
        .iter()
        .filter(|b| sizes.contains(&b.size))
        .collect();
    assert_eq!(rocks.len(), 5);
    for r in rocks {
        let ground = w
            .ground_height(r.position.x, r.position.z)
            .expect("over the ground");
        assert!(
            (r.position.y - ground).abs() < 0.02,
            "a rock at {} over ground at {ground:.3}",
            r.position
        );
        let q = r.quat();
        for (sx, sz) in [(-1.0, -1.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 1.0)] {
            let c = r.position + q * (0.5 * r.size * glam::Vec3::new(sx, -1.0, sz));
            let g = w.ground_height(c.x, c.z).expect("over the ground");
            assert!(
                c.y - g < 0.02,
                "a rock's corner {c} floats over ground at {g:.3}"
            );
        }
    }
}
