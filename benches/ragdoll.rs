//! Active ragdolls per tick: one awake ragdolled spider, one settled (asleep), and 50 to
//! 1 000 soft soldiers (the brawl mod's type) in physics shoving each other, as µs per
//! creature-tick (types from the bundled mods' files, on a flat ground); and the bundled
//! battle scene with 400 and 1 000 soldiers, whole ticks with their brains.

#![allow(clippy::expect_used, missing_docs)] // bench set-up: a failure is a broken bench; criterion macros make undocumented items

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use glam::Vec3;
use skitter::sim::{Command, TICK_DT};

#[path = "common/scenes.rs"]
mod scenes;
use scenes::{battle_host, host, ragdoll, shove, shoving};

/// The shoving benches measure ticks `FROM..UNTIL` of the shove.
const FROM: u64 = 60;
/// See [`FROM`].
const UNTIL: u64 = 300;

/// Adds a tick's step times to `split` (navigation, locomotion, physics, the rapier step,
/// and how long locomotion ran beside physics), as µs per creature-tick over
/// `creature_ticks`.
fn add_split(split: &mut [f64; 5], t: skitter::sim::StepTimes, creature_ticks: usize) {
    for (s, d) in split
        .iter_mut()
        .zip([t.navigation, t.locomotion, t.physics, t.rapier, t.overlap])
    {
        *s += d.as_secs_f64() * 1e6 / creature_ticks as f64;
    }
}

fn ragdolls(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tmp");
    let mut group = c.benchmark_group("ragdoll");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(4));

    // One spider kept awake: a small push every 20 ticks.
    let h = host(dir.path());
    {
        let mut w = h.world_mut();
        let t = w.type_by_name("bench/spider").expect("spider");
        let id = w.spawn(t, Vec3::ZERO, 0.0).expect("spawn");
        ragdoll(&mut w, id, 0.3);
        w.step(TICK_DT);
    }
    let mut tick = 0u64;
    group.throughput(criterion::Throughput::Elements(1));
    group.bench_function("spider_awake", |b| {
        b.iter(|| {
            let mut w = h.world_mut();
            tick += 1;
            if tick.is_multiple_of(20) {
                let id = w.creatures()[0].id;
                w.push(Command::Hit(id, Vec3::new(1.0, 0.5, 0.0), 1.0));
            }
            w.step(TICK_DT);
        })
    });

    // One settled spider (asleep): a tick should cost about what an empty world's does.
    let h = host(dir.path());
    {
        let mut w = h.world_mut();
        let t = w.type_by_name("bench/spider").expect("spider");
        let id = w.spawn(t, Vec3::ZERO, 0.0).expect("spawn");
        ragdoll(&mut w, id, 0.0);
        for _ in 0..600 {
            w.step(TICK_DT);
        }
        assert_eq!(w.sleeping_rigs(), 1, "settled");
    }
    group.bench_function("spider_settled", |b| b.iter(|| h.world_mut().step(TICK_DT)));

    for (n, threads) in [
        (50usize, 1usize),
        (200, 1),
        (400, 1),
        (400, 2),
        (1000, 1),
        (1000, 2),
    ] {
        let h = host(dir.path());
        h.world_mut().set_threads(threads);
        let ids = shoving(&mut h.world_mut(), n);
        // Into the shove before measuring; then every sample steps ticks of the same stretch
        // of the same run, whatever the thread count: from 1 s to 5 s, back to a checkpoint
        // just before it (the restore and the tick that rebuilds the rigs outside the
        // timing), and on. (Stepping on and on, a faster setting ran more ticks into the
        // shove, where the rows had piled into larger groups: not the slower one's states.)
        for t in 0..FROM - 1 {
            let mut w = h.world_mut();
            shove(&mut w, &ids, t);
            w.step(TICK_DT);
        }
        let cp = h.world().checkpoint();
        let mut tick = UNTIL;
        let step = |tick: &mut u64, split: Option<&mut [f64; 5]>| -> Duration {
            let mut w = h.world_mut();
            if *tick == UNTIL {
                w.restore(cp.clone());
                shove(&mut w, &ids, FROM - 1);
                w.step(TICK_DT);
                *tick = FROM;
            }
            shove(&mut w, &ids, *tick);
            *tick += 1;
            let t0 = Instant::now();
            w.step(TICK_DT);
            let took = t0.elapsed();
            if let Some(split) = split {
                add_split(split, w.last_step_times(), (UNTIL - FROM) as usize * n);
            }
            took
        };
        group.throughput(Throughput::Elements(n as u64));
        let name = if threads == 1 {
            format!("soldiers_shoving/{n}")
        } else {
            format!("soldiers_shoving/{n}/threads_{threads}")
        };
        group.bench_function(&name, |b| {
            b.iter_custom(|iters| (0..iters).map(|_| step(&mut tick, None)).sum())
        });
        // Where a tick's time goes, per soldier (wall clock over the stretch once).
        let mut split = [0.0f64; 5];
        tick = UNTIL;
        for _ in FROM..UNTIL {
            step(&mut tick, Some(&mut split));
        }
        let w = h.world();
        let up = w
            .creatures()
            .iter()
            .filter(|c| c.body_pose().0.y > 0.7)
            .count();
        let g = w.physics_groups();
        eprintln!(
            "{name}: {} interaction groups, the largest {} rigs; {} rigs moved between them so far",
            g.groups, g.largest, g.moved
        );
        eprintln!(
            "{name}: {} in physics, {up} standing, {} asleep; per soldier-tick: physics {:.1} µs (rapier step {:.1}, ours {:.1}), locomotion {:.2}, commands and navigation {:.2}",
            w.ragdoll_count(),
            w.sleeping_rigs(),
            split[2],
            split[3],
            split[2] - split[3],
            split[1],
            split[0],
        );
    }
    group.finish();
}

