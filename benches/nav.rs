//! Navigation costs on the bundled arena: the navmesh bake for the spider's settings (alone,
//! and with the jump, drop and hop links it finds for the spider's `nav.jump`), a path query
//! between random points of the mesh (criterion's median is the figure), and the navigation
//! half of a tick with 1 000 agents walking to destinations.

#![allow(clippy::expect_used, missing_docs)] // bench set-up: a failure is a broken bench; criterion macros make undocumented items

use std::path::PathBuf;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use glam::Vec3;
use skitter::nav::{NavMesh, Navigator};
use skitter::script::{HostOptions, ScriptHost};
use skitter::sim::{settings_of, Command, TICK_DT};

fn arena() -> ScriptHost {
    let scripts = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts");
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(&[scripts.join("arena"), scripts.join("spider")]);
    assert!(host.take_errors().is_empty());
    host
}

fn nav(c: &mut Criterion) {
    let host = arena();
    let (input, settings) = {
        let w = host.world();
        let t = w.type_by_name("spider/spider").expect("spider");
        let def = &w.creature_type(t).expect("type").def;
        (w.level().nav_input(), settings_of(def))
    };
    let mut g = c.benchmark_group("nav");
    g.sample_size(10);
    g.bench_function("bake_arena", |b| {
        b.iter(|| NavMesh::bake(&input, settings).expect("bake"))
    });
    g.bench_function("bake_arena_with_links", |b| {
        b.iter(|| skitter::nav::bake(&input, settings).expect("bake"))
    });
    let baked = skitter::nav::bake(&input, settings).expect("bake");
    let mesh = Arc::new(baked.mesh);
    println!(
        "arena navmesh: {} polygons, {:.0} m² walkable, {} links found",
        mesh.polygons.len(),
        mesh.total_area(),
        baked.links.len()
    );
    let navigator = Navigator::new(mesh, baked.links).expect("navigator");
    let pts: Vec<Vec3> = (0..128)
        .map(|i| {
            let f = i as f32;
            navigator
                .point_at([
                    (f * 0.618_034).fract(),
                    (f * 0.414_214).fract(),
                    (f * 0.732_051).fract(),
                ])
                .expect("point")
        })
        .collect();
    g.sample_size(50);
    let mut k = 0;
    g.bench_function("path_query", |b| {
        b.iter(|| {
            k = (k + 1) % 64;
            navigator.find_path(pts[k], pts[k + 64], None)
        })
    });
    g.finish();

    // 1 000 spiders on the arena, each walking to a random point of the mesh.
    let host = arena();
    {
        let mut w = host.world_mut();
        let t = w.type_by_name("spider/spider").expect("spider");
        let mut ids = Vec::new();
        for i in 0..1000 {
            let (gx, gz) = ((i % 32) as f32, (i / 32) as f32);
            let p = Vec3::new(-17.0 + gx * 1.1, 0.0, -17.0 + gz * 1.1);
            ids.push(w.spawn(t, p, 0.0).expect("spawn"));
        }
        for id in &ids {
            let goal = w.random_nav_point(None, None).expect("point");
            w.push(Command::SetDestination(*id, goal, None));
        }
    }
    for _ in 0..30 {
        host.world_mut().step(TICK_DT);
    }
    // The slowest single tick against the mean over a second (crowd-rate updates must not
    // pile onto one tick).
    let mut times = Vec::new();
    for _ in 0..60 {
        let t0 = std::time::Instant::now();
        host.world_mut().nav_tick(TICK_DT);
        times.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    let worst = times.iter().cloned().fold(0.0, f64::max);
    println!("nav tick with 1 000 agents over 60 ticks: mean {mean:.2} ms, slowest {worst:.2} ms");
    let mut g = c.benchmark_group("nav_tick");
    g.sample_size(10);
    g.throughput(Throughput::Elements(1000));
    g.bench_with_input(BenchmarkId::new("agents", 1000), &1000, |b, _| {
        b.iter(|| host.world_mut().nav_tick(TICK_DT))
    });
    g.finish();
}

/// 300 spiders roaming open ground (60 m square), each sent to a new random point when it
/// arrives, for 40 s: arrivals, and how often and how deep two bodies overlap (navigation
/// radii), with crowd-rate navigation or every agent every tick.
fn roaming(full_rate: bool) -> (usize, f64, f32) {
    let scripts = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts");
    let mut host = ScriptHost::new(HostOptions {
        threads: 1,
        ..HostOptions::default()
    });
    host.load(&[scripts.join("spider")]);
    assert!(host.take_errors().is_empty());
    let mut w = host.world_mut();
    w.set_ground(&skitter::sim::GroundDesc {
        tag: Default::default(),
        position: Vec3::ZERO,
        width: 60.0,
        depth: 60.0,
        heights: skitter::sim::HeightSource::Flat,
    })
    .expect("ground");
    w.set_nav_full_rate(full_rate);
    let t = w.type_by_name("spider/spider").expect("spider");
    let radius = w.creature_type(t).expect("type").def.nav.radius;
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let u = (rng >> 40) as f32 / (1u64 << 24) as f32;
        u * 52.0 - 26.0
    };
    for i in 0..300 {
        let p = Vec3::new(
            -26.0 + (i % 20) as f32 * 2.7,
            0.0,
            -26.0 + (i / 20) as f32 * 3.5,
        );
        let id = w.spawn(t, p, 0.0).expect("spawn");
        w.push(Command::SetDestination(
            id,
            Vec3::new(next(), 0.0, next()),
            None,
        ));
    }
    let (mut arrivals, mut overlaps, mut pairs_seen, mut worst) = (0usize, 0u64, 0u64, 0.0f32);
    for _ in 0..60 * 40 {
        w.step(TICK_DT);
        for e in w.drain_events() {
            if let skitter::sim::WorldEvent::Arrive { id } = e {
                arrivals += 1;
                w.push(Command::SetDestination(
                    id,
                    Vec3::new(next(), 0.0, next()),
                    None,
                ));
            }
        }
        let ps: Vec<Vec3> = w.creatures().iter().map(|c| c.loco.position).collect();
        for a in 0..ps.len() {
            for b in a + 1..ps.len() {
                let d = Vec3::new(ps[a].x - ps[b].x, 0.0, ps[a].z - ps[b].z).length();
                if d < 2.0 * radius {
                    pairs_seen += 1;
                    let depth = 2.0 * radius - d;
                    if depth > 0.2 * radius {
                        overlaps += 1;
                    }
                    worst = worst.max(depth);
                }
            }
        }
    }
    let _ = pairs_seen;
    (arrivals, overlaps as f64 / (60.0 * 40.0), worst / radius)
}

fn crowd_quality(_c: &mut Criterion) {
    for full in [true, false] {
        let (n, per_tick, worst) = roaming(full);
        println!(
            "300 spiders roaming 40 s, navigation {}: {n} arrivals; pairs overlapping by more than 20 % of a radius: {per_tick:.2} per tick; deepest {:.0} % of a radius",
            if full { "every tick" } else { "at crowd rate (every 3rd tick)" },
            worst * 100.0
        );
    }
}

criterion_group!(benches, nav, crowd_quality);
criterion_main!(benches);
