//! Save-to-running latency of hot reload: a 300-line mod is saved (a value changed), the
//! watcher sees it, the mod reloads in a fresh state and its new code is active. Measured
//! from the write to the end of the reload, 100 saves; p50 and p95 are printed, and
//! criterion reports the mean. A second bench times the reload alone (no watcher). At scale:
//! the bundled spider's wander brain saved with 1000 wandering spiders alive (spawned by a
//! scene mod that depends on spider), 40 saves, p50 / p95 printed.

#![allow(clippy::expect_used, missing_docs)] // bench set-up: a failure is a broken bench; criterion macros make undocumented items

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use skitter::script::{HostOptions, ScriptHost};

/// A mod of exactly 300 lines: level, a creature type, a behaviour, helpers, spawns.
fn source(step: f32) -> String {
    let mut s = String::new();
    s.push_str("world.ground { size = vec3(40, 0, 40), noise = { amplitude = 0.2, scale = 6, seed = 3 } }\n");
    s.push_str("local legs, H = {}, {}\n");
    s.push_str("for i, z in ipairs({ 0.25, 0, -0.25 }) do\n");
    s.push_str("  for _, side in ipairs({ { 'L', 1 }, { 'R', -1 } }) do\n");
    s.push_str("    table.insert(legs, { name = side[1] .. i, hip = vec3(0.12 * side[2], 0, z), rest = vec3(0.5 * side[2], -0.3, z * 1.6), segments = { 0.32, 0.4 } })\n");
    s.push_str("  end\nend\n");
    s.push_str(&format!(
        "creature.define {{ name = 'critter', body = {{ size = vec3(0.36, 0.16, 0.6), height = 0.3 }}, legs = legs, gait = {{ step_height = {step}, groups = {{ {{ 'L1', 'R2', 'L3' }}, {{ 'R1', 'L2', 'R3' }} }} }}, behaviour = 'roam' }}\n"
    ));
    s.push_str("behaviour.define { name = 'roam', params = { speed = 1 },\n");
    s.push_str("  on_update = function(self, dt) self:move(vec3(math.sin(self.id), 0, math.cos(self.id)), self.params.speed) end }\n");
    let mut lines = s.lines().count();
    let mut i = 0;
    while lines < 290 {
        s.push_str(&format!(
            "function H.helper_{i}(x) return x * {i} + {step} end\n"
        ));
        lines += 1;
        i += 1;
    }
    while lines < 300 {
        let k = lines - 290;
        s.push_str(&format!(
            "world.spawn('critter', {{ position = vec3({}, 0, {}) }})\n",
            k as f32 * 2.0 - 9.0,
            (k % 3) as f32 * 2.0
        ));
        lines += 1;
    }
    s
}

fn setup(dir: &Path) -> (ScriptHost, PathBuf) {
    let m = dir.join("big");
    std::fs::create_dir_all(&m).expect("mkdir");
    std::fs::write(m.join("mod.toml"), "name = \"big\"\nversion = \"0.1.0\"\n").expect("toml");
    std::fs::write(m.join("main.lua"), source(0.1)).expect("main");
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(std::slice::from_ref(&m));
    let errors = host.take_errors();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(host.world().creatures().len(), 10);
    host.watch().expect("watch");
    (host, m)
}

/// One save: write, then poll (as the window and `--realtime` do between ticks, here
/// without the tick wait) until the reload is done. Returns write → active.
fn save(host: &mut ScriptHost, m: &Path, k: u32) -> Duration {
    let src = source(0.1 + (k % 7) as f32 * 0.01);
    let t0 = Instant::now();
    std::fs::write(m.join("main.lua"), src).expect("write");
    loop {
        let r = host.poll_reloads();
        if let Some(r) = r.first() {
            assert!(r.ok, "{:?}", r.error);
            return t0.elapsed();
        }
        assert!(t0.elapsed() < Duration::from_secs(5), "no reload seen");
        std::thread::sleep(Duration::from_micros(200));
    }
}

fn reload(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tmp");
    let (mut host, m) = setup(dir.path());
    // 100 saves for the percentiles.
    let mut times: Vec<f64> = (0..100)
        .map(|k| {
            host.tick();
            save(&mut host, &m, k).as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    println!(
        "save-to-running over 100 saves of a 300-line mod: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        times[49], times[94], times[99]
    );
    let mut g = c.benchmark_group("reload");
    g.sample_size(20);
    let mut k = 1000;
    g.bench_function("save_to_running_300_lines", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                k += 1;
                total += save(&mut host, &m, k);
            }
            total
        })
    });
    let changed = BTreeMap::from([("big".to_string(), vec![PathBuf::from("main.lua")])]);
    g.bench_function("reload_only_300_lines", |b| {
        b.iter(|| {
            let r = host.reload(&changed);
            assert!(r[0].ok);
        })
    });
    g.finish();
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read").flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).expect("copy");
        }
    }
}

