//! Shared helpers for the integration tests: run the CLI, build throwaway mods, read traces
//! and measure locomotion quality from them.
#![allow(dead_code, clippy::expect_used, clippy::unwrap_used)] // test helpers: a failure is a failed test

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A bundled mod folder.
pub fn bundled(name: &str) -> PathBuf {
    root().join("scripts").join(name)
}

/// A test fixture mod folder.
pub fn fixture(name: &str) -> PathBuf {
    root().join("tests/fixtures").join(name)
}

/// How long any `skitter` run of the tests may take before it counts as hung.
pub const HUNG: Duration = Duration::from_secs(300);
/// How long a run that a CPU or memory budget must stop may take.
pub const BUDGET_WATCHDOG: Duration = Duration::from_secs(30);
/// What a run past [`BUDGET_WATCHDOG`] means.
pub const BUDGET_NEVER_FIRED: &str = "the budget never fired";

/// Runs `skitter` with `args` in the repository root.
pub fn skitter(args: &[&str]) -> Output {
    skitter_within(args, HUNG, "skitter hung")
}

/// Runs `skitter` with `args`, killing it and failing with `why` if it runs past `limit`
/// (a watchdog: a broken budget fails the test instead of hanging the suite).
/// Runs the skitter binary as if there were no display (no `DISPLAY`, no `WAYLAND_DISPLAY`).
pub fn skitter_without_display(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skitter"))
        .args(args)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("runs")
}

pub fn skitter_within(args: &[&str], limit: Duration, why: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_skitter"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("skitter runs");
    // Drain both pipes while waiting, so a chatty child never blocks on a full one.
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("stdout")));
    let err = drain(Box::new(child.stderr.take().expect("stderr")));
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{why}: skitter {} still running after {} s",
                args.join(" "),
                limit.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: out.join().expect("stdout"),
        stderr: err.join().expect("stderr"),
    }
}

/// Runs `f` on its own thread; fails with `why` if it has not returned within `limit`
/// (for in-process runs a budget must stop).
pub fn within<T: Send + 'static>(
    limit: Duration,
    why: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    let worker = std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(limit) {
        Ok(v) => v,
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            // It panicked: pass its failure on.
            match worker.join() {
                Err(e) => std::panic::resume_unwind(e),
                Ok(()) => panic!("{why}: the worker ended without a result"),
            }
        }
        Err(_) => panic!("{why}: still running after {} s", limit.as_secs()),
    }
}

/// Text of stdout and stderr together.
pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Runs one headless tick of the spider and walkers mods plus `m` (to read what `m` logs).
pub fn one_tick_beside_walkers(m: &Path) -> Output {
    ticks_beside_walkers(m, 1, &[])
}

/// Runs `frames` headless ticks of the spider and walkers mods plus `m`, with `extra`
/// options.
pub fn ticks_beside_walkers(m: &Path, frames: u32, extra: &[&str]) -> Output {
    let (spider, walkers) = (bundled("spider"), fixture("walkers"));
    run_headless(frames, &[&spider, &walkers, m], extra)
}

/// Runs `frames` headless ticks of `mods` (in that order), with `extra` options.
pub fn run_headless(frames: u32, mods: &[&Path], extra: &[&str]) -> Output {
    let mut args: Vec<String> = ["run", "--headless", "--frames"].map(String::from).into();
    args.push(frames.to_string());
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(mods.iter().map(|p| p.display().to_string()));
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    skitter(&argv)
}

/// Copies a folder (a bundled mod, to be edited by a test).
pub fn copy_dir(from: &Path, to: &Path) {
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

/// A throwaway mod folder: `files` are (relative path, contents); a mod.toml is written
/// unless one is given.
pub fn temp_mod(parent: &Path, name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = parent.join(name);
    std::fs::create_dir_all(&dir).expect("mkdir");
    if !files.iter().any(|(p, _)| *p == "mod.toml") {
        std::fs::write(
            dir.join("mod.toml"),
            format!(
                "name = \"{name}\"\nversion = \"0.1.0\"\ndepends = [\"spider\", \"walkers\"]\n"
            ),
        )
        .expect("write");
    }
    for (p, src) in files {
        let path = dir.join(p);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, src).expect("write");
    }
    dir
}

/// Runs headless for `frames` ticks over `mods`, writing the trace into `dir`; returns the
/// process output and the parsed trace.
pub fn run_trace(dir: &Path, frames: u32, mods: &[PathBuf], extra: &[&str]) -> (Output, Trace) {
    run_trace_within(dir, frames, mods, extra, HUNG, "skitter hung")
}

/// [`run_trace`] with a watchdog of `limit` that fails with `why`.
pub fn run_trace_within(
    dir: &Path,
    frames: u32,
    mods: &[PathBuf],
    extra: &[&str],
    limit: Duration,
    why: &str,
) -> (Output, Trace) {
    let trace = dir.join(format!(
        "trace-{}.jsonl",
        std::process::id() as u64 ^ frames as u64 ^ mods.len() as u64
    ));
    let frames_s = frames.to_string();
    let mut args: Vec<String> = vec!["run", "--headless", "--frames", &frames_s, "--trace"]
        .into_iter()
        .map(String::from)
        .collect();
    args.push(trace.display().to_string());
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(mods.iter().map(|m| m.display().to_string()));
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = skitter_within(&argv, limit, why);
    let text = std::fs::read_to_string(&trace).unwrap_or_default();
    (out, Trace::parse(&text))
}

