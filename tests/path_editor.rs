//! The path editor's model (what the window's edit mode drives) and path files: edits saved
//! into the mod and read back as the same path, undo byte for byte, followers that never
//! jump, malformed files, files changed under the editor, inline paths moved into files.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test set-up: a failure is a failed test

mod common;
use common::*;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use glam::Vec3;
use skitter::editor::{EditCommand, EditError, Handle, PathEditor};
use skitter::math::{BezierPath, ControlPoint};
use skitter::script::{HostOptions, ScriptHost};

/// Hand-written (comments, its own spacing): undo must give these bytes back exactly.
const ROUTE: &str = "# the patrol route
closed = false
points = [
    { position = [-4, 0, -4] },
    { position = [0, 0, -5], handle_in = [-1.5, 0, -5], handle_out = [1.5, 0, -5] },   # the bend
    { position = [4, 0, -2] },
    { position = [3, 0, 4] },
]
";

const MAIN: &str = r#"
world.ground { size = vec3(40, 0, 40) }
creature.define { name = "drone", body = { size = vec3(0.4, 0.2, 0.6), hover = 2 }, legs = {} }
local route = path.load("route")
behaviour.define { name = "idle" }
local s = world.spawn("spider/spider", { position = route:point(0), behaviour = "idle" })
s:follow_path(route, { speed = 1.0, loop = "ping_pong" })
-- An inline path a drone flies: the editor can move it into a file.
local line = path.bezier { points = { { position = vec3(8, 2, -8) }, { position = vec3(8, 2, 8) } } }
local d = world.spawn("drone", { position = line:point(0) })
d:follow_path(line, { speed = 1.0, loop = "ping_pong" })
log.info(string.format("route %.4f", route:length()))
"#;

const KEY: &str = "route/route";

fn setup(dir: &Path) -> (PathBuf, ScriptHost) {
    let m = temp_mod(
        dir,
        "route",
        &[
            (
                "mod.toml",
                "name = \"route\"\nversion = \"0.1.0\"\ndepends = [\"spider\"]\n",
            ),
            ("main.lua", MAIN),
            ("paths/route.toml", ROUTE),
        ],
    );
    let mut host = ScriptHost::new(HostOptions {
        threads: 1,
        ..HostOptions::default()
    });
    host.load(&[bundled("spider"), m.clone()]);
    let errors = host.take_errors();
    assert!(errors.is_empty(), "{errors:?}");
    host.tick(); // the follow commands take effect
    (m, host)
}

fn file(m: &Path) -> Vec<u8> {
    std::fs::read(m.join("paths/route.toml")).expect("read")
}

fn shape(host: &ScriptHost, key: &str) -> BezierPath {
    (**host.world().path(key).expect("path")).clone()
}

/// Length and `point(s)` at 10 places agree to a tenth of a millimetre.
fn assert_same_path(a: &BezierPath, b: &BezierPath) {
    assert!(
        (a.length() - b.length()).abs() < 1e-4,
        "{} vs {}",
        a.length(),
        b.length()
    );
    for k in 0..10 {
        let s = a.length() * k as f32 / 9.0;
        let (p, q) = (a.point(s), b.point(s));
        assert!(p.distance(q) < 1e-4, "at s = {s}: {p} vs {q}");
    }
}

fn original() -> Vec<ControlPoint> {
    let p = |x: f32, z: f32| ControlPoint {
        position: Vec3::new(x, 0.0, z),
        handle_in: None,
        handle_out: None,
    };
    let mut pts = vec![p(-4.0, -4.0), p(0.0, -5.0), p(4.0, -2.0), p(3.0, 4.0)];
    pts[1].handle_in = Some(Vec3::new(-1.5, 0.0, -5.0));
    pts[1].handle_out = Some(Vec3::new(1.5, 0.0, -5.0));
    pts
}

