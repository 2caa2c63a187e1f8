//! Model creatures (issue 29): posing a skeleton on the CPU — µs per bone-tick for 1 000
//! model spiders (the shared spider model, 57 joints) — and what models add to a crowd's
//! frame: 1 000 wandering spiders ticked and captured for drawing (the capture is where
//! model creatures are posed), as the bundled capsule spider and as the model spider; and
//! the two crowds ticked in turn (`tick_added_by_models`), so that the machine's load falls
//! on both alike; and what the model's spring chains add to its crowd's tick
//! (`tick_added_by_springs`, issue 47: the same crowd with them stopped, in turn); and a
//! model loaded again, parsed or kept (`model_load`).

#![allow(clippy::expect_used, missing_docs)] // bench set-up: a failure is a broken bench; criterion macros make undocumented items

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use skitter::script::{HostOptions, ScriptHost};
use skitter::sim::{pose_creature, PoseScratch, Snapshot};

const N: usize = 1000;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `N` wandering spiders on flat ground 1.6 m apart: the bundled spider, or (`model`) a type
/// drawn with the shared spider model and the same wander brain.
fn crowd(dir: &Path, model: bool) -> ScriptHost {
    crowd_with(dir, model, true)
}

/// [`crowd`], the model's spring chains (its abdomen and two jaws) swinging or stopped.
fn crowd_with(dir: &Path, model: bool, springs: bool) -> ScriptHost {
    let name = match (model, springs) {
        (false, _) => "capsules",
        (true, true) => "models",
        (true, false) => "stiff",
    };
    let off = if springs {
        ""
    } else {
        ", springs = { off = { \"Body.001\", \"JawBase.L\", \"JawBase.R\" } }"
    };
    let m = dir.join(name);
    std::fs::create_dir_all(m.join("assets")).expect("mkdir");
    for f in ["spider.gltf", "gltf_spider.png"] {
        std::fs::copy(
            root().join("../shared/assets/spider").join(f),
            m.join("assets").join(f),
        )
        .expect("the shared spider model (../shared/assets/spider)");
    }
    std::fs::write(
        m.join("mod.toml"),
        format!("name = \"{name}\"\nversion = \"0.1.0\"\ndepends = [\"spider\"]\n"),
    )
    .expect("write");
    let side = (N as f32).sqrt().ceil() as usize;
    let size = side as f32 * 1.6 + 20.0;
    let ty = if model { "ms" } else { "spider/spider" };
    std::fs::write(
        m.join("main.lua"),
        format!(
            "creature.define {{ name = \"ms\", model = {{ file = \"assets/spider.gltf\", texture = \"assets/gltf_spider.png\", scale = 0.25{off} }}, behaviour = \"spider/wander\" }}\n\
             world.ground {{ size = vec3({size}, 0, {size}) }}\n\
             local half = {side} * 0.8\n\
             for i = 0, {N} - 1 do\n\
               world.spawn('{ty}', {{ position = vec3(i % {side} * 1.6 - half, 0, math.floor(i / {side}) * 1.6 - half), yaw = i * 37 }})\n\
             end\n"
        ),
    )
    .expect("write");
    let mut host = ScriptHost::new(HostOptions {
        max_creatures: N + 10,
        ..HostOptions::default()
    });
    host.load(&[root().join("scripts/spider"), m]);
    assert!(host.take_errors().is_empty(), "the crowd loads");
    for _ in 0..90 {
        host.tick();
    }
    host
}