/// Every creature's trace lines, as JSON, by id (the trace parsed once; event lines left
/// out).
pub fn by_id(text: &str) -> BTreeMap<u64, Vec<Value>> {
    let mut out: BTreeMap<u64, Vec<Value>> = BTreeMap::new();
    for l in text.lines() {
        let v: Value = serde_json::from_str(l).expect("json");
        if let (Some(id), None) = (v["id"].as_u64(), v.get("event")) {
            out.entry(id).or_default().push(v);
        }
    }
    out
}

/// A trace line's vector (`[x, y, z]`).
pub fn v3(v: &Value) -> [f64; 3] {
    let a = v.as_array().expect("a vector");
    [0, 1, 2].map(|i| a[i].as_f64().expect("a finite number"))
}

/// The text of the trace [`run_trace`] wrote in `dir`.
pub fn trace_text(dir: &Path) -> String {
    std::fs::read_dir(dir)
        .expect("dir")
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("trace-"))
        .map(|e| std::fs::read_to_string(e.path()).expect("trace"))
        .expect("a trace")
}

/// One foot in one trace line.
#[derive(Clone, Debug)]
pub struct Foot {
    pub leg: String,
    pub pos: Option<[f64; 3]>,
    pub target: Option<[f64; 3]>,
    pub grounded: bool,
    pub ground: Option<[f64; 3]>,
    pub reach: Option<f64>,
    /// Hip, knee(s), foot.
    pub joints: Vec<[f64; 3]>,
    /// The knee's pole direction.
    pub pole: Option<[f64; 3]>,
}

/// One creature in one tick.
#[derive(Clone, Debug)]
pub struct Rec {
    pub frame: u64,
    pub id: u64,
    pub ty: String,
    pub pos: Option<[f64; 3]>,
    pub rot: Option<[f64; 4]>,
    pub vel: Option<[f64; 3]>,
    pub fwd: Option<[f64; 3]>,
    /// The `lean` object: roll, pitch, target_roll, target_pitch, yaw_rate (degrees).
    pub lean: Value,
    pub feet: Vec<Foot>,
    /// In the air or being caught after a fall.
    pub falling: bool,
    /// In the push-off or the flight of a jump (trace `jump` = "push" or "flight"): the
    /// legs' push and a ballistic arc, measured apart.
    pub flight: bool,
    /// Crouching for a jump (trace `jump` = "crouch"): a deliberate dip of a quarter of the
    /// body's height, on top of whatever the ground under it does.
    pub crouch: bool,
    /// The ground under the body.
    pub floor: Option<[f64; 3]>,
    /// Where its navmesh agent goes, if it has one.
    pub dest: Option<[f64; 3]>,
    /// In physics (an active ragdoll): the locomotion measures skip these records.
    pub ragdoll: bool,
    /// `animated`, `limp` or `recovering`.
    pub ragdoll_state: String,
    /// Rigid parts (centre, rotation) while in physics.
    pub parts: Vec<([f64; 3], [f64; 4])>,
    /// Each arm's end (a flyer's dangling legs' too), when it has arms.
    pub hands: Vec<[f64; 3]>,
    /// How its brain stands ("running", "paused", "detached", "suspended"), if it has one.
    pub brain: Option<String>,
    /// The gait style it steps in (types with `gait.styles`).
    pub style: Option<String>,
    /// A network viewer's line: the server time it shows.
    pub server_time: Option<f64>,
}

impl Rec {
    /// Where its planted feet are.
    pub fn planted(&self) -> Vec<[f64; 3]> {
        self.feet
            .iter()
            .filter(|f| f.grounded)
            .filter_map(|f| f.pos)
            .collect()
    }

    /// Its footing: where its planted feet stand and where its swinging ones will land (a
    /// step from now, what the body stands on). Over an edge the planted feet alone can be
    /// all on one side of it while the swinging ones go down the other: their plane is then
    /// not what the body stands over.
    pub fn footing(&self) -> Vec<[f64; 3]> {
        self.feet
            .iter()
            .filter_map(|f| if f.grounded { f.pos } else { f.target })
            .collect()
    }

    /// A lean field, degrees (or deg/s); NaN when missing.
    pub fn lean(&self, key: &str) -> f64 {
        self.lean[key].as_f64().unwrap_or(f64::NAN)
    }
}

/// A parsed trace.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub recs: Vec<Rec>,
    pub events: Vec<Value>,
}

fn arr<const N: usize>(v: &Value) -> Option<[f64; N]> {
    let a = v.as_array()?;
    if a.len() != N {
        return None;
    }
    let mut out = [0.0; N];
    for (i, x) in a.iter().enumerate() {
        out[i] = x.as_f64()?;
    }
    Some(out)
}

