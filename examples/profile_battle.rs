//! The bundled battle scene with `PER_ARMY` soldiers a side (default 500) from 6 s in, for
//! `TICKS` ticks (default 300) at `THREADS` threads (default 2) — or, with `SHOVE` set, the
//! ragdoll bench's `2 × PER_ARMY` shoving soldiers from 1 s in: a target for a profiler
//! (`perf record -g target/release/examples/profile_battle`), printing where a tick goes.
//! The same ticks of the same run at any thread count (unlike criterion's samples).

#![allow(clippy::expect_used)] // a profiling target: a failed set-up is a broken run

use std::time::Instant;

#[path = "../benches/common/scenes.rs"]
mod scenes;

fn main() -> std::io::Result<()> {
    let (per_army, ticks, threads) = (
        scenes::env_or("PER_ARMY", 500),
        scenes::env_or("TICKS", 300),
        scenes::env_or("THREADS", 2),
    );
    let dir = tempfile::tempdir()?;
    if std::env::var_os("SHOVE").is_some() {
        shoving(dir.path(), 2 * per_army, ticks, threads);
        return Ok(());
    }
    let mut host = scenes::battle_host(dir.path(), per_army, threads);
    if std::env::var_os("TIMELINE").is_some() {
        timeline(&mut host, ticks);
        return Ok(());
    }
    let n = host.world().creatures().len();
    let (mut whole, mut physics, mut rapier, mut loco, mut in_physics) = (0.0, 0.0, 0.0, 0.0, 0);
    let mut overlap = 0.0;
    for _ in 0..ticks {
        let t0 = Instant::now();
        host.tick();
        whole += t0.elapsed().as_secs_f64();
        let w = host.world();
        let t = w.last_step_times();
        physics += t.physics.as_secs_f64();
        rapier += t.rapier.as_secs_f64();
        loco += t.locomotion.as_secs_f64();
        overlap += t.overlap.as_secs_f64();
        in_physics += w.ragdoll_count();
    }
    let per = |t: f64| t * 1e6 / (ticks * n) as f64;
    let g = host.world().physics_groups();
    println!(
        "{n} creatures, {} in physics on average ({} groups, largest {}): per creature-tick {:.1} µs: physics {:.1} (rapier {:.1}), locomotion {:.2}, the rest {:.1}",
        in_physics / ticks,
        g.groups,
        g.largest,
        per(whole),
        per(physics),
        per(rapier),
        per(loco),
        per(whole - physics - loco + overlap)
    );
    Ok(())
}

/// Second by second from 6 s: the tick's wall clock, physics and rapier's share, and who is in
/// physics (limp, recovering, settled rigs, asleep) with the groups — how a melee grows.
fn timeline(host: &mut skitter::script::ScriptHost, ticks: usize) {
    let (mut whole, mut physics, mut rapier) = (0.0, 0.0, 0.0);
    for t in 1..=ticks {
        let t0 = Instant::now();
        host.tick();
        whole += t0.elapsed().as_secs_f64();
        let w = host.world();
        physics += w.last_step_times().physics.as_secs_f64();
        rapier += w.last_step_times().rapier.as_secs_f64();
        if t % 60 == 0 {
            let limp = w
                .creatures()
                .iter()
                .filter(|c| c.ragdoll_state() == "limp")
                .count();
            let g = w.physics_groups();
            println!(
                "{:5.1} s: {:5.1} ms a tick (physics {:5.1}, rapier {:5.1}); in physics {} ({} limp, {} asleep), {} groups, largest {}",
                6.0 + t as f64 / 60.0,
                whole * 1e3 / 60.0,
                physics * 1e3 / 60.0,
                rapier * 1e3 / 60.0,
                w.ragdoll_count(),
                limp,
                w.sleeping_rigs(),
                g.groups,
                g.largest
            );
            (whole, physics, rapier) = (0.0, 0.0, 0.0);
        }
    }
}

/// The ragdoll bench's shoving soldiers: `n` in physics in two facing lines, shoved every
/// 2/3 s, from 1 s in.
fn shoving(dir: &std::path::Path, n: usize, ticks: usize, threads: usize) {
    use skitter::sim::TICK_DT;
    let host = scenes::host(dir);
    let mut w = host.world_mut();
    w.set_threads(threads);
    let ids = scenes::shoving(&mut w, n);
    let (mut whole, mut rapier) = (0.0, 0.0);
    for tick in 0..60 + ticks as u64 {
        scenes::shove(&mut w, &ids, tick);
        let t0 = Instant::now();
        w.step(TICK_DT);
        if tick >= 60 {
            whole += t0.elapsed().as_secs_f64();
            rapier += w.last_step_times().rapier.as_secs_f64();
        }
    }
    let per = |t: f64| t * 1e6 / (ticks * n) as f64;
    let g = w.physics_groups();
    println!(
        "{n} shoving soldiers ({} groups, largest {}): per creature-tick {:.1} µs: physics {:.1} (rapier {:.1})",
        g.groups,
        g.largest,
        per(whole),
        per(whole),
        per(rapier)
    );
}
