//! One World tick of N spiders walking the bundled arena (µs per spider-tick), next to the
//! ground casts alone for the same spiders in the same run; and the cost of one Lua
//! `on_update` call per creature per tick, asking nothing or a battle brain's
//! `world.creatures_near` question.

#![allow(clippy::expect_used, missing_docs)] // bench set-up: a failure is a broken bench; criterion macros make undocumented items

use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use glam::Vec3;
use skitter::locomotion::Intent;
use skitter::script::{HostOptions, ScriptHost};
use skitter::sim::{Command, World, TICK_DT};

fn scripts() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts")
}

/// The arena level and the spider type, loaded through the real mods, plus `n` spiders
/// spread over the arena walking toward points near its centre.
fn arena_with_spiders(n: usize) -> ScriptHost {
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(&[scripts().join("arena"), scripts().join("spider")]);
    assert!(host.take_errors().is_empty());
    {
        let mut w = host.world_mut();
        let t = w.type_by_name("spider/spider").expect("spider type");
        let side = (n as f32).sqrt().ceil() as usize;
        for i in 0..n {
            let (gx, gz) = (
                (i % side) as f32 / side as f32,
                (i / side) as f32 / side as f32,
            );
            let p = Vec3::new(-16.0 + 32.0 * gx, 0.0, -16.0 + 32.0 * gz);
            w.spawn(t, p, i as f32).expect("spawned");
        }
    }
    steer(&mut host.world_mut(), 0);
    host
}

/// Points every spider at a spot near the centre (changes with `k`), at 1.2 m/s.
fn steer(w: &mut World, k: u64) {
    let ids: Vec<_> = w
        .creatures()
        .iter()
        .map(|c| (c.id, c.loco.position))
        .collect();
    for (i, (id, p)) in ids.into_iter().enumerate() {
        let a = (i as f32 * 2.4 + k as f32 * 0.7) % std::f32::consts::TAU;
        let goal = Vec3::new(a.cos() * 6.0, 0.0, a.sin() * 6.0);
        let dir = Vec3::new(goal.x - p.x, 0.0, goal.z - p.z).normalize_or(Vec3::Z);
        w.push(Command::SetIntent(
            id,
            Intent::Move {
                dir,
                speed: 1.2,
                drop: false,
            },
        ));
    }
}

/// Steps `iters` ticks (re-steering every 2 s, counted by `k`); the time in `step` alone.
/// `iters` ticks of the same stretch of walking: every [`CYCLE`] ticks the world goes back
/// to `start` (untimed), so however many ticks criterion asks for, it measures the same
/// scene (otherwise the spiders, walking into the arena's centre, crowd ever tighter the
/// longer the bench runs).
fn timed_steps(
    w: &mut World,
    start: &skitter::sim::WorldCheckpoint,
    k: &mut u64,
    iters: u64,
) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        *k += 1;
        if k.is_multiple_of(CYCLE) {
            w.restore(start.clone());
        }
        let t0 = Instant::now();
        w.step(TICK_DT);
        total += t0.elapsed();
        w.drain_events();
    }
    total
}

/// Ticks measured before the scene starts again.
const CYCLE: u64 = 120;

fn tick(c: &mut Criterion) {
    let mut group = c.benchmark_group("spider_tick");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_secs(1));
    for n in [100usize, 1000, 5000] {
        let host = arena_with_spiders(n);
        // Warm up into a steady gait.
        for k in 0..120 {
            if k % 60 == 0 {
                steer(&mut host.world_mut(), k);
            }
            host.world_mut().step(TICK_DT);
        }
        group.throughput(Throughput::Elements(n as u64));
        let start = host.world().checkpoint();
        let mut k = 0u64;
        group.bench_with_input(BenchmarkId::new("step", n), &n, |b, _| {
            b.iter_custom(|iters| timed_steps(&mut host.world_mut(), &start, &mut k, iters))
        });
        group.bench_with_input(BenchmarkId::new("casts_only", n), &n, |b, _| {
            let w = host.world();
            b.iter(|| std::hint::black_box(w.cast_feet_only()))
        });
    }
    group.finish();
}

/// The tick at 5 000 spiders on 1 thread and on every core (locomotion spreads over the
/// pool; navigation and the rest stay on the calling thread).
fn threads(c: &mut Criterion) {
    let mut group = c.benchmark_group("spider_tick_threads");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_secs(1));
    let n = 5000;
    let host = arena_with_spiders(n);
    for k in 0..120 {
        if k % 60 == 0 {
            steer(&mut host.world_mut(), k);
        }
        host.world_mut().step(TICK_DT);
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    group.throughput(Throughput::Elements(n as u64));
    let start = host.world().checkpoint();
    for t in [1, cores] {
        host.world_mut().set_threads(t);
        host.world_mut().restore(start.clone());
        let mut k = 0u64;
        group.bench_with_input(BenchmarkId::new("step_5000", t), &t, |b, _| {
            b.iter_custom(|iters| timed_steps(&mut host.world_mut(), &start, &mut k, iters))
        });
    }
    group.finish();
}