#[test]
fn moving_point_2_saves_the_same_move_and_undo_restores_the_file_byte_for_byte() {
    let dir = tempfile::tempdir().expect("tmp");
    let (m, mut host) = setup(dir.path());
    let mut ed = PathEditor::new();
    assert_same_path(
        &shape(&host, KEY),
        &BezierPath::new(&original(), false).unwrap(),
    );
    let out = ed
        .apply(
            &mut host,
            EditCommand::MovePoint {
                key: KEY.into(),
                index: 1,
                to: Vec3::new(1.0, 0.0, -5.0),
            },
        )
        .expect("moved");
    assert_eq!(out.saved, vec!["route/paths/route.toml".to_string()]);
    // The same move made in code: point 2 and its handles by (1, 0, 0).
    let mut moved = original();
    moved[1].position += Vec3::X;
    moved[1].handle_in = moved[1].handle_in.map(|h| h + Vec3::X);
    moved[1].handle_out = moved[1].handle_out.map(|h| h + Vec3::X);
    let in_code = BezierPath::new(&moved, false).unwrap();
    assert_same_path(&shape(&host, KEY), &in_code);
    // The file, read back by a fresh load, is that path.
    let saved = file(&m);
    let text = String::from_utf8(saved.clone()).unwrap();
    assert_eq!(
        text.lines().filter(|l| l.contains("position")).count(),
        4,
        "one point per line:\n{text}"
    );
    let mut fresh = ScriptHost::new(HostOptions::default());
    fresh.load(&[bundled("spider"), m.clone()]);
    assert!(fresh.take_errors().is_empty());
    assert_same_path(&shape(&fresh, KEY), &in_code);
    // The watcher's event for the editor's own write changes nothing.
    assert_eq!(host.reload_path(KEY), Ok(false));
    // Undo: the hand-written file comes back byte for byte, and the shape with it.
    ed.apply(&mut host, EditCommand::Undo).expect("undo");
    assert_eq!(file(&m), ROUTE.as_bytes());
    assert_same_path(
        &shape(&host, KEY),
        &BezierPath::new(&original(), false).unwrap(),
    );
    ed.apply(&mut host, EditCommand::Redo).expect("redo");
    assert_eq!(file(&m), saved);
    assert!(matches!(
        ed.apply(&mut host, EditCommand::Redo),
        Err(EditError::Nothing(_))
    ));
}

#[test]
fn add_remove_toggle_and_handles_round_trip_through_the_file() {
    let dir = tempfile::tempdir().expect("tmp");
    let (m, mut host) = setup(dir.path());
    let mut ed = PathEditor::new();
    let before = shape(&host, KEY);
    let reread = |m: &Path| {
        let mut h = ScriptHost::new(HostOptions::default());
        h.load(&[bundled("spider"), m.to_path_buf()]);
        assert!(h.take_errors().is_empty());
        shape(&h, KEY)
    };
    // Add after point 1: the segment is split, the shape kept (to the millimetre).
    ed.apply(
        &mut host,
        EditCommand::AddPoint {
            key: KEY.into(),
            after: Some(0),
        },
    )
    .unwrap();
    let added = shape(&host, KEY);
    assert_eq!(added.points().len(), 5);
    for k in 0..=20 {
        let s = before.length() * k as f32 / 20.0;
        let p = before.point(s);
        let q = added.point(added.closest(p));
        assert!(
            p.distance(q) < 2e-3,
            "shape moved by {} at {p}",
            p.distance(q)
        );
    }
    assert_same_path(&reread(&m), &added);
    // Add at the end: past the last point, along its direction.
    ed.apply(
        &mut host,
        EditCommand::AddPoint {
            key: KEY.into(),
            after: None,
        },
    )
    .unwrap();
    let longer = shape(&host, KEY);
    assert_eq!(longer.points().len(), 6);
    assert!(longer.length() > added.length() + 1.0);
    // Remove, toggle closed, a mirrored handle, a broken one: each read back from the file.
    ed.apply(
        &mut host,
        EditCommand::RemovePoint {
            key: KEY.into(),
            index: 1,
        },
    )
    .unwrap();
    assert_eq!(shape(&host, KEY).points().len(), 5);
    ed.apply(&mut host, EditCommand::ToggleClosed { key: KEY.into() })
        .unwrap();
    let closed = reread(&m);
    assert!(closed.closed());
    assert_same_path(&closed, &shape(&host, KEY));
    ed.apply(
        &mut host,
        EditCommand::MoveHandle {
            key: KEY.into(),
            index: 2,
            which: Handle::Out,
            to: Vec3::new(2.0, 0.0, -6.0),
            mirror: true,
        },
    )
    .unwrap();
    let p = shape(&host, KEY);
    let cp = p.points()[2];
    let (i, o) = (cp.handle_in.unwrap(), cp.handle_out.unwrap());
    assert!((o - Vec3::new(2.0, 0.0, -6.0)).length() < 1e-6);
    assert!(((i + o) * 0.5 - cp.position).length() < 1e-3, "mirrored");
    ed.apply(
        &mut host,
        EditCommand::MoveHandle {
            key: KEY.into(),
            index: 2,
            which: Handle::In,
            to: cp.position + Vec3::new(0.0, 0.0, -1.0),
            mirror: false,
        },
    )
    .unwrap();
    let q = shape(&host, KEY).points()[2];
    assert_eq!(
        q.handle_out,
        Some(o),
        "a broken tangent leaves the other handle"
    );
    assert_same_path(&reread(&m), &shape(&host, KEY));
    // Never below 2 points.
    let mut n = shape(&host, KEY).points().len();
    while n > 2 {
        ed.apply(
            &mut host,
            EditCommand::RemovePoint {
                key: KEY.into(),
                index: 0,
            },
        )
        .unwrap();
        n -= 1;
    }
    let e = ed
        .apply(
            &mut host,
            EditCommand::RemovePoint {
                key: KEY.into(),
                index: 0,
            },
        )
        .unwrap_err();
    assert!(e.to_string().contains("at least 2"), "{e}");
    // Undo everything: the hand-written file again, byte for byte.
    while ed.history().0 > 0 {
        ed.apply(&mut host, EditCommand::Undo).unwrap();
    }
    assert_eq!(file(&m), ROUTE.as_bytes());
    assert_same_path(&shape(&host, KEY), &before);
}