impl Trace {
    /// Parses JSON Lines; panics on a line that is not JSON.
    pub fn parse(text: &str) -> Trace {
        let mut t = Trace::default();
        for line in text.lines() {
            let v: Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("bad trace line {line}: {e}"));
            if v.get("event").is_some() {
                t.events.push(v);
                continue;
            }
            let feet = v["feet"]
                .as_array()
                .expect("feet")
                .iter()
                .map(|f| Foot {
                    leg: f["leg"].as_str().unwrap_or("").to_string(),
                    pos: arr(&f["pos"]),
                    target: arr(&f["target"]),
                    grounded: f["grounded"].as_bool().expect("grounded"),
                    ground: arr(&f["ground"]),
                    reach: f["reach"].as_f64(),
                    joints: f["joints"]
                        .as_array()
                        .map(|a| a.iter().filter_map(arr).collect())
                        .unwrap_or_default(),
                    pole: arr(&f["pole"]),
                })
                .collect();
            t.recs.push(Rec {
                frame: v["frame"].as_u64().expect("frame"),
                id: v["id"].as_u64().expect("id"),
                ty: v["type"].as_str().unwrap_or("").to_string(),
                pos: arr(&v["pos"]),
                rot: arr(&v["rot"]),
                vel: arr(&v["vel"]),
                fwd: arr(&v["fwd"]),
                lean: v["lean"].clone(),
                feet,
                falling: v["falling"].as_bool().unwrap_or(false),
                flight: matches!(v["jump"].as_str(), Some("push" | "flight")),
                crouch: v["jump"].as_str() == Some("crouch"),
                brain: v["brain"].as_str().map(String::from),
                style: v["style"].as_str().map(String::from),
                server_time: v["server_time"].as_f64(),
                floor: arr(&v["floor"]),
                dest: arr(&v["dest"]),
                ragdoll: v["ragdoll"].as_bool().expect("ragdoll"),
                ragdoll_state: v["ragdoll_state"].as_str().unwrap_or("").to_string(),
                parts: v["parts"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|p| Some((arr(&p["p"])?, arr(&p["q"])?)))
                            .collect()
                    })
                    .unwrap_or_default(),
                hands: v["hands"]
                    .as_array()
                    .map(|a| a.iter().filter_map(arr).collect())
                    .unwrap_or_default(),
            });
        }
        t
    }

    /// Records of one creature, in frame order.
    pub fn of(&self, id: u64) -> Vec<&Rec> {
        self.recs.iter().filter(|r| r.id == id).collect()
    }

    /// Creature ids in the trace.
    pub fn ids(&self) -> Vec<u64> {
        let mut ids: Vec<u64> = self.recs.iter().map(|r| r.id).collect();
        ids.sort();
        ids.dedup();
        ids
    }

    /// Error events.
    pub fn errors(&self) -> Vec<&Value> {
        self.events
            .iter()
            .filter(|e| e["event"] == "error")
            .collect()
    }

    /// The creatures that arrived (at a destination, or the end of a path followed once).
    pub fn arrived(&self) -> std::collections::BTreeSet<u64> {
        self.events
            .iter()
            .filter(|e| e["event"] == "arrive")
            .filter_map(|e| e["id"].as_u64())
            .collect()
    }
}

/// Locomotion quality measured from a trace (product.md, "Locomotion quality, measured").
#[derive(Clone, Debug, Default)]
pub struct Quality {
    /// Largest horizontal travel of a foot within one stance, metres.
    pub max_slide: f64,
    /// Largest |foot.y − ground.y| while grounded, metres.
    pub max_ground_error: f64,
    /// Grounded feet with no ground under them.
    pub grounded_without_ground: usize,
    /// Fewest feet grounded in any creature-tick, per creature type.
    pub min_grounded: BTreeMap<String, usize>,
    /// Share of foot-frames with reach > 1.
    pub overreach: f64,
    /// Missing or non-finite numbers.
    pub nan: usize,
    /// Steps (foot landings) seen.
    pub landings: usize,
    /// Horizontal displacement (start → end) per creature.
    pub displacement: BTreeMap<u64, f64>,
    /// Lowest clearance (body height above its grounded feet, [`support_height`]) over its median
    /// for the run, worst creature: (ratio, id, frame).
    pub min_clearance: (f64, u64, u64),
    /// Frames where the body is below the ground under it: (count, first id, frame).
    pub below_floor: (usize, u64, u64),
    /// Largest |second difference of body y| in mm/frame² outside falls: (mm, id, frame).
    pub max_accel: (f64, u64, u64),
    /// The same during falls and their landings.
    pub max_fall_accel: (f64, u64, u64),
    /// Knees on the wrong side of their hip–foot line (relative to their pole).
    pub knee_flips: (usize, u64, u64),
    /// Creature-frames in a fall or its landing.
    pub falling_frames: usize,
}

/// Measures a trace.
pub fn quality(t: &Trace) -> Quality {
    let mut q = Quality::default();
    let mut stance: BTreeMap<(u64, String), [f64; 3]> = BTreeMap::new();
    let mut was_grounded: BTreeMap<(u64, String), bool> = BTreeMap::new();
    let (mut foot_frames, mut over) = (0usize, 0usize);
    let mut first: BTreeMap<u64, [f64; 3]> = BTreeMap::new();
    let mut last: BTreeMap<u64, [f64; 3]> = BTreeMap::new();
    for r in &t.recs {
        if r.ragdoll {
            // In physics: no stance survives it (the stepper replants on the hand-off).
            stance.retain(|(id, _), _| *id != r.id);
            was_grounded.retain(|(id, _), _| *id != r.id);
            continue;
        }
        match r.pos {
            Some(p) => {
                first.entry(r.id).or_insert(p);
                last.insert(r.id, p);
            }
            None => q.nan += 1,
        }
        q.nan += r.rot.is_none() as usize + r.vel.is_none() as usize;
        for k in ["roll", "pitch", "target_roll", "target_pitch", "yaw_rate"] {
            q.nan += !r.lean(k).is_finite() as usize;
        }
        let mut grounded = 0;
        for f in &r.feet {
            foot_frames += 1;
            let (Some(p), Some(_), Some(reach)) = (f.pos, f.target, f.reach) else {
                q.nan += 1;
                continue;
            };
            if reach > 1.0 {
                over += 1;
            }
            let key = (r.id, f.leg.clone());
            let before = was_grounded.insert(key.clone(), f.grounded);
            if f.grounded {
                grounded += 1;
                if before == Some(false) {
                    q.landings += 1;
                }
                match f.ground {
                    Some(g) => q.max_ground_error = q.max_ground_error.max((p[1] - g[1]).abs()),
                    None => q.grounded_without_ground += 1,
                }
                let start = *stance.entry(key).or_insert(p);
                q.max_slide = q
                    .max_slide
                    .max(((p[0] - start[0]).powi(2) + (p[2] - start[2]).powi(2)).sqrt());
            } else {
                stance.remove(&key);
            }
        }
        // In the air, and pushing off (its feet leave as its legs straighten), it stands
        // on fewer.
        if !r.falling && !r.flight {
            let m = q.min_grounded.entry(r.ty.clone()).or_insert(usize::MAX);
            *m = (*m).min(grounded);
        }
    }
    body_quality(t, &mut q);
    q.overreach = if foot_frames == 0 {
        0.0
    } else {
        over as f64 / foot_frames as f64
    };
    for (id, a) in &first {
        let b = last[id];
        q.displacement
            .insert(*id, ((b[0] - a[0]).powi(2) + (b[2] - a[2]).powi(2)).sqrt());
    }
    q
}