/// The bundled spider (copied, to be saved) and a scene mod that only spawns `n` of them.
fn crowd(dir: &Path, n: usize) -> (ScriptHost, PathBuf) {
    let spider = dir.join("spider");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/spider"),
        &spider,
    );
    let scene = dir.join("scene");
    std::fs::create_dir_all(&scene).expect("mkdir");
    std::fs::write(
        scene.join("mod.toml"),
        "name = \"scene\"\nversion = \"0.1.0\"\ndepends = [\"spider\"]\n",
    )
    .expect("toml");
    let side = (n as f32).sqrt().ceil() as usize;
    std::fs::write(
        scene.join("main.lua"),
        format!(
            "world.ground {{ size = vec3(120, 0, 120) }}\nfor i = 0, {} do world.spawn('spider/spider', {{ position = vec3((i % {side}) * 2 - {side}, 0, (i // {side}) * 2 - {side}) }}) end\n",
            n - 1
        ),
    )
    .expect("main");
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(&[spider.clone(), scene]);
    let errors = host.take_errors();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(host.world().creatures().len(), n);
    for _ in 0..30 {
        host.tick();
    }
    host.watch().expect("watch");
    (host, spider)
}

/// A save of the wander brain (a pause changed): write → the spider mod's new code running.
fn save_brain(host: &mut ScriptHost, spider: &Path, k: u32) -> Duration {
    let file = spider.join("brains/wander.lua");
    let src = std::fs::read_to_string(&file).expect("read");
    let base = src.split("\n-- save ").next().unwrap_or(&src).to_string();
    let t0 = Instant::now();
    std::fs::write(&file, format!("{base}\n-- save {k}\n")).expect("write");
    loop {
        let r = host.poll_reloads();
        if !r.is_empty() {
            assert!(r.iter().all(|r| r.ok), "{r:?}");
            return t0.elapsed();
        }
        assert!(t0.elapsed() < Duration::from_secs(10), "no reload seen");
        std::thread::sleep(Duration::from_micros(200));
    }
}

fn reload_at_scale(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tmp");
    let (mut host, spider) = crowd(dir.path(), 1000);
    // Per save: the save-to-running time (the new code running, the first brains on it),
    // the frames after it while the rest of the brains move over, and a plain frame.
    let (mut times, mut moving, mut plain, mut frames, mut all) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for k in 0..40 {
        let t0 = Instant::now();
        host.tick();
        plain.push(t0.elapsed().as_secs_f64() * 1e3);
        let first = save_brain(&mut host, &spider, k);
        times.push(first.as_secs_f64() * 1e3);
        let mut spent = first;
        let mut n = 0;
        while host.brains_migrating() > 0 {
            let t0 = Instant::now();
            host.tick();
            let dt = t0.elapsed();
            spent += dt;
            moving.push(dt.as_secs_f64() * 1e3);
            n += 1;
        }
        frames.push(n);
        all.push(spent.as_secs_f64() * 1e3);
    }
    let pct = |v: &mut Vec<f64>, p: f64| {
        v.sort_by(f64::total_cmp);
        v[((v.len() - 1) as f64 * p).round() as usize]
    };
    println!(
        "save-to-running of spider/brains/wander.lua with 1000 wandering spiders alive, 40 saves: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        pct(&mut times, 0.5),
        pct(&mut times, 0.95),
        pct(&mut times, 1.0)
    );
    println!(
        "  then {}-{} more ticks move the rest of the brains: a tick while they move p50 {:.1} ms, max {:.1} ms (a plain tick p50 {:.1} ms); save to every brain on the new code p50 {:.1} ms, p95 {:.1} ms of work",
        frames.iter().min().expect("saves"),
        frames.iter().max().expect("saves"),
        pct(&mut moving, 0.5),
        pct(&mut moving, 1.0),
        pct(&mut plain, 0.5),
        pct(&mut all, 0.5),
        pct(&mut all, 0.95)
    );
    let mut g = c.benchmark_group("reload_at_scale");
    g.sample_size(10);
    let changed = BTreeMap::from([(
        "spider".to_string(),
        vec![PathBuf::from("brains/wander.lua")],
    )]);
    // The scene mod itself saved (it spawns the 1 000: each spawn is matched to a live
    // creature, which keeps its place and state): the reload call alone.
    let scene = BTreeMap::from([("scene".to_string(), vec![PathBuf::from("main.lua")])]);
    g.bench_function("reload_scene_1000_alive", |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            for _ in 0..iters {
                let t0 = Instant::now();
                let r = host.reload(&scene);
                spent += t0.elapsed();
                assert!(r.iter().all(|r| r.ok), "{r:?}");
                assert_eq!(host.world().creatures().len(), 1000);
                while host.brains_migrating() > 0 {
                    host.tick();
                }
            }
            spent
        })
    });
    // The reload call alone: the work done in the frame of the save (the rest of the
    // brains move in the ticks after it, untimed here: reported above).
    g.bench_function("reload_spider_1000_alive", |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            for _ in 0..iters {
                let t0 = Instant::now();
                let r = host.reload(&changed);
                spent += t0.elapsed();
                assert!(r.iter().all(|r| r.ok));
                while host.brains_migrating() > 0 {
                    host.tick();
                }
            }
            spent
        })
    });
    g.finish();
}

criterion_group!(benches, reload, reload_at_scale);
criterion_main!(benches);
