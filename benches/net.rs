//! Multiplayer at crowd scale (issue 46): 1 000 wandering spiders served to in-memory
//! viewers. Timed: the server's work per tick for 1 and 8 viewers (capture, encoding,
//! packets) against the World's own tick, and a viewer's frame (1 000 creatures rebuilt:
//! roots, feet, lean, IK). Printed beside them: bytes per walking creature per snapshot,
//! the foot events' share, Mbit/s to one viewer, and a ragdolled soldier's bytes.

#![allow(clippy::expect_used, missing_docs)] // bench set-up: a failure is a broken bench; criterion macros make undocumented items

#[path = "common/scenes.rs"]
mod scenes;

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use skitter::net::{LinkSim, Loopback, NetServer, NetViewer, ServerOptions};
use skitter::script::{HostOptions, ScriptHost};
use skitter::sim::TICK_DT;

const DT: f64 = TICK_DT as f64;

fn crowd(dir: &std::path::Path, n: usize) -> ScriptHost {
    scenes::crowd(
        dir,
        n,
        HostOptions {
            threads: 1,
            ..HostOptions::default()
        },
    )
}

/// A served crowd with `viewers` clean in-memory links, warmed up.
fn served(n: usize, viewers: usize) -> (tempfile::TempDir, ScriptHost, Loopback) {
    let dir = tempfile::tempdir().expect("tmp");
    let mut host = crowd(dir.path(), n);
    let mut net = Loopback::new(NetServer::new(ServerOptions::default()));
    for i in 0..viewers {
        net.connect(NetViewer::new(), LinkSim::default(), i as u64 + 1);
    }
    for _ in 0..120 {
        step(&mut host, &mut net);
    }
    (dir, host, net)
}

fn step(host: &mut ScriptHost, net: &mut Loopback) {
    let events = host.tick();
    net.server.after_tick(&host.world(), &events);
    net.pump(DT, &host.world());
}

/// The wire's figures over 10 s of a served crowd of a thousand.
fn wire_figures() {
    let (_d, mut host, mut net) = served(1000, 1);
    let (b0, r0) = net.server.snapshot_stats();
    let f0 = net.server.feet_stats();
    let link0 = net.links[0].down.bytes;
    let ticks = 600;
    let mut walking = 0usize;
    for t in 0..ticks {
        step(&mut host, &mut net);
        if t % 3 == 0 {
            walking += host
                .world()
                .creatures()
                .iter()
                .filter(|c| c.loco.speed() > 0.05)
                .count();
        }
    }
    let (b1, r1) = net.server.snapshot_stats();
    let f1 = net.server.feet_stats();
    let snaps = ticks / 3;
    let per_walker = (b1 - b0) as f64 / walking.max(1) as f64;
    let link = (net.links[0].down.bytes - link0) as f64;
    let secs = ticks as f64 * DT;
    println!(
        "net/wire/1000: {per_walker:.2} B per walking creature per snapshot ({} records, {:.0} walking per snapshot); snapshots {:.2} Mbit/s, everything to one viewer {:.2} Mbit/s (foot events and headers {:.0} %)",
        r1 - r0,
        walking as f64 / snaps as f64,
        (b1 - b0) as f64 * 8.0 / secs / 1e6,
        link * 8.0 / secs / 1e6,
        100.0 * (1.0 - (b1 - b0) as f64 / link)
    );
    let (lifts, plants, bytes) = (f1.0 - f0.0, f1.1 - f0.1, f1.2 - f0.2);
    println!(
        "net/wire/1000 feet: {lifts} lifts, {plants} plants, {:.2} B an event, {:.2} Mbit/s",
        bytes as f64 / (lifts + plants).max(1) as f64,
        bytes as f64 * 8.0 / secs / 1e6
    );
}

/// A ragdolled soldier's bytes per snapshot: 40 soldiers standing (sending nothing),
/// knocked over at once, their snapshots while they fall and lie.
fn ragdoll_figures() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut host = scenes::host(dir.path());
    let ids: Vec<_> = (0..40)
        .filter_map(|i| {
            let ty = host.world().type_by_name("bench/soldier")?;
            host.world_mut().spawn(
                ty,
                glam::Vec3::new((i % 8) as f32 * 3.0 - 12.0, 0.0, (i / 8) as f32 * 3.0),
                0.0,
            )
        })
        .collect();
    assert_eq!(ids.len(), 40, "soldiers spawned");
    let mut net = Loopback::new(NetServer::new(ServerOptions::default()));
    net.connect(NetViewer::new(), LinkSim::default(), 1);
    for _ in 0..90 {
        step(&mut host, &mut net);
    }
    for id in &ids {
        host.world_mut().knock_over(*id, glam::Vec3::X);
    }
    let (b0, r0) = net.server.snapshot_stats();
    let mut rig_records = 0;
    for t in 0..120 {
        step(&mut host, &mut net);
        if t % 3 == 2 {
            rig_records += host
                .world()
                .creatures()
                .iter()
                .filter(|c| c.rag.is_some())
                .count();
        }
    }
    let (b1, r1) = net.server.snapshot_stats();
    println!(
        "net/ragdoll/soldier: {:.1} B per ragdolled soldier per snapshot sent ({} records; {} rig-snapshots in physics)",
        (b1 - b0) as f64 / (r1 - r0).max(1) as f64,
        r1 - r0,
        rig_records
    );
}

fn bench(c: &mut Criterion) {
    wire_figures();
    ragdoll_figures();
    let mut g = c.benchmark_group("net");
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    for viewers in [0usize, 1, 8] {
        let (_d, mut host, mut net) = served(1000, viewers);
        g.bench_function(format!("server/1000/viewers_{viewers}"), |b| {
            b.iter_custom(|iters| {
                let mut spent = Duration::ZERO;
                for _ in 0..iters {
                    let events = host.tick();
                    let t0 = Instant::now();
                    net.server.after_tick(&host.world(), &events);
                    for l in 0..net.links.len() {
                        let id = net.client_id(l);
                        let _ = net.server.renet().get_packets_to_send(id);
                    }
                    spent += t0.elapsed();
                }
                spent
            })
        });
    }
    let (_d, mut host, mut net) = served(1000, 1);
    g.bench_function("world_tick/1000", |b| {
        b.iter_custom(|iters| {
            let t0 = Instant::now();
            for _ in 0..iters {
                let events = host.tick();
                net.server.after_tick(&host.world(), &events);
                net.pump(DT, &host.world());
            }
            t0.elapsed()
        })
    });
    g.bench_function("viewer_frame/1000", |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            for _ in 0..iters {
                let events = host.tick();
                net.server.after_tick(&host.world(), &events);
                let t0 = Instant::now();
                net.pump(DT, &host.world());
                spent += t0.elapsed();
            }
            spent
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