/// A knee on the wrong side of its hip–foot line relative to its pole (a straight leg, with
/// the knee within 1 mm of the line, has no side).
pub fn knee_flipped(f: &Foot) -> bool {
    let (Some(pole), [hip, knee, .., foot]) = (f.pole, f.joints.as_slice()) else {
        return false;
    };
    let sub = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let axis = sub(*foot, *hip);
    let len = dot(axis, axis).sqrt();
    if len < 1e-6 {
        return false;
    }
    let n = [axis[0] / len, axis[1] / len, axis[2] / len];
    let perp = |v: [f64; 3]| {
        let d = dot(v, n);
        [v[0] - n[0] * d, v[1] - n[1] * d, v[2] - n[2] * d]
    };
    let k = perp(sub(*knee, *hip));
    if dot(k, k).sqrt() < 1e-3 {
        return false;
    }
    dot(k, perp(pole)) < 0.0
}

/// The height of the grounded feet under the body at `at`: their mean, corrected for
/// their tilt (the least-squares plane through them, at `at`'s x, z). On a slope walked
/// across, the plain mean swings by the slope's rise over a leg span as the uphill or the
/// downhill group is planted; the plane does not. Fewer than three feet, or feet in a
/// line, give the mean.
pub fn support_height(feet: &[[f64; 3]], at: [f64; 3]) -> f64 {
    let n = feet.len() as f64;
    let mean = |k: usize| feet.iter().map(|f| f[k]).sum::<f64>() / n;
    let (mx, my, mz) = (mean(0), mean(1), mean(2));
    if feet.len() < 3 {
        return my;
    }
    // y - my = b (x - mx) + c (z - mz), least squares.
    let (mut sxx, mut sxz, mut szz, mut sxy, mut szy) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for f in feet {
        let (x, y, z) = (f[0] - mx, f[1] - my, f[2] - mz);
        sxx += x * x;
        sxz += x * z;
        szz += z * z;
        sxy += x * y;
        szy += z * y;
    }
    let det = sxx * szz - sxz * sxz;
    // Feet nearly in a line (one side's four planted while the other side swings, in a
    // turn) leave the plane's tilt across that line to noise: it would put the "support"
    // far above or below the body. Their mean height then (the smaller spread of their
    // places, as a standard deviation, under 15 cm).
    let (a, d) = (sxx / n, szz / n);
    let least = 0.5 * (a + d) - (0.25 * (a - d).powi(2) + (sxz / n).powi(2)).sqrt();
    if det.abs() < 1e-9 || least < 0.15f64.powi(2) {
        return my;
    }
    let b = (sxy * szz - szy * sxz) / det;
    let c = (szy * sxx - sxy * sxz) / det;
    my + b * (at[0] - mx) + c * (at[2] - mz)
}

/// The body measures: clearance over the feet's footing (`Rec::footing`), the ground under the body,
/// vertical acceleration (second difference of body y), knee flips.
fn body_quality(t: &Trace, q: &mut Quality) {
    q.min_clearance = (f64::INFINITY, 0, 0);
    let mut clearance: BTreeMap<u64, Vec<(u64, f64)>> = BTreeMap::new();
    let mut ys: BTreeMap<u64, Vec<(u64, f64, bool, bool)>> = BTreeMap::new();
    for r in t.recs.iter().filter(|r| !r.ragdoll) {
        let Some(p) = r.pos else { continue };
        if r.feet.is_empty() {
            continue; // flyers: no feet to stand over
        }
        for f in &r.feet {
            if knee_flipped(f) {
                if q.knee_flips.0 == 0 {
                    (q.knee_flips.1, q.knee_flips.2) = (r.id, r.frame);
                }
                q.knee_flips.0 += 1;
            }
        }
        if let Some(floor) = r.floor {
            if p[1] < floor[1] {
                if q.below_floor.0 == 0 {
                    (q.below_floor.1, q.below_floor.2) = (r.id, r.frame);
                }
                q.below_floor.0 += 1;
            }
        }
        ys.entry(r.id)
            .or_default()
            .push((r.frame, p[1], r.falling, r.flight));
        q.falling_frames += r.falling as usize;
        let planted = r.planted();
        // A jump's crouch lowers the body on purpose (tests/jumps.rs measures the jump from
        // crouch to landing); the clearance bar looks for bodies that dive.
        if !r.falling && !r.crouch && !planted.is_empty() {
            let under = support_height(&r.footing(), p);
            clearance
                .entry(r.id)
                .or_default()
                .push((r.frame, p[1] - under));
        }
    }
    for (id, c) in &clearance {
        let mut sorted: Vec<f64> = c.iter().map(|(_, v)| *v).collect();
        sorted.sort_by(f64::total_cmp);
        let median = sorted[sorted.len() / 2];
        for (frame, v) in c {
            let ratio = v / median;
            if ratio < q.min_clearance.0 {
                q.min_clearance = (ratio, *id, *frame);
            }
        }
    }
    for (id, y) in &ys {
        for w in y.windows(3) {
            // A jump's flight is a ballistic arc (its tests measure it), and its take-off
            // and touch-down are the legs' push and catch: not the posture's motion.
            if w[2].0 != w[0].0 + 2 || w.iter().any(|s| s.3) {
                continue;
            }
            let mm = (w[2].1 - 2.0 * w[1].1 + w[0].1).abs() * 1000.0;
            let slot = if w.iter().any(|s| s.2) {
                &mut q.max_fall_accel
            } else {
                &mut q.max_accel
            };
            if mm > slot.0 {
                *slot = (mm, *id, w[1].0);
            }
        }
    }
}

