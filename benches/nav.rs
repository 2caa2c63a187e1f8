//! Navigation costs on the bundled arena: the navmesh bake for the spider's settings, a
//! path query between random points of the mesh (criterion's median is the figure), and
//! the navigation half of a tick with 1 000 agents walking to destinations.

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
        (w.level().nav_input(), settings_of(&def.nav))
    };
    let mut g = c.benchmark_group("nav");
    g.sample_size(10);
    g.bench_function("bake_arena", |b| {
        b.iter(|| NavMesh::bake(&input, settings).expect("bake"))
    });
    let mesh = Arc::new(NavMesh::bake(&input, settings).expect("bake"));
    println!(
        "arena navmesh: {} polygons, {:.0} m² walkable",
        mesh.polygons.len(),
        mesh.total_area()
    );
    let navigator = Navigator::new(mesh).expect("navigator");
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
            navigator.find_path(pts[k], pts[k + 64])
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
            w.push(Command::SetDestination(*id, goal));
        }
    }
    for _ in 0..30 {
        host.world_mut().step(TICK_DT);
    }
    let mut g = c.benchmark_group("nav_tick");
    g.sample_size(10);
    g.throughput(Throughput::Elements(1000));
    g.bench_with_input(BenchmarkId::new("agents", 1000), &1000, |b, _| {
        b.iter(|| host.world_mut().nav_tick(TICK_DT))
    });
    g.finish();
}

criterion_group!(benches, nav);
criterion_main!(benches);