/// Horizontal distance the spider moved per tick over `n` ticks.
fn steps(host: &mut ScriptHost, id: skitter::sim::CreatureId, n: usize) -> Vec<f32> {
    let mut out = Vec::new();
    let at = |h: &ScriptHost| {
        let p = h.world().creature(id).unwrap().loco.position;
        Vec3::new(p.x, 0.0, p.z)
    };
    let mut prev = at(host);
    for _ in 0..n {
        host.tick();
        let now = at(host);
        out.push(now.distance(prev));
        prev = now;
    }
    out
}

fn follower(host: &ScriptHost, id: skitter::sim::CreatureId) -> skitter::path::PathFollower {
    host.world()
        .creature(id)
        .unwrap()
        .loco
        .follow
        .clone()
        .unwrap()
}

fn spider(host: &ScriptHost) -> skitter::sim::CreatureId {
    host.world()
        .creatures()
        .iter()
        .find(|c| !c.def.legs.is_empty())
        .unwrap()
        .id
}

#[test]
fn followers_keep_moving_without_a_jump_across_a_saved_file_and_an_edit() {
    let dir = tempfile::tempdir().expect("tmp");
    let (m, mut host) = setup(dir.path());
    let id = spider(&host);
    let mut ed = PathEditor::new();
    let travel = 1.0 / 60.0; // 1 m/s
    let before = steps(&mut host, id, 240);
    assert!(
        before[60..].iter().all(|d| *d <= travel * 1.05),
        "{before:?}"
    );
    // Saved by hand (another editor): the point nearest the spider moves 1 m.
    let hand = ROUTE.replace(
        "{ position = [0, 0, -5], handle_in = [-1.5, 0, -5], handle_out = [1.5, 0, -5] }",
        "{ position = [0, 0, -4], handle_in = [-1.5, 0, -4], handle_out = [1.5, 0, -4] }",
    );
    std::fs::write(m.join("paths/route.toml"), &hand).unwrap();
    let changed = BTreeMap::from([("route".to_string(), vec![PathBuf::from("paths/route.toml")])]);
    let reports = host.reload(&changed);
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert!(reports[0].ok, "{reports:?}");
    assert_eq!(reports[0].files, vec!["paths/route.toml".to_string()]);
    let after = steps(&mut host, id, 300);
    let worst = after.iter().cloned().fold(0.0f32, f32::max);
    assert!(
        worst <= travel * 2.0,
        "jumped {worst:.4} m in a tick (one tick of travel: {travel:.4})"
    );
    // It is on the new path once the offset has eased out.
    let on = |host: &ScriptHost| {
        let c = host.world().creature(id).unwrap().loco.position;
        let f = follower(host, id);
        let flat = Vec3::new(c.x, 0.0, c.z);
        flat.distance(f.path.point(f.path.closest(flat)))
    };
    assert!(on(&host) < 0.01, "off the new path by {}", on(&host));
    assert_same_path(&follower(&host, id).path, &shape(&host, KEY).flattened(0.0));
    // An edit under the spider's feet while it walks: the same, never a jump.
    let near = follower(&host, id);
    let s = near.s / near.path.length();
    let idx = ((s * 3.0).round() as usize).min(3);
    let p = shape(&host, KEY).points()[idx].position;
    ed.apply(&mut host, EditCommand::BeginDrag { key: KEY.into() })
        .unwrap();
    let mut worst = 0.0f32;
    for k in 1..=30 {
        ed.apply(
            &mut host,
            EditCommand::MovePoint {
                key: KEY.into(),
                index: idx,
                to: p + Vec3::new(0.05 * k as f32, 0.0, 0.0),
            },
        )
        .unwrap();
        worst = worst.max(steps(&mut host, id, 1)[0]);
    }
    let saved = ed.apply(&mut host, EditCommand::EndDrag).unwrap().saved;
    assert_eq!(saved.len(), 1, "saved once, on release");
    worst = steps(&mut host, id, 120).into_iter().fold(worst, f32::max);
    assert!(worst <= travel * 2.0, "jumped {worst:.4} m while dragged");
    assert_eq!(ed.history().0, 1, "the drag is one undo step");
}