/// Body vertical acceleration bound outside falls, mm/frame² (≈ 5.4 m/s² at 60 Hz).
pub const MAX_BODY_ACCEL_MM: f64 = 1.5;
/// During a fall and its landing: the landing's documented deceleration (3 g) at 60 Hz,
/// mm/frame², and a little for the trace's rounding.
pub const MAX_FALL_ACCEL_MM: f64 = 3.0 * 9.81 / 3.6 + 0.5;

/// The body bars of the motion-quality issue, asserted with a readable message.
pub fn assert_body_moves_well(name: &str, q: &Quality) {
    let (ratio, id, frame) = q.min_clearance;
    assert!(
        ratio >= 0.6,
        "{name}: creature {id} at frame {frame}: clearance {:.2} of its median (limit 0.6)",
        ratio
    );
    let (n, id, frame) = q.below_floor;
    assert_eq!(
        n, 0,
        "{name}: {n} frames with a body below the ground (first: creature {id}, frame {frame})"
    );
    let (mm, id, frame) = q.max_accel;
    assert!(
        mm <= MAX_BODY_ACCEL_MM,
        "{name}: creature {id} at frame {frame}: body vertical acceleration {mm:.2} mm/frame² (limit {MAX_BODY_ACCEL_MM})"
    );
    let (mm, id, frame) = q.max_fall_accel;
    assert!(
        mm <= MAX_FALL_ACCEL_MM,
        "{name}: creature {id} at frame {frame}: {mm:.2} mm/frame² in a fall (limit {MAX_FALL_ACCEL_MM:.2})"
    );
    let (n, id, frame) = q.knee_flips;
    assert_eq!(
        n, 0,
        "{name}: {n} knee flips (first: creature {id}, frame {frame})"
    );
}

/// The quality bars of the core issue, asserted with a readable message.
pub fn assert_walks_well(name: &str, t: &Trace, min_grounded: &[(&str, usize)]) -> Quality {
    let q = quality(t);
    assert!(!t.recs.is_empty(), "{name}: empty trace");
    assert_eq!(
        q.nan, 0,
        "{name}: missing or non-finite numbers in the trace"
    );
    assert!(
        q.max_slide <= 0.001,
        "{name}: a planted foot slid {:.4} m (limit 1 mm)",
        q.max_slide
    );
    assert!(
        q.max_ground_error <= 0.01,
        "{name}: a grounded foot is {:.4} m off the ground (limit 1 cm)",
        q.max_ground_error
    );
    assert_eq!(
        q.grounded_without_ground, 0,
        "{name}: grounded feet with no ground under them"
    );
    assert!(
        q.overreach <= 0.01,
        "{name}: overreach in {:.2}% of foot-frames (limit 1%)",
        q.overreach * 100.0
    );
    for (ty, m) in min_grounded {
        let got = q.min_grounded.get(*ty).copied().unwrap_or(usize::MAX);
        assert!(
            got >= *m,
            "{name}: {ty} had only {got} feet grounded (min_grounded {m})"
        );
    }
    assert_body_moves_well(name, &q);
    q
}

/// A hot-reload test mod: ground, a `pacer` brain that counts ticks in `state` and says
/// so from `on_reload`, a four-legged `bug` type, and `SPAWNS` bugs in a row.
pub const LIVE: &str = r#"
world.ground { size = vec3(30, 0, 30), position = vec3(0, GROUND_Y, 0) }
behaviour.define {
  name = "pacer",
  params = { speed = SPEED },
  on_spawn = function(self) self.state.n = 0 self.state.tag = "t" .. self.id end,
  on_update = function(self, dt)
    self.state.n += 1
    self:move(vec3(0, 0, 1), self.params.speed)
  end,
  on_reload = function(self)
    log.info("reloaded " .. self.id .. " n=" .. self.state.n .. " tag=" .. self.state.tag .. " speed=" .. self.params.speed)
  end,
}
creature.define {
  name = "bug",
  body = { size = vec3(0.3, 0.15, 0.45), height = 0.25 },
  legs = {
    { name = "L1", hip = vec3( 0.1, 0,  0.12), rest = vec3( 0.35, -0.25,  0.3), segments = { 0.25, 0.3 } },
    { name = "R1", hip = vec3(-0.1, 0,  0.12), rest = vec3(-0.35, -0.25,  0.3), segments = { 0.25, 0.3 } },
    { name = "L2", hip = vec3( 0.1, 0, -0.12), rest = vec3( 0.35, -0.25, -0.3), segments = { 0.25, 0.3 } },
    { name = "R2", hip = vec3(-0.1, 0, -0.12), rest = vec3(-0.35, -0.25, -0.3), segments = { 0.25, 0.3 } },
  },
  gait = { step_height = STEP, step_trigger = 0.15 },
}
SPAWNS
"#;

