//! Scenes the ragdoll benches and `examples/profile_battle` share: a flat ground with the
//! bundled spider and soldier types, soldiers shoving in rows, and the bundled battle scene.
//! Included by path (`#[path]`): a failure here is a broken bench.

#![allow(dead_code)] // each includer uses what it needs

use std::path::PathBuf;

use glam::Vec3;
use skitter::script::{HostOptions, ScriptHost};
use skitter::sim::{Command, CreatureId, RagdollRequest, World};

/// The bundled mods.
pub fn scripts() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts")
}

/// A flat 80 m ground with the bundled spider and soldier types (copied from their mods).
pub fn host(dir: &std::path::Path) -> ScriptHost {
    let m = dir.join("bench");
    std::fs::create_dir_all(&m).expect("mkdir");
    std::fs::write(
        m.join("mod.toml"),
        "name = \"bench\"\nversion = \"0.1.0\"\n",
    )
    .expect("write");
    for (from, to) in [
        ("spider/body.lua", "spider.lua"),
        ("brawl/soldier.lua", "soldier.lua"),
    ] {
        let src = std::fs::read_to_string(scripts().join(from)).expect("read");
        // The spider's default brain lives in its own mod: none here.
        std::fs::write(m.join(to), src.replace("behaviour = \"wander\",", "")).expect("write");
    }
    // The sound files the two types name, beside them.
    let sounds = m.join("assets/sounds");
    std::fs::create_dir_all(&sounds).expect("mkdir");
    for from in ["spider", "brawl"] {
        for f in std::fs::read_dir(scripts().join(from).join("assets/sounds")).expect("sounds") {
            let p = f.expect("entry").path();
            std::fs::copy(&p, sounds.join(p.file_name().expect("name"))).expect("copy");
        }
    }
    std::fs::write(
        m.join("main.lua"),
        "world.ground { size = vec3(80, 0, 80) }\nrequire('./spider')\nrequire('./soldier')\n",
    )
    .expect("write");
    let mut host = ScriptHost::new(HostOptions {
        max_ragdolls: 1000,
        ..HostOptions::default()
    });
    host.load(&[m]);
    assert!(host.take_errors().is_empty());
    host
}

/// Puts `id` in physics for good, its muscles at `muscle`.
pub fn ragdoll(w: &mut World, id: CreatureId, muscle: f32) {
    let req = RagdollRequest {
        muscle: Some(muscle),
        duration: Some(skitter::sim::FOREVER),
        ..Default::default()
    };
    w.push(Command::Ragdoll(id, req));
}

/// Two lines of `n / 2` soldiers in physics (muscles at 0.7: the balance help holds them
/// up), shoved at each other every 2/3 s.
pub fn shoving(w: &mut World, n: usize) -> Vec<CreatureId> {
    let t = w.type_by_name("bench/soldier").expect("soldier");
    let mut ids = Vec::new();
    for i in 0..n {
        let (row, k) = (i % 2, i / 2);
        let x = (k % 25) as f32 * 1.1 - 13.0;
        let z = (k / 25) as f32 * 2.6 + if row == 0 { -0.6 } else { 0.6 };
        let id = w
            .spawn(
                t,
                Vec3::new(x, 0.0, z),
                if row == 0 { 0.0 } else { std::f32::consts::PI },
            )
            .expect("spawn");
        ragdoll(w, id, 0.7);
        ids.push(id);
    }
    ids
}

/// Every 40 ticks each row is shoved at the row it faces.
pub fn shove(w: &mut World, ids: &[CreatureId], tick: u64) {
    if !tick.is_multiple_of(40) {
        return;
    }
    for (i, id) in ids.iter().enumerate() {
        let dir = if i % 2 == 0 { Vec3::Z } else { Vec3::NEG_Z };
        w.push(Command::Hit(*id, dir, 0.8));
    }
}

