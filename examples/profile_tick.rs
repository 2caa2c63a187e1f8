//! Steps 1000 spiders on the arena for 600 ticks: a target for a profiler
//! (`perf record --call-graph dwarf target/release/examples/profile_tick`).

use std::path::PathBuf;
use std::time::Instant;

use glam::Vec3;
use skitter::locomotion::Intent;
use skitter::script::{HostOptions, ScriptHost};
use skitter::sim::{Command, TICK_DT};

fn main() {
    let scripts = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts");
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(&[scripts.join("arena"), scripts.join("spider")]);
    let n = 1000;
    let mut w = host.world_mut();
    let Some(t) = w.type_by_name("spider/spider") else {
        return;
    };
    for i in 0..n {
        let p = Vec3::new((i % 32) as f32 - 16.0, 0.0, (i / 32) as f32 - 16.0);
        if let Some(id) = w.spawn(t, p, i as f32) {
            let dir = Vec3::new(-p.x, 0.0, -p.z).normalize_or(Vec3::Z);
            w.push(Command::SetIntent(
                id,
                Intent::Move {
                    dir,
                    speed: 1.0,
                    drop: false,
                },
            ));
        }
    }
    let (mut step, mut casts) = (0.0f64, 0.0f64);
    let mut hits = 0;
    for _ in 0..600 {
        let t0 = Instant::now();
        w.step(TICK_DT);
        step += t0.elapsed().as_secs_f64();
        w.drain_events();
        let t1 = Instant::now();
        if std::env::var_os("STEP_ONLY").is_none() {
            hits += std::hint::black_box(w.cast_feet_only());
        }
        casts += t1.elapsed().as_secs_f64();
    }
    let per = |t: f64| t * 1e6 / (600.0 * n as f64);
    println!(
        "{:.3} µs per spider-tick, casts alone {:.3} µs, ratio {:.2} ({hits} hits)",
        per(step),
        per(casts),
        step / casts
    );
}