/// The knobs of [`LIVE`].
#[derive(Clone)]
pub struct Live {
    pub ground_y: f32,
    pub speed: f32,
    pub step: f32,
    pub spawns: usize,
    /// A syntax error (the file never runs).
    pub broken: bool,
    /// Fails at run time after the level and the spawns ran (`error` at the end).
    pub fails_late: bool,
}

impl Default for Live {
    fn default() -> Live {
        Live {
            ground_y: 0.0,
            speed: 0.8,
            step: 0.12,
            spawns: 2,
            broken: false,
            fails_late: false,
        }
    }
}

/// The mod `live` under `dir`, its main.lua written from `live`.
pub fn live_mod(dir: &Path, live: &Live) -> PathBuf {
    temp_mod(
        dir,
        "live",
        &[
            ("main.lua", &live.source()),
            ("mod.toml", "name = \"live\"\nversion = \"0.1.0\"\n"),
        ],
    )
}

impl Live {
    /// The mod's main.lua for these settings.
    pub fn source(&self) -> String {
        let spawns: String = (0..self.spawns)
            .map(|i| {
                format!(
                    "world.spawn(\"bug\", {{ position = vec3({}, 0, -8), behaviour = \"pacer\" }})\n",
                    i as f32 * 2.0 - 4.0
                )
            })
            .collect();
        let src = LIVE
            .replace("GROUND_Y", &self.ground_y.to_string())
            .replace("SPEED", &self.speed.to_string())
            .replace("STEP", &self.step.to_string())
            .replace("SPAWNS", &spawns);
        let src = if self.fails_late {
            format!("{src}\nerror(\"late failure, after world.ground and world.spawn ran\")\n")
        } else {
            src
        };
        if self.broken {
            src.replace(
                "on_update = function(self, dt)",
                "on_update = function(self, dt) local =",
            )
        } else {
            src
        }
    }
}

/// The shared rigged models (`../shared/assets/`, made elsewhere: read in place, never
/// copied into the repository).
pub fn assets() -> PathBuf {
    root().join("../shared/assets")
}

/// Loads `file` of the mod folder `root` (named "m" in messages), the error as text.
pub fn load_in(
    root: &Path,
    file: &str,
    texture: Option<&str>,
) -> Result<skitter::model::Model, String> {
    skitter::model::load(
        &skitter::model::Source {
            root,
            mod_name: "m",
            file,
            texture,
            hide: &[],
        },
        &skitter::model::LoadLimits::default(),
    )
    .map_err(|e| e.to_string())
}

/// A rigged glTF (JSON, its buffer embedded) from a skeleton: `joints` as
/// `(name, parent, head)` (heads in scene space), and `verts` as `(joint, point)`: each a
/// small triangle at `point` weighted wholly to `joint`. One mesh node skinned to every
/// joint; inverse bind matrices from the heads.
pub fn rig_gltf(joints: &[(&str, Option<usize>, [f32; 3])], verts: &[(usize, [f32; 3])]) -> String {
    use base64::Engine as _;
    let mut b: Vec<u8> = Vec::new();
    let put = |b: &mut Vec<u8>, xs: &[f32]| xs.iter().for_each(|x| b.extend(x.to_le_bytes()));
    let (mut lo, mut hi) = ([f32::MAX; 3], [f32::MIN; 3]);
    let mut tri = Vec::new();
    for (_, p) in verts {
        for d in [[0.0, 0.0, 0.0], [0.01, 0.0, 0.0], [0.0, 0.0, 0.01]] {
            let q = [p[0] + d[0], p[1] + d[1], p[2] + d[2]];
            for k in 0..3 {
                lo[k] = lo[k].min(q[k]);
                hi[k] = hi[k].max(q[k]);
            }
            tri.push(q);
        }
    }
    let n = tri.len();
    for q in &tri {
        put(&mut b, q);
    }
    let pos_len = b.len();
    for i in 0..n {
        b.extend((i as u16).to_le_bytes());
    }
    if !b.len().is_multiple_of(4) {
        b.extend([0u8, 0]);
    }
    let idx_end = b.len();
    for (j, _) in verts {
        for _ in 0..3 {
            b.extend([*j as u8, 0, 0, 0]);
        }
    }
    let jnt_end = b.len();
    for _ in 0..n {
        put(&mut b, &[1.0, 0.0, 0.0, 0.0]);
    }
    let w_end = b.len();
    for (_, _, h) in joints {
        put(
            &mut b,
            &[
                1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., -h[0], -h[1], -h[2], 1.,
            ],
        );
    }
    let nj = joints.len();
    let mut nodes: Vec<Value> = joints
        .iter()
        .map(|(name, parent, h)| {
            let base = parent.map_or([0.0; 3], |p| joints[p].2);
            serde_json::json!({ "name": name, "translation": [h[0] - base[0], h[1] - base[1], h[2] - base[2]] })
        })
        .collect();
    for (i, (_, parent, _)) in joints.iter().enumerate() {
        if let Some(p) = parent {
            let c = nodes[*p].as_object_mut().expect("node");
            c.entry("children")
                .or_insert_with(|| serde_json::json!([]))
                .as_array_mut()
                .expect("children")
                .push(serde_json::json!(i));
        }
    }
    nodes.push(serde_json::json!({ "name": "mesh", "mesh": 0, "skin": 0 }));
    let mut roots: Vec<usize> = (0..nj).filter(|i| joints[*i].1.is_none()).collect();
    roots.push(nj);
    serde_json::json!({
        "asset": { "version": "2.0" },
        "scene": 0,
        "scenes": [{ "nodes": roots }],
        "nodes": nodes,
        "skins": [{ "joints": (0..nj).collect::<Vec<_>>(), "inverseBindMatrices": 4 }],
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": 0, "JOINTS_0": 2, "WEIGHTS_0": 3 }, "indices": 1 }] }],
        "buffers": [{ "byteLength": b.len(), "uri": format!("data:application/octet-stream;base64,{}", base64::engine::general_purpose::STANDARD.encode(&b)) }],
        "bufferViews": [
            { "buffer": 0, "byteOffset": 0, "byteLength": pos_len },
            { "buffer": 0, "byteOffset": pos_len, "byteLength": n * 2 },
            { "buffer": 0, "byteOffset": idx_end, "byteLength": jnt_end - idx_end },
            { "buffer": 0, "byteOffset": jnt_end, "byteLength": w_end - jnt_end },
            { "buffer": 0, "byteOffset": w_end, "byteLength": nj * 64 }
        ],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "count": n, "type": "VEC3", "min": lo, "max": hi },
            { "bufferView": 1, "componentType": 5123, "count": n, "type": "SCALAR" },
            { "bufferView": 2, "componentType": 5121, "count": n, "type": "VEC4" },
            { "bufferView": 3, "componentType": 5126, "count": n, "type": "VEC4" },
            { "bufferView": 4, "componentType": 5126, "count": nj, "type": "MAT4" }
        ]
    })
    .to_string()
}