/// The bundled battle scene (`scripts/scenes/battle`: arena, spiders, brawl) with `per_army`
/// soldiers a side (and its 6 spiders a side), brains and all, from 6 s in (the armies have
/// met): whole ticks — Lua brains, locomotion, physics.
pub fn battle_host(dir: &std::path::Path, per_army: usize, threads: usize) -> ScriptHost {
    let m = dir.join(format!("battle{per_army}"));
    std::fs::create_dir_all(&m).expect("mkdir");
    let scene = scripts().join("scenes/battle");
    for f in ["mod.toml", "charger.lua", "main.lua"] {
        let src = std::fs::read_to_string(scene.join(f)).expect("read");
        let src = src
            .replace(
                "local PER_ARMY = 100",
                &format!("local PER_ARMY = {per_army}"),
            )
            // Wider ranks for a bigger army: the same depth of field.
            .replace(
                "local FILES = 20",
                &format!("local FILES = {}", per_army / 5),
            );
        std::fs::write(m.join(f), src).expect("write");
    }
    let mut host = ScriptHost::new(HostOptions {
        max_ragdolls: 2 * per_army + 64,
        ..HostOptions::default()
    });
    host.load(&[
        scripts().join("arena"),
        scripts().join("spider"),
        scripts().join("brawl"),
        m,
    ]);
    assert!(host.take_errors().is_empty());
    host.world_mut().set_threads(threads);
    for _ in 0..360 {
        host.tick();
    }
    host
}

/// `n` wandering spiders (the bundled spider and its brain) on flat ground, 1.6 m apart,
/// loaded with `opts` (its creature cap raised to fit).
pub fn crowd(dir: &std::path::Path, n: usize, opts: HostOptions) -> ScriptHost {
    let side = (n as f32).sqrt().ceil() as usize;
    let size = side as f32 * 1.6 + 20.0;
    let m = dir.join(format!("crowd{n}"));
    std::fs::create_dir_all(&m).expect("mkdir");
    std::fs::write(
        m.join("mod.toml"),
        format!("name = \"crowd{n}\"\nversion = \"0.1.0\"\ndepends = [\"spider\"]\n"),
    )
    .expect("write");
    std::fs::write(
        m.join("main.lua"),
        format!(
            "world.ground {{ size = vec3({size}, 0, {size}) }}\n\
             local half = {side} * 0.8\n\
             for i = 0, {n} - 1 do\n\
               world.spawn('spider/spider', {{ position = vec3(i % {side} * 1.6 - half, 0, math.floor(i / {side}) * 1.6 - half), yaw = i * 37 }})\n\
             end\n"
        ),
    )
    .expect("write");
    let mut host = ScriptHost::new(HostOptions {
        max_creatures: n + 10,
        ..opts
    });
    host.load(&[scripts().join("spider"), m]);
    assert!(host.take_errors().is_empty(), "the crowd loads");
    host
}

/// A crowd's tick split per spider-tick over `ticks` ticks of `host` (`n` spiders), µs:
/// (total, scripts — what is not the world's step —, navigation, locomotion, the crowd
/// navigation that ran beside locomotion).
pub fn crowd_split(host: &mut ScriptHost, n: usize, ticks: u32) -> [f64; 5] {
    let mut sum = [std::time::Duration::ZERO; 5];
    for _ in 0..ticks {
        let t0 = std::time::Instant::now();
        host.tick();
        let total = t0.elapsed();
        let st = host.world().last_step_times();
        let world = (st.navigation + st.locomotion + st.physics).saturating_sub(st.overlap);
        sum[0] += total;
        sum[1] += total.saturating_sub(world);
        sum[2] += st.navigation;
        sum[3] += st.locomotion;
        sum[4] += st.beside;
    }
    sum.map(|d| d.as_secs_f64() * 1e6 / (f64::from(ticks) * n as f64))
}

/// [`crowd_split`]'s figures in words.
pub fn split_line(s: &[f64; 5]) -> String {
    format!(
        "{:.2} µs per spider-tick = scripts {:.2} + navigation {:.2} + locomotion {:.2} (the crowd's navigation update beside it: {:.2}) + rest {:.2}",
        s[0],
        s[1],
        s[2],
        s[3],
        s[4],
        s[0] - s[1] - s[2] - s[3]
    )
}

/// A number from the environment variable `name`, else `default` (profiling examples).
pub fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `n` spiders of the bundled spider mod on the arena, 1 m apart in rows of 32, each told to
/// walk +z at 0.8 m/s (no brains), after `warm` ticks.
pub fn walking_spiders(n: usize, warm: usize) -> ScriptHost {
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(&[scripts().join("arena"), scripts().join("spider")]);
    {
        let mut w = host.world_mut();
        let t = w.type_by_name("spider/spider").expect("spider type");
        for i in 0..n {
            let p = Vec3::new((i % 32) as f32 - 16.0, 0.0, (i / 32 % 32) as f32 - 16.0);
            let id = w.spawn(t, p, i as f32).expect("spawned");
            w.push(Command::SetIntent(
                id,
                skitter::locomotion::Intent::Move {
                    dir: Vec3::Z,
                    speed: 0.8,
                    drop: false,
                },
            ));
        }
    }
    for _ in 0..warm {
        host.tick();
    }
    host
}
