//! The console (issue 48, item 1): a line of Luau run in the live world, in a chosen mod's
//! state under its sandbox and budget, results pretty-printed, a failed line undone,
//! completion and history, and a session with console lines replaying identically.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use skitter::script::console::{Console, ConsoleKind, ConsoleLine};
use skitter::script::{HostOptions, ScriptHost};

fn host() -> ScriptHost {
    let mut h = ScriptHost::new(HostOptions {
        threads: 1,
        ..HostOptions::default()
    });
    h.load(&[common::bundled("spider")]);
    assert!(h.take_errors().is_empty());
    h
}

/// The results (or the error) a line showed.
fn shown(lines: &[ConsoleLine]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| l.kind != ConsoleKind::Input)
        .map(|l| l.text.clone())
        .collect()
}

fn one(console: &mut Console, h: &mut ScriptHost, line: &str) -> String {
    let out = shown(&console.submit(h, line));
    assert_eq!(out.len(), 1, "{line}: {out:?}");
    out[0].clone()
}

/// Every creature's position, bit for bit.
fn positions(h: &ScriptHost) -> Vec<(u32, [u32; 3])> {
    h.world()
        .creatures()
        .iter()
        .map(|c| (c.id.0, c.loco.body_position().to_array().map(f32::to_bits)))
        .collect()
}

#[test]
fn a_spawn_a_field_read_and_a_method_call_change_the_world() {
    let mut h = host();
    let mut con = Console::new();
    assert!(h.world().creatures().is_empty());
    // A `local` at the start of a line stays for the next lines.
    let spawned = shown(&con.submit(
        &mut h,
        "local c = world.spawn(\"spider/spider\", { position = vector.create(2, 0, 1) })",
    ));
    assert!(spawned.is_empty(), "{spawned:?}");
    assert_eq!(h.world().creatures().len(), 1);
    let id = h.world().creatures()[0].id.0;
    assert_eq!(one(&mut con, &mut h, "c"), format!("spider/spider#{id}"));
    assert_eq!(one(&mut con, &mut h, "c.type"), "\"spider/spider\"");
    let x: f32 = one(&mut con, &mut h, "c:position().x")
        .parse()
        .expect("a number");
    assert!((x - 2.0).abs() < 0.05, "{x}");
    let p = one(&mut con, &mut h, "c:position()");
    assert!(p.starts_with("vector(2"), "{p}");
    // A method call: the creature is recoloured, now and in the world.
    assert!(shown(&con.submit(&mut h, "c:set_tint(vector.create(1, 0, 0))")).is_empty());
    h.tick();
    assert_eq!(
        h.world().creatures()[0].tint,
        Some(glam::Vec3::new(1.0, 0.0, 0.0))
    );
    // Tables print with their fields; the spawned creature is alive and walking.
    let t = one(
        &mut con,
        &mut h,
        "{ n = #world.creatures(), who = world.creatures()[1] }",
    );
    assert_eq!(t, format!("{{ n = 1, who = spider/spider#{id} }}"));
    for _ in 0..120 {
        h.tick();
    }
    assert!(h.take_errors().is_empty());
    assert_eq!(
        h.brain_state(h.world().creatures()[0].id)
            .map(|b| b.as_str()),
        Some("running")
    );
    // The chosen mod's state: its own globals and `require`.
    con.submit(&mut h, ":mod spider");
    assert_eq!(con.target(), Some("spider"));
    let body = one(&mut con, &mut h, "type(require(\"./body\"))");
    assert_eq!(body, "\"table\"");
}

#[test]
fn a_failing_line_is_reported_and_changes_nothing() {
    let (mut a, mut b) = (host(), host());
    let mut con = Console::new();
    for h in [&mut a, &mut b] {
        Console::new().submit(h, "world.spawn(\"spider/spider\")");
    }
    for _ in 0..30 {
        a.tick();
        b.tick();
    }
    // A spawn, a recolour and a behaviour change, then an error: all undone.
    let err = one(
        &mut con,
        &mut a,
        "world.spawn(\"spider/spider\", { position = vector.create(3, 0, 0) }); world.creatures()[1]:set_tint(vector.create(0, 1, 0)); error(\"no\")",
    );
    assert_eq!(err, "console.lua:1: no");
    assert_eq!(a.world().creatures().len(), 1);
    assert_eq!(a.world().creatures()[0].tint, None);
    // Errors name their place; a runaway line is stopped by the budget; the sandbox holds.
    assert!(one(&mut con, &mut a, "nosuch.field = 1")
        .starts_with("console.lua:1: attempt to index nil"));
    let runaway = one(&mut con, &mut a, "while true do end");
    assert!(runaway.contains("CPU budget exceeded"), "{runaway}");
    let io = one(&mut con, &mut a, "io.open(\"/etc/passwd\")");
    assert!(io.contains("the sandbox has no 'io' library"), "{io}");
    let syntax = one(&mut con, &mut a, "x = = 1");
    assert!(syntax.starts_with("console.lua:1:"), "{syntax}");
    // Nothing else changed: the two worlds go on bit for bit alike.
    for _ in 0..60 {
        a.tick();
        b.tick();
    }
    assert_eq!(positions(&a), positions(&b));
    assert!(a.take_errors().is_empty());
    // The console still works after all that.
    assert_eq!(one(&mut con, &mut a, "1 + 1"), "2");
}