fn battles(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tmp");
    let mut group = c.benchmark_group("battle");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(6));
    for (per_army, threads) in [(200usize, 1usize), (200, 2), (500, 1), (500, 2)] {
        // Every sample ticks the same stretch of the same run at any thread count: the
        // battle from 6 s (where `battle_host` leaves it) to 10 s, then a new battle (made
        // outside the timing) — there is no checkpoint of a host's Lua states to go back to.
        // (Ticking on and on, the faster setting ran further into the battle: not the
        // slower one's states.)
        const SPAN: usize = 240;
        let mut host = battle_host(dir.path(), per_army, threads);
        let mut tick = 0;
        let n = host.world().creatures().len();
        group.throughput(Throughput::Elements(n as u64));
        let name = format!("{}/threads_{threads}", 2 * per_army);
        group.bench_function(&name, |b| {
            b.iter_custom(|iters| {
                let mut took = Duration::ZERO;
                for _ in 0..iters {
                    if tick == SPAN {
                        host = battle_host(dir.path(), per_army, threads);
                        tick = 0;
                    }
                    let t0 = Instant::now();
                    host.tick();
                    took += t0.elapsed();
                    tick += 1;
                }
                took
            })
        });
        // Where a tick goes, per creature (wall clock over the stretch once).
        let mut host = battle_host(dir.path(), per_army, threads);
        let (mut split, mut whole) = ([0.0f64; 5], 0.0f64);
        let mut in_physics = 0;
        for _ in 0..SPAN {
            let t0 = Instant::now();
            host.tick();
            whole += t0.elapsed().as_secs_f64() * 1e6 / (SPAN * n) as f64;
            let w = host.world();
            in_physics += w.ragdoll_count();
            add_split(&mut split, w.last_step_times(), SPAN * n);
        }
        let g = host.world().physics_groups();
        eprintln!(
            "battle/{name}: {n} creatures, {} in physics on average ({} groups, the largest {}); per creature-tick {whole:.1} µs: physics {:.1} (rapier step {:.1}), locomotion {:.2} ({:.2} of it beside physics), commands and navigation {:.2}, brains and the rest {:.1}",
            in_physics / SPAN,
            g.groups,
            g.largest,
            split[2],
            split[3],
            split[1],
            split[4],
            split[0],
            whole - split[0] - split[1] - split[2] + split[4],
        );
    }
    group.finish();
}

criterion_group!(benches, ragdolls, battles);
criterion_main!(benches);
