//! The bundled battle scene with `PER_ARMY` soldiers a side (default 500) from 6 s in, for
//! `TICKS` ticks (default 300) at `THREADS` threads (default 2): a target for a profiler
//! (`perf record -g target/release/examples/profile_battle`), printing where a tick goes.

use std::path::PathBuf;
use std::time::Instant;

use skitter::script::{HostOptions, ScriptHost};

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() -> std::io::Result<()> {
    let (per_army, ticks, threads) = (
        env_or("PER_ARMY", 500),
        env_or("TICKS", 300),
        env_or("THREADS", 2),
    );
    let scripts = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts");
    let dir = tempfile::tempdir()?;
    if std::env::var_os("SHOVE").is_some() {
        return shoving(&scripts, dir.path(), 2 * per_army, ticks, threads);
    }
    let m = dir.path().join("battle");
    std::fs::create_dir_all(&m)?;
    for f in ["mod.toml", "charger.lua", "main.lua"] {
        let src = std::fs::read_to_string(scripts.join("scenes/battle").join(f))?
            .replace(
                "local PER_ARMY = 100",
                &format!("local PER_ARMY = {per_army}"),
            )
            .replace(
                "local FILES = 20",
                &format!("local FILES = {}", per_army / 5),
            );
        std::fs::write(m.join(f), src)?;
    }
    let mut host = ScriptHost::new(HostOptions {
        max_ragdolls: 2 * per_army + 64,
        ..HostOptions::default()
    });
    host.load(&[
        scripts.join("arena"),
        scripts.join("spider"),
        scripts.join("brawl"),
        m,
    ]);
    for e in host.take_errors() {
        eprintln!("{e}");
    }
    host.world_mut().set_threads(threads);
    for _ in 0..360 {
        host.tick();
    }
    let n = host.world().creatures().len();
    let (mut whole, mut physics, mut rapier, mut loco, mut in_physics) = (0.0, 0.0, 0.0, 0.0, 0);
    for _ in 0..ticks {
        let t0 = Instant::now();
        host.tick();
        whole += t0.elapsed().as_secs_f64();
        let w = host.world();
        let t = w.last_step_times();
        physics += t.physics.as_secs_f64();
        rapier += t.rapier.as_secs_f64();
        loco += t.locomotion.as_secs_f64();
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
        per(whole - physics - loco)
    );
    Ok(())
}

/// The ragdoll bench's shoving soldiers: `n` in physics in two facing lines, shoved every
/// 2/3 s.
fn shoving(
    scripts: &std::path::Path,
    dir: &std::path::Path,
    n: usize,
    ticks: usize,
    threads: usize,
) -> std::io::Result<()> {
    use glam::Vec3;
    use skitter::sim::{Command, RagdollRequest, TICK_DT};
    let m = dir.join("bench");
    std::fs::create_dir_all(&m)?;
    std::fs::write(
        m.join("mod.toml"),
        "name = \"bench\"\nversion = \"0.1.0\"\n",
    )?;
    std::fs::copy(scripts.join("brawl/soldier.lua"), m.join("soldier.lua"))?;
    std::fs::write(
        m.join("main.lua"),
        "world.ground { size = vec3(80, 0, 80) }\nrequire('./soldier')\n",
    )?;
    let host = ScriptHost::new(HostOptions {
        max_ragdolls: 1000,
        ..HostOptions::default()
    });
    let mut host = host;
    host.load(&[m]);
    let mut w = host.world_mut();
    w.set_threads(threads);
    let Some(t) = w.type_by_name("bench/soldier") else {
        return Ok(());
    };
    let mut ids = Vec::new();
    for i in 0..n {
        let (row, k) = (i % 2, i / 2);
        let x = (k % 25) as f32 * 1.1 - 13.0;
        let z = (k / 25) as f32 * 2.6 + if row == 0 { -0.6 } else { 0.6 };
        let yaw = if row == 0 { 0.0 } else { std::f32::consts::PI };
        if let Some(id) = w.spawn(t, Vec3::new(x, 0.0, z), yaw) {
            let req = RagdollRequest {
                muscle: Some(0.7),
                duration: Some(skitter::sim::FOREVER),
                ..Default::default()
            };
            w.push(Command::Ragdoll(id, req));
            ids.push(id);
        }
    }
    let (mut whole, mut rapier) = (0.0, 0.0);
    for tick in 0..60 + ticks {
        if tick % 40 == 0 {
            for (i, id) in ids.iter().enumerate() {
                let dir = if i % 2 == 0 { Vec3::Z } else { Vec3::NEG_Z };
                w.push(Command::Hit(*id, dir, 0.8));
            }
        }
        let t0 = Instant::now();
        w.step(TICK_DT);
        if tick >= 60 {
            whole += t0.elapsed().as_secs_f64();
            rapier += w.last_step_times().rapier.as_secs_f64();
        }
    }
    let per = |t: f64| t * 1e6 / (ticks * n) as f64;
    println!(
        "{n} shoving soldiers: per creature-tick {:.1} µs: physics {:.1} (rapier {:.1})",
        per(whole),
        per(whole),
        per(rapier)
    );
    Ok(())
}
