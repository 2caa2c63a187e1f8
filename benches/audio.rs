//! Sound scheduling and mixing against the tick it follows: 1 000 spiders walking, a
//! listener in front of the crowd, every tick's footfalls and lifts turned into voices and
//! mixed (`audio::Mix::tick`) — the bar: at most 5 % of the spiders' tick.

#![allow(clippy::expect_used, missing_docs)] // bench set-up: a failure is a broken bench; criterion macros make undocumented items

use std::time::Duration;

#[path = "common/scenes.rs"]
mod scenes;
use scenes::walking_spiders;

use criterion::{criterion_group, criterion_main, Criterion};
use glam::Vec3;
use skitter::audio::{Listener, Mix};
use skitter::sim::WorldEvent;

fn audio(c: &mut Criterion) {
    let mut g = c.benchmark_group("audio");
    g.sample_size(20).measurement_time(Duration::from_secs(5));
    let mut host = walking_spiders(1000, 60);
    // A second of the crowd's events, mixed over and over.
    let ticks: Vec<Vec<WorldEvent>> = (0..60).map(|_| host.tick()).collect();
    let events: usize = ticks.iter().map(Vec::len).sum();
    let ear = Listener::looking(Vec3::new(0.0, 1.5, -20.0), Vec3::ZERO);
    let mut mix = Mix::new(1);
    let mut at = 0;
    {
        let w = host.world();
        g.bench_function("mix/1000", |b| {
            b.iter(|| {
                let out = mix.tick(&ticks[at % ticks.len()], &w, &ear);
                at += 1;
                std::hint::black_box(out.len())
            })
        });
    }
    g.bench_function("tick/1000", |b| {
        b.iter(|| std::hint::black_box(host.tick().len()))
    });
    let s = mix.stats();
    eprintln!(
        "audio/mix/1000: {} events a second ({:.0} a tick); {} voices, {} merged, {} culled, {} over the cap, at most {} at once",
        events,
        events as f64 / 60.0,
        s.voices,
        s.merged,
        s.culled,
        s.capped,
        s.most_at_once
    );
    g.finish();
}

criterion_group!(benches, audio);
criterion_main!(benches);