#[test]
fn a_malformed_file_is_an_error_with_its_line_and_the_last_good_path_stays() {
    let dir = tempfile::tempdir().expect("tmp");
    let (m, mut host) = setup(dir.path());
    let good = shape(&host, KEY);
    let bad = ROUTE.replace("{ position = [4, 0, -2] }", "{ position = [4, 0] }");
    std::fs::write(m.join("paths/route.toml"), &bad).unwrap();
    let changed = BTreeMap::from([("route".to_string(), vec![PathBuf::from("paths/route.toml")])]);
    let r = host.reload(&changed);
    assert_eq!(r.len(), 1);
    assert!(!r[0].ok);
    let e = r[0].error.clone().unwrap();
    assert_eq!(
        e.location.as_deref(),
        Some("route/paths/route.toml:6"),
        "{e}"
    );
    assert!(
        e.message.contains("'points[3].position' must be 3 numbers"),
        "{e}"
    );
    assert!(host.take_errors().contains(&e));
    assert_eq!(shape(&host, KEY), good, "last good path kept");
    for _ in 0..30 {
        host.tick();
    }
    assert!(
        host.loaded_mods().contains(&"route".to_string()),
        "the mod runs on"
    );
    // At load: the error names the path file's line, and where path.load was called.
    let mut fresh = ScriptHost::new(HostOptions::default());
    fresh.load(&[bundled("spider"), m.clone()]);
    let errs = fresh.take_errors();
    let e = errs
        .iter()
        .find(|e| e.mod_name == "route")
        .expect("route fails to load");
    assert_eq!(
        e.location.as_deref(),
        Some("route/paths/route.toml:6"),
        "{e}"
    );
    assert!(e.message.contains("path.load at route/main.lua:4"), "{e}");
    // Fixing the file loads the mod that it stopped.
    std::fs::write(m.join("paths/route.toml"), ROUTE).unwrap();
    let r = fresh.reload(&changed);
    assert!(r.iter().any(|r| r.mod_name == "route" && r.ok), "{r:?}");
    assert!(fresh.loaded_mods().contains(&"route".to_string()));
    // A fixed save goes in.
    std::fs::write(
        m.join("paths/route.toml"),
        ROUTE.replace("[4, 0, -2]", "[5, 0, -2]"),
    )
    .unwrap();
    let r = host.reload(&changed);
    assert!(r[0].ok, "{r:?}");
    assert_eq!(
        shape(&host, KEY).points()[2].position,
        Vec3::new(5.0, 0.0, -2.0)
    );
}