#[test]
fn multi_line_entries_history_and_completion() {
    let mut h = host();
    let mut con = Console::new();
    assert!(shown(&con.submit(&mut h, "function twice(x)")).is_empty());
    assert_eq!(con.prompt(), ">> ");
    assert!(shown(&con.submit(&mut h, "  return 2 * x")).is_empty());
    assert!(shown(&con.submit(&mut h, "end")).is_empty());
    assert_eq!(con.prompt(), "> ");
    assert_eq!(one(&mut con, &mut h, "twice(21)"), "42");
    assert_eq!(
        con.history(),
        ["function twice(x)\n  return 2 * x\nend", "twice(21)"]
    );
    assert_eq!(con.history_back(), Some("twice(21)"));
    assert_eq!(
        con.history_back(),
        Some("function twice(x)\n  return 2 * x\nend")
    );
    assert_eq!(con.history_forward(), Some("twice(21)"));
    assert_eq!(con.history_forward(), None);
    // Globals, API tables, handle methods and fields complete.
    assert_eq!(con.complete(&mut h, "wor").text, "world");
    assert_eq!(con.complete(&mut h, "twi").text, "twice");
    let spawn = con.complete(&mut h, "local c = world.spa");
    assert_eq!(spawn.text, "local c = world.spawn");
    con.submit(&mut h, "local c = world.spawn(\"spider/spider\")");
    let m = con.complete(&mut h, "c:set_d");
    assert_eq!(m.text, "c:set_destination");
    let many = con.complete(&mut h, "c:ra");
    assert!(many.options.contains(&"ragdoll".to_string()), "{many:?}");
    assert!(
        many.options.contains(&"ragdoll_state".to_string()),
        "{many:?}"
    );
    assert_eq!(many.text, "c:ragdoll");
    assert_eq!(con.complete(&mut h, "c.ty").text, "c.type");
    // Directives.
    let bad = shown(&con.submit(&mut h, ":mod nosuch"));
    assert!(
        bad[0].contains("no mod \"nosuch\" is loaded (loaded: spider)"),
        "{bad:?}"
    );
}

/// Runs a headless console session with `lines` on stdin; returns stdout.
fn session(args: &[&str], lines: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_skitter"))
        .args(args)
        .current_dir(common::root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("skitter runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(lines.as_bytes())
        .expect("lines written");
    let out = common::within(common::HUNG, "the console session hung", move || {
        child.wait_with_output().expect("waits")
    });
    assert!(out.status.success(), "{}", common::text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_console_session_replays_identically() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = |n: &str| dir.path().join(n).display().to_string();
    let (rec, t1, t2) = (p("rec.jsonl"), p("live.jsonl"), p("replay.jsonl"));
    let spider = common::bundled("spider").display().to_string();
    let lines = "local c = world.spawn(\"spider/spider\", { position = vector.create(1, 0, 2) })\n\
                 c:set_tint(vector.create(0.2, 0.9, 0.3))\n\
                 c:set_destination(vector.create(4, 0, 4))\n\
                 c.type\n\
                 world.spawn(\"spider/spider\"); error(\"undone\")\n";
    let out = session(
        &[
            "run",
            "--headless",
            "--console",
            "--frames",
            "90",
            "--seed",
            "3",
            "--record",
            &rec,
            "--trace",
            &t1,
            &spider,
        ],
        lines,
    );
    assert!(out.contains("\"spider/spider\""), "{out}");
    assert!(out.contains("error: console.lua:1: undone"), "{out}");
    let replay = common::skitter(&[
        "run",
        "--headless",
        "--frames",
        "90",
        "--replay",
        &rec,
        "--trace",
        &t2,
        &spider,
    ]);
    assert!(replay.status.success(), "{}", common::text(&replay));
    let (live, again) = (
        std::fs::read_to_string(&t1).expect("live trace"),
        std::fs::read_to_string(&t2).expect("replay trace"),
    );
    // The console's creature is in both, recoloured, and the undone spawn in neither.
    let ids = common::by_id(&live);
    assert_eq!(ids.len(), 1, "one creature: the console's");
    assert!(live == again, "the replay differs from the live session");
}
