//! Render-side CPU cost per creature: snapshot extraction, instance building and the upload
//! to the GPU (when an adapter exists; Mesa's software Vulkan counts).

#![allow(clippy::expect_used, missing_docs)] // bench set-up: a failure is a broken bench; criterion macros make undocumented items

use std::time::Duration;

#[path = "common/scenes.rs"]
mod scenes;
use scenes::walking_spiders;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use glam::Vec3;
use skitter::render::{DebugFlags, FrameInstances, Offscreen, OrbitCamera};
use skitter::sim::Snapshot;

fn render_cpu(c: &mut Criterion) {
    let mut g = c.benchmark_group("render_cpu");
    g.sample_size(30).measurement_time(Duration::from_secs(3));
    let mut gpu = Offscreen::new(640, 360, skitter::render::SCENE_WGSL).ok();
    if gpu.is_none() {
        eprintln!("render bench: no GPU adapter; measuring snapshot + instances only");
    }
    for n in [100usize, 1000] {
        let host = walking_spiders(n, 30);
        let w = host.world();
        let mut snap = Snapshot::default();
        let mut frame = FrameInstances::default();
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("snapshot+instances", n), &n, |b, _| {
            b.iter(|| {
                snap.capture(&w);
                frame.build(&snap, None, DebugFlags::default(), &[], &[]);
                std::hint::black_box(frame.capsules.len())
            })
        });
        if let Some(gpu) = gpu.as_mut() {
            let cam = OrbitCamera::default();
            g.bench_with_input(
                BenchmarkId::new("snapshot+instances+upload", n),
                &n,
                |b, _| {
                    b.iter(|| {
                        snap.capture(&w);
                        frame.build(&snap, None, DebugFlags::default(), &[], &[]);
                        gpu.renderer
                            .prepare(&frame, &cam, (640, 360), w.level(), 0.0);
                        // A frame submits its uploads; without this the staging memory piles up.
                        gpu.renderer.queue().submit([]);
                        let _ = gpu.renderer.device().poll(wgpu::PollType::Poll);
                    })
                },
            );
        }
    }
    g.finish();
}

/// Whole frames of 1 000 generated spiders on llvmpipe (or the GPU there is), 1280×720, as a
/// window draws them: skinned with levels of detail, skinned all at full detail, and as
/// sticks (`--debug sticks`: the capsules the locomotion sees) — the skinned crowd's cost
/// against the sticks'.
fn render_gpu(c: &mut Criterion) {
    let Ok(mut gpu) = Offscreen::new(1280, 720, skitter::render::SCENE_WGSL) else {
        eprintln!("render bench: no GPU adapter; no whole frames to time");
        return;
    };
    let mut g = c.benchmark_group("render_frame");
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    let host = walking_spiders(1000, 30);
    let w = host.world();
    let mut snap = Snapshot::default();
    snap.capture(&w);
    gpu.renderer.set_models(w.types());
    let cam = OrbitCamera::look(Vec3::new(0.0, 9.0, -30.0), Vec3::new(0.0, 0.0, 2.0));
    for (name, lod, sticks) in [
        ("skinned_lod", None, false),
        ("skinned_full", Some(0), false),
        ("sticks", None, true),
    ] {
        let debug = DebugFlags {
            sticks,
            ..DebugFlags::default()
        };
        let mut frame = FrameInstances::default();
        frame.build(&snap, None, debug, &[], &[]);
        gpu.renderer.lod_force = lod;
        g.bench_function(BenchmarkId::new(name, 1000), |b| {
            b.iter(|| {
                gpu.draw(w.level(), w.level_version(), &frame, &cam, 0.0);
                std::hint::black_box(gpu.renderer.stats.draw_calls)
            })
        });
        let s = gpu.renderer.stats;
        eprintln!(
            "render_frame/{name}: {} draw calls, models by level of detail {:?}, {} model triangles",
            s.draw_calls, s.per_lod, s.skinned_triangles
        );
    }
    g.finish();
}

criterion_group!(benches, render_cpu, render_gpu);
criterion_main!(benches);