#[test]
fn a_file_changed_on_disk_under_the_editor_is_reloaded_not_overwritten() {
    let dir = tempfile::tempdir().expect("tmp");
    let (m, mut host) = setup(dir.path());
    let mut ed = PathEditor::new();
    let theirs = ROUTE.replace("[3, 0, 4]", "[2, 0, 6]");
    std::fs::write(m.join("paths/route.toml"), &theirs).unwrap();
    // The watcher has not reported it yet; the editor must not write over it.
    let out = ed
        .apply(
            &mut host,
            EditCommand::MovePoint {
                key: KEY.into(),
                index: 0,
                to: Vec3::new(-6.0, 0.0, -4.0),
            },
        )
        .unwrap();
    assert!(out.saved.is_empty(), "{out:?}");
    assert!(
        out.notes.iter().any(|n| n.contains("changed on disk")),
        "{out:?}"
    );
    assert_eq!(file(&m), theirs.as_bytes(), "not overwritten");
    let now = shape(&host, KEY);
    assert_eq!(
        now.points()[3].position,
        Vec3::new(2.0, 0.0, 6.0),
        "reloaded"
    );
    assert_eq!(
        now.points()[0].position,
        Vec3::new(-4.0, 0.0, -4.0),
        "the edit was not kept"
    );
    assert_eq!(ed.history(), (0, 0));
    // From here on edits save again.
    let out = ed
        .apply(&mut host, EditCommand::ToggleClosed { key: KEY.into() })
        .unwrap();
    assert_eq!(out.saved.len(), 1);
}

#[test]
fn an_inline_path_moves_into_a_file_and_writes_stay_inside_paths() {
    let dir = tempfile::tempdir().expect("tmp");
    let (m, mut host) = setup(dir.path());
    let mut ed = PathEditor::new();
    let source = "route/main.lua:9";
    let e = ed
        .apply(&mut host, EditCommand::BeginDrag { key: source.into() })
        .unwrap_err();
    assert!(matches!(e, EditError::Inline { .. }), "{e}");
    for bad in ["../evil", "a/b", "", "x.y"] {
        let e = ed
            .apply(
                &mut host,
                EditCommand::Extract {
                    source: source.into(),
                    name: bad.into(),
                },
            )
            .unwrap_err();
        assert!(e.to_string().contains("not a path name"), "{e}");
    }
    assert!(!dir.path().join("evil.toml").exists());
    let e = ed
        .apply(
            &mut host,
            EditCommand::Extract {
                source: source.into(),
                name: "route".into(),
            },
        )
        .unwrap_err();
    assert!(e.to_string().contains("already exists"), "{e}");
    let out = ed
        .apply(
            &mut host,
            EditCommand::Extract {
                source: source.into(),
                name: "line".into(),
            },
        )
        .unwrap();
    assert_eq!(out.saved, vec!["route/paths/line.toml".to_string()]);
    assert!(
        out.notes
            .iter()
            .any(|n| n.contains("path.load(\"line\")") && n.contains(source)),
        "{out:?}"
    );
    assert!(m.join("paths/line.toml").is_file());
    std::fs::read_to_string(m.join("main.lua"))
        .map(|s| assert_eq!(s, MAIN, "the script is never rewritten"))
        .unwrap();
    // The drone now follows the file: an edit moves its path.
    ed.apply(
        &mut host,
        EditCommand::MovePoint {
            key: "route/line".into(),
            index: 1,
            to: Vec3::new(10.0, 2.0, 8.0),
        },
    )
    .unwrap();
    let drone = host
        .world()
        .creatures()
        .iter()
        .find(|c| c.def.legs.is_empty())
        .unwrap()
        .loco
        .follow
        .clone()
        .unwrap();
    assert_eq!(drone.source.as_deref(), Some("route/line"));
    assert_eq!(drone.path.points()[1].position, Vec3::new(10.0, 2.0, 8.0));
    // Scripts have no way to write files.
    let probe = temp_mod(
        dir.path(),
        "probe",
        &[
            ("mod.toml", "name = \"probe\"\nversion = \"0.1.0\"\n"),
            (
                "main.lua",
                "local a = pcall(function() return io.open end)\nlocal b = pcall(function() return os.remove end)\nlog.info(tostring(a) .. ' ' .. tostring(b) .. ' ' .. tostring(path.save))",
            ),
        ],
    );
    let mut h = ScriptHost::new(HostOptions::default());
    h.load(&[probe]);
    let logs: Vec<String> = h.take_logs().into_iter().map(|l| l.text).collect();
    // io.open and os.remove are errors (the sandbox has none), path.save is absent.
    assert_eq!(logs, vec!["false false nil".to_string()], "{logs:?}");
}
