//! Deterministic budgets (issue 17 §2): script work is counted in units that do not depend
//! on the machine's load, a mod's allowance grows with the creatures it drives, and a run
//! gives the same bytes on an idle and a loaded machine, with a mod that trips its budget
//! beside one that does not.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test set-up: a failure is a failed test

mod common;

use std::path::PathBuf;

use common::*;
use skitter::script::{HostOptions, ScriptHost};

/// A scene mod spawning `n` bundled spiders with their wander brain on flat ground.
fn crowd(dir: &std::path::Path, n: usize) -> PathBuf {
    let main = format!(
        "world.ground {{ size = vec3(120, 0, 120) }}\n\
         for i = 0, {n} - 1 do\n\
           world.spawn('spider/spider', {{ position = vec3(i % 100 - 50, 0, math.floor(i / 100) - 50) }})\n\
         end\n"
    );
    let toml = "name = \"crowd\"\nversion = \"0.1.0\"\ndepends = [\"spider\"]\n";
    temp_mod(dir, "crowd", &[("mod.toml", toml), ("main.lua", &main)])
}

#[test]
fn the_wander_brain_stays_within_its_per_creature_share() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(&[bundled("spider"), crowd(dir.path(), 200)]);
    assert!(host.take_errors().is_empty());
    let mut worst = 0u64;
    for _ in 0..120 {
        host.tick();
        let (used, allowed) = host.work_used("spider").expect("spider mod");
        assert_eq!(allowed, 400_000 + 2_000 * 200);
        worst = worst.max(used);
    }
    let per = worst / 200;
    eprintln!("wander brain: at most {worst} units per tick for 200 spiders ({per} per spider)");
    assert!(host.take_errors().is_empty(), "a budget tripped");
    assert!(
        per < 2_000 / 4,
        "the brain uses {per} units per spider-tick"
    );
}

/// A headless run's trace, byte for byte (written into `dir`, which is created).
fn trace_bytes(dir: &std::path::Path, frames: u32, mods: &[PathBuf], extra: &[&str]) -> Vec<u8> {
    std::fs::create_dir_all(dir).expect("mkdir");
    let (out, _) = run_trace(dir, frames, mods, extra);
    assert!(out.status.success(), "{}", text(&out));
    let trace = std::fs::read_dir(dir)
        .expect("dir")
        .filter_map(|e| e.ok())
        .find(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .expect("trace");
    std::fs::read(trace.path()).expect("read")
}

/// Keeps every core busy until dropped.
struct Load(
    std::sync::Arc<std::sync::atomic::AtomicBool>,
    Vec<std::thread::JoinHandle<()>>,
);

impl Load {
    fn start() -> Load {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let n = std::thread::available_parallelism().map_or(2, |n| n.get()) * 2;
        let hogs = (0..n)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 1u64;
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                        std::hint::black_box(x);
                    }
                })
            })
            .collect();
        Load(stop, hogs)
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
        for h in self.1.drain(..) {
            let _ = h.join();
        }
    }
}

#[test]
fn a_loaded_machine_gives_the_same_bytes_with_a_mod_that_trips_its_budget() {
    let dir = tempfile::tempdir().expect("tmp");
    // Spins from its 40th tick: the budget must stop it at the same place every run.
    let spin = temp_mod(
        dir.path(),
        "spin",
        &[(
            "main.lua",
            "behaviour.define { name = 'b', on_update = function(self, dt)\n\
               self.state.t = (self.state.t or 0) + 1\n\
               local n = 0\n\
               if self.state.t >= 40 then while true do n = n + 1 end end\n\
             end }\n\
             world.spawn('spider/spider', { position = vec3(8, 0, 8), behaviour = 'b' })\n",
        )],
    );
    let mods = vec![bundled("spider"), fixture("walkers"), spin];
    let run = |name: &str| trace_bytes(&dir.path().join(name), 120, &mods, &["--seed", "3"]);
    let idle = run("idle");
    let loaded = {
        let _load = Load::start();
        run("loaded")
    };
    let t = Trace::parse(&String::from_utf8_lossy(&idle));
    let errors = t.errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0]["message"]
        .as_str()
        .unwrap_or("")
        .contains("work units"));
    assert_eq!(errors[0]["frame"], 40);
    assert!(idle == loaded, "the trace differs under load");
}

#[test]
fn the_trace_is_the_same_at_any_thread_count() {
    let dir = tempfile::tempdir().expect("tmp");
    let mods = vec![
        bundled("spider"),
        fixture("walkers"),
        crowd(dir.path(), 150),
    ];
    let run = |threads: &str| {
        let extra = ["--seed", "7", "--threads", threads];
        trace_bytes(&dir.path().join(format!("t{threads}")), 240, &mods, &extra)
    };
    let one = run("1");
    assert!(one.len() > 1_000_000, "a real crowd: {} bytes", one.len());
    for n in ["2", "5"] {
        assert!(
            run(n) == one,
            "the trace at --threads {n} differs from --threads 1"
        );
    }
}
