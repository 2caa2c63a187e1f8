//! The full pipeline at crowd scale (issue 17 §1): N bundled spiders with their Lua wander
//! brain (navmesh destinations, `on_update` every tick), navmesh agents with avoidance,
//! locomotion and lean, on flat ground — µs per spider-tick for N = 1 000, 5 000, 10 000,
//! with the split (scripts / navigation / locomotion / the rest) printed beside it; and
//! `crowd/lod/10000`: the same 10 000 with level of detail on (full detail within
//! [`LOD_RADIUS`] of the centre, far spiders every 3 ticks).

#![allow(clippy::expect_used, missing_docs)] // bench set-up: a failure is a broken bench; criterion macros make undocumented items

use std::time::{Duration, Instant};

#[path = "common/scenes.rs"]
mod scenes;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use skitter::script::{HostOptions, ScriptHost};
use skitter::sim::Detail;

/// The level of detail of the `crowd/lod` runs: full detail within 20 m of the crowd's
/// centre (a camera's close view), far spiders every 3 ticks.
const LOD_RADIUS: f32 = 20.0;

fn crowd(dir: &std::path::Path, n: usize, detail: Option<Detail>) -> ScriptHost {
    scenes::crowd(
        dir,
        n,
        HostOptions {
            detail,
            ..HostOptions::default()
        },
    )
}

fn full_pipeline(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tmp");
    let mut group = c.benchmark_group("crowd");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(6))
        .warm_up_time(Duration::from_secs(1));
    let runs = [
        ("tick", 1000usize, None),
        ("tick", 5000, None),
        ("tick", 10_000, None),
        (
            "lod",
            10_000,
            Some(Detail::around(glam::Vec3::ZERO, LOD_RADIUS)),
        ),
    ];
    for (what, n, detail) in runs {
        let mut host = crowd(dir.path(), n, detail);
        // Into a steady wander (agents placed, first destinations picked).
        for _ in 0..90 {
            host.tick();
        }
        let s = scenes::crowd_split(&mut host, n, 30);
        eprintln!("crowd/{what}/{n}: {}", scenes::split_line(&s));
        if let Some((used, allowed)) = host.work_used("spider") {
            eprintln!(
                "crowd/{what}/{n}: the spider mod used {used} of {allowed} work units in its last tick"
            );
        }
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new(what, n), &n, |b, _| {
            b.iter_custom(|iters| {
                let t0 = Instant::now();
                for _ in 0..iters {
                    host.tick();
                }
                t0.elapsed()
            })
        });
        assert!(host.take_errors().is_empty(), "no budget tripped at {n}");
    }
    group.finish();
}

criterion_group!(benches, full_pipeline);
criterion_main!(benches);