/// A mod `name` in `parent` whose `creature.define{ name = "m", model = { file =
/// "assets/m.gltf" } }` is `gltf`, nothing else; returns its folder.
pub fn model_only_mod(parent: &Path, name: &str, gltf: &str) -> PathBuf {
    let m = parent.join(name);
    std::fs::create_dir_all(m.join("assets")).expect("mkdir");
    std::fs::write(m.join("assets/m.gltf"), gltf).expect("write");
    std::fs::write(
        m.join("mod.toml"),
        format!("name = \"{name}\"\nversion = \"0.1.0\"\n"),
    )
    .expect("toml");
    std::fs::write(
        m.join("main.lua"),
        "creature.define { name = \"m\", model = { file = \"assets/m.gltf\" } }\n",
    )
    .expect("lua");
    m
}

/// A node of [`nodes_gltf`]: name, parent, translation, its mesh's triangles (local space;
/// none: no mesh).
pub type MeshNode<'a> = (&'a str, Option<usize>, [f32; 3], Vec<[f32; 3]>);

/// A glTF with no skin (Blockbench's, Luanti's way): each node's own mesh a triangle list
/// in its local space, when it has one.
pub fn nodes_gltf(nodes: &[MeshNode<'_>]) -> String {
    use base64::Engine as _;
    let mut b: Vec<u8> = Vec::new();
    let (mut views, mut accessors, mut meshes) = (Vec::new(), Vec::new(), Vec::new());
    let mut json_nodes: Vec<Value> = Vec::new();
    for (name, _, t, tris) in nodes {
        let mut node = serde_json::json!({ "name": name, "translation": t });
        if !tris.is_empty() {
            let (mut lo, mut hi) = ([f32::MAX; 3], [f32::MIN; 3]);
            let start = b.len();
            for p in tris {
                for k in 0..3 {
                    lo[k] = lo[k].min(p[k]);
                    hi[k] = hi[k].max(p[k]);
                    b.extend(p[k].to_le_bytes());
                }
            }
            views.push(serde_json::json!({ "buffer": 0, "byteOffset": start, "byteLength": b.len() - start }));
            accessors.push(serde_json::json!({ "bufferView": views.len() - 1, "componentType": 5126, "count": tris.len(), "type": "VEC3", "min": lo, "max": hi }));
            meshes.push(serde_json::json!({ "primitives": [{ "attributes": { "POSITION": accessors.len() - 1 } }] }));
            node["mesh"] = serde_json::json!(meshes.len() - 1);
        }
        json_nodes.push(node);
    }
    for (i, (_, parent, _, _)) in nodes.iter().enumerate() {
        if let Some(p) = parent {
            json_nodes[*p]
                .as_object_mut()
                .expect("node")
                .entry("children")
                .or_insert_with(|| serde_json::json!([]))
                .as_array_mut()
                .expect("children")
                .push(serde_json::json!(i));
        }
    }
    let roots: Vec<usize> = (0..nodes.len()).filter(|i| nodes[*i].1.is_none()).collect();
    serde_json::json!({
        "asset": { "version": "2.0" },
        "scene": 0,
        "scenes": [{ "nodes": roots }],
        "nodes": json_nodes,
        "meshes": meshes,
        "buffers": [{ "byteLength": b.len(), "uri": format!("data:application/octet-stream;base64,{}", base64::engine::general_purpose::STANDARD.encode(&b)) }],
        "bufferViews": views,
        "accessors": accessors
    })
    .to_string()
}

/// Triangles of a box from `lo` to `hi` (two a face).
pub fn block(lo: [f32; 3], hi: [f32; 3]) -> Vec<[f32; 3]> {
    let c = |i: usize| {
        [
            if i & 1 == 0 { lo[0] } else { hi[0] },
            if i & 2 == 0 { lo[1] } else { hi[1] },
            if i & 4 == 0 { lo[2] } else { hi[2] },
        ]
    };
    let faces = [
        [0, 1, 3, 2],
        [4, 6, 7, 5],
        [0, 4, 5, 1],
        [2, 3, 7, 6],
        [0, 2, 6, 4],
        [1, 5, 7, 3],
    ];
    let mut out = Vec::new();
    for f in faces {
        for t in [[f[0], f[1], f[2]], [f[0], f[2], f[3]]] {
            out.extend(t.map(c));
        }
    }
    out
}

/// Every foot's drawn tip (the skinned chain's end) is within 1 cm of the foot, every tick.
pub fn assert_tips_on_feet(t: &Trace, text: &str) {
    let mut n = 0;
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).expect("json");
        let Some(feet) = v["feet"].as_array() else {
            continue;
        };
        for f in feet {
            let p = f["pos"].as_array().expect("pos");
            let tip = f["tip"].as_array().unwrap_or_else(|| {
                panic!("frame {}: a model creature's foot has no tip", v["frame"])
            });
            let d = (0..3)
                .map(|k| (p[k].as_f64().unwrap() - tip[k].as_f64().unwrap()).powi(2))
                .sum::<f64>()
                .sqrt();
            assert!(
                d <= 0.01,
                "frame {} foot {}: tip {d:.4} m off the foot",
                v["frame"],
                f["leg"]
            );
            n += 1;
        }
    }
    assert!(n > 1000 && n == t.recs.iter().map(|r| r.feet.len()).sum::<usize>());
}

