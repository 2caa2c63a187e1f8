//! Climbers (issue 31): 1 000 spiders walking through a field of 3 m blocks, as the bundled
//! (floor) spider and as the same spider with `climb = {}` (which goes up, over and down
//! every block in its way) — µs per spider-tick — and the two crowds ticked in turn
//! (`climb/tick_ratio`), so the machine's load falls on both alike; the share of climbers
//! on walls and tops is printed.

#![allow(clippy::expect_used, missing_docs)] // bench set-up: a failure is a broken bench; criterion macros make undocumented items

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use skitter::script::{HostOptions, ScriptHost};

const N: usize = 1000;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `N` spiders in rows 1.6 m apart, each walking +Z at 0.8 m/s through a field of blocks
/// 3 m high (one every 8 m, for 100 m on): the bundled spider, or (`climb`) the same body
/// climbing.
fn crowd(dir: &Path, climb: bool) -> ScriptHost {
    let name = if climb { "climbers" } else { "walkers_" };
    let m = dir.join(name);
    std::fs::create_dir_all(&m).expect("mkdir");
    std::fs::write(
        m.join("mod.toml"),
        format!("name = \"{name}\"\nversion = \"0.1.0\"\ndepends = [\"spider\", \"walkers\"]\n"),
    )
    .expect("write");
    let body = std::fs::read_to_string(root().join("scripts/spider/body.lua")).expect("body");
    // The sound files the spider's definition names, beside the copy.
    let sounds = m.join("assets/sounds");
    std::fs::create_dir_all(&sounds).expect("mkdir");
    for f in std::fs::read_dir(root().join("scripts/spider/assets/sounds")).expect("sounds") {
        let p = f.expect("entry").path();
        std::fs::copy(&p, sounds.join(p.file_name().expect("name"))).expect("copy");
    }
    let def = body
        .replace("name = \"spider\"", "name = \"climber\", climb = {}")
        .replace("return creature.define", "creature.define");
    let side = (N as f32).sqrt().ceil() as usize;
    // Room to walk on for the whole bench (a climber walking off the ground's edge would
    // go round it).
    let size = side as f32 * 1.6 + 240.0;
    let ty = if climb { "climber" } else { "spider/spider" };
    std::fs::write(
        m.join("main.lua"),
        format!(
            "{def}\n\
             world.ground {{ size = vec3({size}, 0, {size}) }}\n\
             local half = {side} * 0.8\n\
             for bx = -half, half, 8 do for bz = -half + 4, half + 100, 8 do\n\
               world.box {{ position = vec3(bx + 2, 1.5, bz), size = vec3(3, 3, 2) }}\n\
             end end\n\
             for i = 0, {N} - 1 do\n\
               world.spawn('{ty}', {{ position = vec3(i % {side} * 1.6 - half, 0, math.floor(i / {side}) * 1.6 - half), behaviour = 'walkers/line' }})\n\
             end\n"
        ),
    )
    .expect("write");
    let mut host = ScriptHost::new(HostOptions {
        max_creatures: N + 10,
        ..HostOptions::default()
    });
    host.load(&[
        root().join("scripts/spider"),
        root().join("tests/fixtures/walkers"),
        m,
    ]);
    assert!(host.take_errors().is_empty(), "the crowd loads");
    // Into the field: some climbers on walls and tops by now.
    for _ in 0..240 {
        host.tick();
    }
    host
}

fn climbers(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tmp");
    let mut group = c.benchmark_group("climb");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(8))
        .throughput(Throughput::Elements(N as u64));
    let mut walkers = crowd(dir.path(), false);
    let mut climbing = crowd(dir.path(), true);
    for (what, host) in [("floor_spiders", &mut walkers), ("climbers", &mut climbing)] {
        group.bench_function(BenchmarkId::new("tick", format!("{what}/{N}")), |b| {
            b.iter_custom(|iters| {
                let t0 = Instant::now();
                for _ in 0..iters {
                    host.tick();
                }
                t0.elapsed()
            })
        });
    }
    let (mut all_w, mut all_c, mut ticks) = (Duration::ZERO, Duration::ZERO, 0u64);
    group.bench_function(BenchmarkId::new("tick_ratio", N), |b| {
        b.iter_custom(|iters| {
            let (mut w, mut cl) = (Duration::ZERO, Duration::ZERO);
            for _ in 0..iters {
                let t0 = Instant::now();
                walkers.tick();
                let t1 = Instant::now();
                climbing.tick();
                w += t1 - t0;
                cl += t1.elapsed();
            }
            all_w += w;
            all_c += cl;
            ticks += iters;
            cl
        })
    });
    group.finish();
    let world = climbing.world();
    let steep = world
        .creatures()
        .iter()
        .filter(|c| c.loco.up.y < std::f32::consts::FRAC_1_SQRT_2)
        .count();
    let high = world
        .creatures()
        .iter()
        .filter(|c| c.loco.position.y > 1.0)
        .count();
    eprintln!(
        "climb/tick_ratio: climbers' ticks / floor spiders' ticks, interleaved = {:.3} ({:.3} ms vs {:.3} ms a tick); climbers on walls now {steep}, off the floor {high} of {N}",
        all_c.as_secs_f64() / all_w.as_secs_f64().max(1e-12),
        1e3 * all_c.as_secs_f64() / ticks.max(1) as f64,
        1e3 * all_w.as_secs_f64() / ticks.max(1) as f64,
    );
}

criterion_group!(benches, climbers);
criterion_main!(benches);
