//! Hot reload end to end: files edited while `skitter run --headless --realtime` runs. The
//! trace shows each save's reload event, new values taking effect, a broken save changing
//! nothing, ids, positions and `state` surviving, spawns added and removed, and a level
//! change re-grounding the creatures.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test set-up: a failure is a failed test

mod common;
use common::*;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Highest a swinging foot rises above the ground under it, per creature, in frames [a, b).
fn step_peak(t: &Trace, id: u64, a: u64, b: u64) -> f64 {
    t.of(id)
        .iter()
        .filter(|r| r.frame >= a && r.frame < b)
        .flat_map(|r| r.feet.iter())
        .filter(|f| !f.grounded)
        .filter_map(|f| Some(f.pos?[1] - f.ground?[1]))
        .fold(0.0, f64::max)
}

#[test]
fn edits_while_running_take_effect_and_broken_saves_change_nothing() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut live = Live {
        speed: 0.6,
        step: 0.08,
        ..Live::default()
    };
    let m = live_mod(dir.path(), &live);
    let trace = dir.path().join("t.jsonl");
    // Room for five saves a second or more apart, each after the last one's reload was seen.
    let frames = 12 * 60;
    let mut child = Command::new(env!("CARGO_BIN_EXE_skitter"))
        .args([
            "run",
            "--headless",
            "--realtime",
            "--frames",
            &frames.to_string(),
        ])
        .arg("--trace")
        .arg(&trace)
        .arg(&m)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("skitter runs");
    // Its output, line by line, as it comes (the reloads it reports pace the saves).
    let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let readers: Vec<_> = [
        Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
        Box::new(child.stderr.take().unwrap()),
    ]
    .into_iter()
    .map(|pipe| {
        let lines = lines.clone();
        std::thread::spawn(move || {
            use std::io::BufRead as _;
            for l in std::io::BufReader::new(pipe).lines().map_while(Result::ok) {
                lines.lock().unwrap().push(l);
            }
        })
    })
    .collect();
    let reported = || {
        lines
            .lock()
            .unwrap()
            .iter()
            .filter(|l| {
                l.starts_with("[live] reloaded in ") || l.starts_with("[live] reload failed")
            })
            .count()
    };
    // The clock starts once the run is under way (its trace has its first lines), so a
    // slow start cannot make a save land before the folders are watched.
    let t0 = Instant::now();
    while std::fs::metadata(&trace).map(|m| m.len()).unwrap_or(0) == 0 {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "the run never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Each save a second after the last one's reload was reported (not at fixed times: a
    // loaded machine may see a save late, and two saves must not land a few ticks apart).
    let mut saves = 0;
    let mut save = |l: &Live| {
        let since = Instant::now();
        while reported() < saves {
            assert!(
                since.elapsed() < Duration::from_secs(20),
                "save {saves} was never reloaded: {:?}",
                lines.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        std::thread::sleep(Duration::from_secs(1));
        std::fs::write(m.join("main.lua"), l.source()).expect("write");
        saves += 1;
    };
    live.step = 0.25; // 1. a gait value
    save(&live);
    live.broken = true; // 2. a syntax error
    save(&live);
    live.broken = false; // 3. fixed, with a third spawn
    live.spawns = 3;
    save(&live);
    live.spawns = 2; // 4. a spawn removed
    save(&live);
    live.ground_y = 0.4; // 5. the level
    save(&live);
    let status = child.wait().expect("finished");
    for r in readers {
        r.join().expect("reader");
    }
    let log = lines.lock().unwrap().join("\n");
    let out_ok = status.success();
    assert!(out_ok, "{log}");
    let t = Trace::parse(&std::fs::read_to_string(&trace).expect("trace"));

    let reloads: Vec<(u64, bool, f64)> = t
        .events
        .iter()
        .filter(|e| e["event"] == "reload" && e["mod"] == "live")
        .map(|e| {
            (
                e["frame"].as_u64().unwrap(),
                e["ok"].as_bool().unwrap(),
                e["ms"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        reloads.iter().map(|r| r.1).collect::<Vec<_>>(),
        vec![true, false, true, true, true],
        "one reload per save: {reloads:?}\n{log}"
    );
    assert!(
        reloads.iter().all(|r| r.2 < 1000.0),
        "save-to-running times {reloads:?}"
    );
    let f: Vec<u64> = reloads.iter().map(|r| r.0).collect();
    let errors = t.errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0]["where"]
        .as_str()
        .unwrap_or("")
        .starts_with("live/main.lua:"));

    let ids = t.ids();
    let (a, b) = (ids[0], ids[1]);
    // 1. The new step height shows in the feet; 2. the broken save kept it.
    let before = step_peak(&t, a, 10, f[0]);
    let after = step_peak(&t, a, f[0] + 20, f[1]);
    let broken = step_peak(&t, a, f[1] + 1, f[2]);
    assert!(
        before < 0.12 && after > 0.2,
        "step peaks {before:.3} → {after:.3}"
    );
    assert!(
        broken > 0.2,
        "the broken save changed the gait: {broken:.3}"
    );
    // Ids and positions survive every reload: no creature jumps at a reload frame.
    for id in [a, b] {
        let recs = t.of(id);
        for w in recs.windows(2) {
            let (p, q) = (w[0].pos.unwrap(), w[1].pos.unwrap());
            let jump = ((p[0] - q[0]).powi(2) + (p[2] - q[2]).powi(2)).sqrt();
            assert!(
                jump < 0.05,
                "creature {id} jumped {jump:.3} m at frame {}",
                w[1].frame
            );
        }
        assert_eq!(
            recs.last().unwrap().frame,
            frames,
            "creature {id} lived to the end"
        );
    }
    // State survived: on_reload saw the tick count go on, never reset.
    let counts: Vec<u64> = log
        .lines()
        .filter(|l| l.contains(&format!("reloaded {a} n=")))
        .filter_map(|l| l.split("n=").nth(1)?.split(' ').next()?.parse().ok())
        .collect();
    assert_eq!(counts.len(), 4, "{log}");
    assert!(
        counts.windows(2).all(|w| w[1] > w[0] + 30) && counts[0] > 60,
        "{counts:?}"
    );
    // 3./4. A third creature appears with the third save and goes with the fourth.
    let third: Vec<u64> = ids.iter().copied().filter(|i| *i != a && *i != b).collect();
    assert_eq!(third.len(), 1, "{ids:?}");
    let r = t.of(third[0]);
    assert!(r.first().unwrap().frame >= f[2] && r.last().unwrap().frame <= f[3] + 1);
    // 5. The level moved up 0.4 m and the creatures with it.
    let y = |frame: u64| {
        t.of(a)
            .iter()
            .find(|r| r.frame == frame)
            .unwrap()
            .pos
            .unwrap()[1]
    };
    assert!(
        (y(f[4] + 2) - y(f[4] - 1) - 0.4).abs() < 0.03,
        "re-grounded: {} → {}",
        y(f[4] - 1),
        y(f[4] + 2)
    );
    let q = quality(&t);
    assert_eq!(q.nan, 0);
}