/// Under `CI=true` (where a missing tool fails a test instead of skipping it).
pub fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// A virtual X display on a number of its own (`base` + this process's id's last two
/// digits): the server process and its `DISPLAY` name. `None` (after a loud message) when
/// Xvfb is not installed, outside CI; under CI a missing Xvfb fails.
/// The first X display from `from` up with no lock file and no socket (an Xvfb killed by
/// a test run that was stopped leaves its lock behind: Xvfb then refuses that display).
pub fn free_display(from: u32) -> String {
    let taken = |n: u32| {
        Path::new(&format!("/tmp/.X{n}-lock")).exists()
            || Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
    };
    let n = (from..from + 1000).find(|n| !taken(*n)).unwrap_or(from);
    format!(":{n}")
}

pub fn xvfb(base: u32) -> Option<(std::process::Child, String)> {
    if Command::new("Xvfb").arg("-help").output().is_err() {
        assert!(!ci(), "CI=true but Xvfb is not installed");
        eprintln!("\n!!!!! SKIPPED: Xvfb is not installed (apt-get install xvfb) !!!!!\n");
        return None;
    }
    let display = free_display(base + std::process::id() % 100);
    let child = Command::new("Xvfb")
        .args([
            display.as_str(),
            "-screen",
            "0",
            "800x600x24",
            "-nolisten",
            "tcp",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("Xvfb starts");
    std::thread::sleep(Duration::from_millis(800));
    Some((child, display))
}

/// Pixels of a PNG (RGBA) that `pick` takes.
pub fn count_pixels(p: &Path, pick: impl Fn(&[u8]) -> bool) -> usize {
    let dec = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(p).expect("png"),
    ));
    let mut r = dec.read_info().expect("png header");
    let mut px = vec![0; r.output_buffer_size().expect("size")];
    let info = r.next_frame(&mut px).expect("png data");
    px[..info.buffer_size()]
        .chunks(4)
        .filter(|c| pick(c))
        .count()
}

/// A bound model's limbs as a body at `body` (world) holding them as bound: each limb's
/// joints and tip, legs then arms, and how many points each has (what `PoseInput` takes).
pub fn bound_limb_points(
    b: &skitter::model::BoundModel,
    body: glam::Affine3A,
) -> (Vec<glam::Vec3>, Vec<usize>) {
    let at = body * glam::Affine3A::from_mat4(b.binding.fix);
    let mut points = Vec::new();
    let mut lens = Vec::new();
    for chain in b.binding.legs.iter().chain(&b.binding.arms) {
        let start = points.len();
        for j in &chain.bones {
            points.push(at.transform_point3(b.model.joints[*j].head()));
        }
        points.push(at.transform_point3(chain.tip));
        lens.push(points.len() - start);
    }
    (points, lens)
}

/// A run given mods that fail: it ran to its end and exited 0, or a mod did not load and
/// it said so and exited 1 (`skitter run --headless`, issue 48) — never a crash.
pub fn assert_ran_despite_bad_mods(out: &Output) {
    let log = text(out);
    match out.status.code() {
        Some(0) => assert!(!log.contains("while loading the mods"), "{log}"),
        Some(1) => assert!(
            log.contains("error(s) while loading the mods") && log.contains("skitter: ran "),
            "{log}"
        ),
        c => panic!("exit {c:?}:\n{log}"),
    }
}

/// The shared model `dir/file` (`../shared/assets/`) bound as found, at its own scale.
pub fn bound_asset(dir: &str, file: &str, texture: Option<&str>) -> skitter::model::BoundModel {
    let m = load_in(&assets().join(dir), file, texture).unwrap_or_else(|e| panic!("{e}"));
    skitter::model::BoundModel::new(
        std::sync::Arc::new(m),
        &skitter::model::BindSpec {
            scale: 1.0,
            ..skitter::model::BindSpec::default()
        },
        None,
    )
    .unwrap_or_else(|e| panic!("{dir}: {e}"))
}

/// Copies a bundled mod's sound files (`scripts/FROM/assets/sounds`) into mod folder `to`:
/// for a test mod that copies one of its creature definitions, whose `sounds` name them.
pub fn bundled_sounds(from: &str, to: &Path) {
    let src = bundled(from).join("assets/sounds");
    let dst = to.join("assets/sounds");
    std::fs::create_dir_all(&dst).expect("mkdir");
    for f in std::fs::read_dir(&src).expect("the bundled sounds") {
        let p = f.expect("entry").path();
        std::fs::copy(&p, dst.join(p.file_name().expect("name"))).expect("copy");
    }
}