fn models(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tmp");
    let mut group = c.benchmark_group("model");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5))
        .warm_up_time(Duration::from_secs(1));
    let mut host = crowd(dir.path(), true);
    let joints = {
        let w = host.world();
        let t = w.creature_type(w.creatures()[0].type_id).expect("type");
        t.model.as_ref().expect("a model type").model.joints.len()
    };
    // Posing alone: every model spider once per iteration.
    let mut scratch = PoseScratch::default();
    group.throughput(Throughput::Elements((N * joints) as u64));
    group.bench_function(
        BenchmarkId::new("pose_bone", format!("{N}x{joints}")),
        |b| {
            b.iter_custom(|iters| {
                let w = host.world();
                let t0 = Instant::now();
                for _ in 0..iters {
                    for c in w.creatures() {
                        let m = w
                            .creature_type(c.type_id)
                            .and_then(|t| t.model.as_deref())
                            .expect("model");
                        pose_creature(c, m, 0.0, &mut scratch);
                    }
                }
                t0.elapsed()
            })
        },
    );
    // A crowd's frame: the tick, then the capture a frame draws from.
    group.throughput(Throughput::Elements(N as u64));
    let mut snap = Snapshot::default();
    for (what, model) in [("capsule_spiders", false), ("model_spiders", true)] {
        if !model {
            host = crowd(dir.path(), false);
        } else {
            host = crowd(dir.path(), true);
        }
        group.bench_function(BenchmarkId::new("tick", format!("{what}/{N}")), |b| {
            b.iter_custom(|iters| {
                let t0 = Instant::now();
                for _ in 0..iters {
                    host.tick();
                }
                t0.elapsed()
            })
        });
        group.bench_function(
            BenchmarkId::new("tick_and_capture", format!("{what}/{N}")),
            |b| {
                b.iter_custom(|iters| {
                    let t0 = Instant::now();
                    for _ in 0..iters {
                        host.tick();
                        snap.capture(&host.world());
                    }
                    t0.elapsed()
                })
            },
        );
    }
    // What models add, measured so this machine's load falls on both alike: the two
    // crowds ticked in turn, tick by tick; the time is the model crowd's ticks less the
    // capsule crowd's, and the ratio of their totals is printed.
    let mut capsules = crowd(dir.path(), false);
    let mut spiders = crowd(dir.path(), true);
    let (mut all_c, mut all_m, mut ticks) = (Duration::ZERO, Duration::ZERO, 0u64);
    group.bench_function(BenchmarkId::new("tick_added_by_models", N), |b| {
        b.iter_custom(|iters| {
            let (mut c, mut m) = (Duration::ZERO, Duration::ZERO);
            for _ in 0..iters {
                let t0 = Instant::now();
                capsules.tick();
                let t1 = Instant::now();
                spiders.tick();
                c += t1 - t0;
                m += t1.elapsed();
            }
            all_c += c;
            all_m += m;
            ticks += iters;
            m.saturating_sub(c)
        })
    });
    // What the spring chains add (issue 47): the model crowd with its three chains a spider
    // swinging, and with them stopped, ticked in turn (each first every other time).
    let mut stiff = crowd_with(dir.path(), true, false);
    let (mut all_s, mut all_w) = (Duration::ZERO, Duration::ZERO);
    // Each pair of ticks' ratio: their median shrugs off a tick the machine's load hit.
    let mut ratios = Vec::new();
    group.bench_function(BenchmarkId::new("tick_added_by_springs", N), |b| {
        b.iter_custom(|iters| {
            let (mut s, mut w) = (Duration::ZERO, Duration::ZERO);
            for _ in 0..iters {
                // Which goes first alternates: neither always follows the other's mess.
                let first = ratios.len() % 2 == 0;
                let t0 = Instant::now();
                if first {
                    stiff.tick();
                } else {
                    spiders.tick();
                }
                let t1 = Instant::now();
                if first {
                    spiders.tick();
                } else {
                    stiff.tick();
                }
                let (x, y) = (t1 - t0, t1.elapsed());
                let (a, b) = if first { (x, y) } else { (y, x) };
                ratios.push(b.as_secs_f64() / a.as_secs_f64().max(1e-12));
                s += a;
                w += b;
            }
            all_s += s;
            all_w += w;
            w.saturating_sub(s)
        })
    });
    ratios.sort_by(f64::total_cmp);
    eprintln!(
        "model/tick_added_by_springs: with springs / without, interleaved = {:.3} (totals), {:.3} (median of {} pairs of ticks)",
        all_w.as_secs_f64() / all_s.as_secs_f64().max(1e-12),
        ratios.get(ratios.len() / 2).copied().unwrap_or(f64::NAN),
        ratios.len(),
    );
    group.finish();
    eprintln!(
        "model/tick_added_by_models: model spiders' ticks / capsule spiders' ticks, interleaved = {:.3} ({:.3} ms vs {:.3} ms a tick)",
        all_m.as_secs_f64() / all_c.as_secs_f64().max(1e-12),
        1e3 * all_m.as_secs_f64() / ticks.max(1) as f64,
        1e3 * all_c.as_secs_f64() / ticks.max(1) as f64,
    );
}

/// A model file loaded again (issue 49, hitches): parsed from its files, against answered
/// from the models kept (what a script-only save of its mod does now: the files' sizes and
/// times checked, nothing read or parsed). The shared knight, a 3.6 MB GLB.
fn model_loads(c: &mut Criterion) {
    let mut group = c.benchmark_group("model_load");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_secs(1));
    let root = root().join("../shared/assets/knight");
    let src = skitter::model::Source {
        root: &root,
        mod_name: "knight",
        file: "knight.glb",
        texture: None,
        hide: &[],
    };
    let limits = skitter::model::LoadLimits::default();
    group.bench_function("knight_glb/parsed", |b| {
        b.iter(|| skitter::model::load(&src, &limits).expect("loads"))
    });
    group.bench_function("knight_glb/kept", |b| {
        b.iter(|| skitter::model::load_shared(&src, &limits).expect("loads"))
    });
    group.finish();
}

criterion_group!(benches, models, model_loads);
criterion_main!(benches);
