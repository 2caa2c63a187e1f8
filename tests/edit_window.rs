//! The path editor in a real window under Xvfb: `skitter run --edit-paths` opens in edit
//! mode and says where each path point is drawn; xdotool presses on point 2, drags it and
//! releases; the mod's `paths/route.toml` changes (that point only). Under `CI=true` a missing
//! Xvfb, xdotool or adapter fails the test; elsewhere it skips with a loud message.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test set-up: a failure is a failed test

mod common;
use common::*;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

fn have(tool: &str, arg: &str) -> bool {
    Command::new(tool)
        .arg(arg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

const ROUTE: &str = "closed = false
points = [
  { position = [-6.000, 0.000, -2.000] },
  { position = [0.000, 0.000, -4.000] },
  { position = [6.000, 0.000, -2.000] },
]
";

/// Waits for a stdout line containing `what` (the lines so far go into `seen`).
fn wait_for(
    rx: &mpsc::Receiver<String>,
    seen: &mut Vec<String>,
    what: &str,
    limit: Duration,
) -> Option<String> {
    let start = Instant::now();
    while start.elapsed() < limit {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(l) => {
                seen.push(l.clone());
                if l.contains(what) {
                    return Some(l);
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return None,
        }
    }
    None
}

fn xdotool(display: &str, args: &[&str]) -> String {
    let o = Command::new("xdotool")
        .args(args)
        .env("DISPLAY", display)
        .output()
        .expect("xdotool runs");
    assert!(o.status.success(), "xdotool {args:?}: {}", text(&o));
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

#[test]
fn dragging_a_path_point_in_a_real_window_saves_the_file() {
    if !have("Xvfb", "-help") || !have("xdotool", "version") {
        assert!(!ci(), "CI=true but Xvfb or xdotool is not installed");
        eprintln!("\n!!!!! SKIPPED: Xvfb or xdotool is not installed (apt-get install xvfb xdotool) !!!!!\n");
        return;
    }
    let dir = tempfile::tempdir().expect("tmp");
    let m = temp_mod(
        dir.path(),
        "route",
        &[
            ("mod.toml", "name = \"route\"\nversion = \"0.1.0\"\n"),
            (
                "main.lua",
                "world.ground { size = vec3(30, 0, 30) }\nlocal r = path.load(\"route\")\nlog.info(string.format(\"route %.3f\", r:length()))\n",
            ),
            ("paths/route.toml", ROUTE),
        ],
    );
    let display = format!(":{}", 250 + std::process::id() % 100);
    let mut xvfb = Command::new("Xvfb")
        .args([
            display.as_str(),
            "-screen",
            "0",
            "1280x800x24",
            "-nolisten",
            "tcp",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("Xvfb starts");
    std::thread::sleep(Duration::from_millis(800));
    let mut child = Command::new(env!("CARGO_BIN_EXE_skitter"))
        .args([
            "run",
            "--frames",
            "100000",
            "--edit-paths",
            &m.display().to_string(),
        ])
        .env("DISPLAY", &display)
        .env_remove("WAYLAND_DISPLAY")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let (tx, rx) = mpsc::channel();
    for pipe in [
        Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
        Box::new(child.stderr.take().unwrap()),
    ] {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for l in BufReader::new(pipe).lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
    }
    drop(tx);
    let mut seen = Vec::new();
    let finish = |child: &mut std::process::Child, xvfb: &mut std::process::Child| {
        let _ = child.kill();
        let _ = child.wait();
        let _ = xvfb.kill();
        let _ = xvfb.wait();
    };
    let line = wait_for(
        &rx,
        &mut seen,
        "[edit] gizmo route/route point 1 at",
        Duration::from_secs(120),
    );
    let Some(line) = line else {
        finish(&mut child, &mut xvfb);
        let all = seen.join("\n");
        if all.contains("no GPU adapter") {
            assert!(!ci(), "CI=true but no GPU adapter for the window:\n{all}");
            eprintln!("\n!!!!! SKIPPED: no GPU adapter for the window !!!!!\n{all}");
            return;
        }
        panic!("the window never showed the path's gizmos:\n{all}");
    };
    let at = line.rsplit(' ').next().unwrap();
    let (x, y) = at.split_once(',').unwrap();
    let (x, y): (i32, i32) = (x.parse().unwrap(), y.parse().unwrap());
    let win = xdotool(&display, &["search", "--sync", "--name", "^skitter$"]);
    let win = win.lines().next().unwrap().to_string();
    let (xs, ys) = (x.to_string(), y.to_string());
    xdotool(&display, &["mousemove", "--window", &win, &xs, &ys]);
    std::thread::sleep(Duration::from_millis(300));
    xdotool(&display, &["mousedown", "1"]);
    for k in 1..=8 {
        std::thread::sleep(Duration::from_millis(60));
        let nx = (x + 10 * k).to_string();
        let ny = (y + 6 * k).to_string();
        xdotool(&display, &["mousemove", "--window", &win, &nx, &ny]);
    }
    std::thread::sleep(Duration::from_millis(300));
    xdotool(&display, &["mouseup", "1"]);
    let saved = wait_for(
        &rx,
        &mut seen,
        "[edit] saved route/paths/route.toml",
        Duration::from_secs(60),
    );
    // Let the watcher see the editor's own write (it must change nothing, and say no error).
    std::thread::sleep(Duration::from_millis(500));
    finish(&mut child, &mut xvfb);
    while let Ok(l) = rx.try_recv() {
        seen.push(l);
    }
    let all = seen.join("\n");
    assert!(saved.is_some(), "no save after the drag:\n{all}");
    assert!(!all.contains("panicked"), "{all}");
    assert!(
        !all.contains("changed on disk")
            && !all.contains("did not reload")
            && !all.contains("route/paths/route.toml:"),
        "{all}"
    );
    let after = std::fs::read_to_string(m.join("paths/route.toml")).unwrap();
    let points = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| l.contains("position"))
            .map(|l| l.trim().to_string())
            .collect()
    };
    let (old, new) = (points(ROUTE), points(&after));
    assert_eq!(old.len(), new.len(), "{after}");
    let moved: Vec<usize> = (0..old.len()).filter(|i| old[*i] != new[*i]).collect();
    assert_eq!(
        moved,
        vec![1],
        "only point 2 moves (its line only):\n{after}"
    );
    assert!(
        new[1].starts_with("{ position = [") && new[1].contains(", 0.000, "),
        "a horizontal drag keeps the height:\n{after}"
    );
}