/// 1 000 brains of a bench mod (its `main.lua`, beside the arena and the spider) after one
/// tick: their `on_update` round (`ScriptHost::run_updates`) timed as `lua/{name}`. The
/// bench runs the round again and again within one tick's budget: room for all of them (a
/// tick's allowance would run out and leave the brains unasked).
fn brains(c: &mut Criterion, name: &str, main_lua: &str) {
    let dir = tempfile::tempdir().expect("tmp");
    let m = dir.path().join("bench");
    std::fs::create_dir_all(&m).expect("mkdir");
    std::fs::write(
        m.join("mod.toml"),
        "name = \"bench\"\nversion = \"0.1.0\"\ndepends = [\"spider\"]\n",
    )
    .expect("write");
    std::fs::write(m.join("main.lua"), main_lua).expect("write");
    let mut host = ScriptHost::new(HostOptions {
        cpu_per_tick: Duration::from_secs(3600),
        work_per_tick: u64::MAX / 4,
        ..HostOptions::default()
    });
    host.load(&[scripts().join("arena"), scripts().join("spider"), m]);
    assert!(host.take_errors().is_empty());
    host.tick();
    assert!(host.take_errors().is_empty());
    let mut group = c.benchmark_group("lua");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(3));
    group.throughput(Throughput::Elements(1000));
    group.bench_function(name, |b| b.iter(|| host.run_updates()));
    group.finish();
    assert!(host.take_errors().is_empty(), "the brains failed");
}

/// The cost of one Lua `on_update` call per creature: brains that do next to nothing.
fn lua_update(c: &mut Criterion) {
    brains(
        c,
        "on_update_x1000",
        "behaviour.define { name = 'idle', on_update = function(self, dt) self.state.t = (self.state.t or 0) + dt end }\n\
         for i = 1, 1000 do world.spawn('spider/spider', { position = vec3(i % 30 - 15, 0, i / 30 - 15), behaviour = 'idle' }) end\n",
    );
}

/// 1 000 spiders in two teams (a checkerboard 1.5 m apart), each with a brain whose
/// `on_update` is `body` (its `self.params.team` is its own team).
fn seekers(body: &str) -> String {
    format!(
        "behaviour.define {{ name = 'seek', params = {{ team = 0 }}, on_update = function(self, dt)\n\
           {body}\n\
         end }}\n\
         for i = 0, 999 do\n\
           local x, z = i % 32, i // 32\n\
           local team = (x + z) % 2\n\
           world.spawn('spider/spider', {{ position = vec3(x * 1.5 - 24, 0, z * 1.5 - 24), team = team, behaviour = 'seek', params = {{ team = team }} }})\n\
         end\n"
    )
}

/// A battle brain's question, 1 000 times a tick: each spider asks for its nearest foe on
/// its feet — `lua/creatures_near_x1000` as the battle's brains once did (a filter table
/// made and read, a result table made), `lua/nearest_creature_x1000` as they do now (the
/// filter read once by `world.near_filter`, the one handle given back);
/// `lua/on_update_x1000` beside them is the same brains asking nothing.
fn lua_near(c: &mut Criterion) {
    brains(
        c,
        "creatures_near_x1000",
        &seekers(
            "local foe = world.creatures_near(self:position(), 40, { not_team = self.params.team, animated = true, limit = 1 })[1]\n\
             self.state.foe = foe and foe.id",
        ),
    );
    brains(
        c,
        "nearest_creature_x1000",
        &format!(
            "local foes = {{ [0] = world.near_filter {{ not_team = 0, animated = true }}, world.near_filter {{ not_team = 1, animated = true }} }}\n{}",
            seekers(
                "local foe = world.nearest_creature(self:position(), 40, foes[self.params.team])\n\
                 self.state.foe = foe and foe.id",
            )
        ),
    );
}

/// The battle's question answered by the World's grid alone (no Lua), 1 000 times: two
/// armies of 500 spiders as the battle starts them (ranks of 20, 0.8 m apart, fronts 6 m
/// apart), each asking for its nearest foe on its feet within 40 m — most look past ranks
/// of their own army to find one.
fn near_grid(c: &mut Criterion) {
    let host = arena_with_spiders(0);
    let mut w = host.world_mut();
    let t = w.type_by_name("spider/spider").expect("spider type");
    let mut asks = Vec::new();
    for team in 0..2u32 {
        let side = if team == 0 { -1.0 } else { 1.0 };
        for i in 0..500 {
            let (rank, file) = ((i / 20) as f32, (i % 20) as f32);
            let p = Vec3::new(side * (3.0 + rank * 0.8), 0.0, -8.0 + file * 0.8);
            let id = w.spawn(t, p, 0.0).expect("spawned");
            w.set_team(id, Some(team));
            asks.push((p, team));
        }
    }
    let filters = [0u32, 1].map(|t| skitter::sim::NearFilter {
        not_team: Some(t),
        animated: true,
        limit: Some(1),
        ..Default::default()
    });
    let mut group = c.benchmark_group("near");
    group.throughput(Throughput::Elements(asks.len() as u64));
    group.bench_function("nearest_foe_x1000", |b| {
        b.iter(|| {
            asks.iter()
                .map(|&(p, team)| w.creatures_near(p, 40.0, &filters[team as usize]).len())
                .sum::<usize>()
        })
    });
    group.finish();
}

criterion_group!(benches, tick, threads, lua_update, lua_near, near_grid);
criterion_main!(benches);
