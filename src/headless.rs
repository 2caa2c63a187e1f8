//! Headless runs: load mods, step N ticks (optionally paced to the wall clock), write the
//! JSON Lines trace of product.md, print a summary line per simulated second.

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use glam::Vec3;

mod audio_out;
mod console_lines;
mod events;
mod profile_out;

pub use audio_out::AudioOptions;
pub(crate) use audio_out::AudioOut;

use crate::math::frame::forward_from_yaw;
use crate::script::{HostOptions, HostOutput, ReloadReport, ScriptError, ScriptHost};
use crate::sim::record::RECORD_VERSION;
use crate::sim::{Header, Recorder, Replay, World, WorldEvent, TICK_DT};

/// What to run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Mod folders (or folders of mod folders).
    pub mods: Vec<PathBuf>,
    /// Ticks to run; `None` runs until the process is stopped.
    pub frames: Option<u64>,
    /// Trace file (JSON Lines).
    pub trace: Option<PathBuf>,
    /// Pace ticks to the wall clock (60 Hz).
    pub realtime: bool,
    /// Print a summary line every simulated second.
    pub summary: bool,
    /// Host limits and seed.
    pub host: HostOptions,
    /// Log what the world receives each tick into this record file.
    pub record: Option<PathBuf>,
    /// Feed the world this record instead of running callbacks (the seed comes from it).
    pub replay: Option<PathBuf>,
    /// Read console lines from stdin and run them between ticks (`skitter run --console`):
    /// the run is paced to the wall clock; without `frames` it ends when stdin does.
    pub console: bool,
    /// Profile the run and write the figures here as JSON (`skitter run --profile`).
    pub profile: Option<PathBuf>,
    /// Mix what a listener hears into a WAV (`skitter run --audio-out`).
    pub audio: Option<audio_out::AudioOptions>,
}

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct RunReport {
    /// Ticks run.
    pub frames: u64,
    /// Creatures alive at the end.
    pub creatures: usize,
    /// Every script error reported.
    pub errors: Vec<ScriptError>,
    /// Mods loaded.
    pub mods: Vec<String>,
    /// Errors reported while the mods loaded (before the first tick): a mod that did not
    /// load, or loaded only in part.
    pub load_errors: usize,
}

/// Formats a float for the trace: 4 decimals, no negative zero, shortest form.
fn num(w: &mut impl Write, x: f32) -> io::Result<()> {
    let r = ((x as f64) * 1e4).round() / 1e4 + 0.0;
    if r.is_finite() {
        write!(w, "{r}")
    } else {
        // JSON has no NaN: a non-finite value is written as null (the checks flag it).
        write!(w, "null")
    }
}

/// A JSON array of trace numbers.
fn nums(w: &mut impl Write, xs: &[f32]) -> io::Result<()> {
    w.write_all(b"[")?;
    for (i, x) in xs.iter().enumerate() {
        if i > 0 {
            w.write_all(b",")?;
        }
        num(w, *x)?;
    }
    w.write_all(b"]")
}

fn vec3(w: &mut impl Write, v: Vec3) -> io::Result<()> {
    nums(w, &v.to_array())
}

/// Writes one trace line per creature for the host's current tick.
pub fn write_tick(w: &mut impl Write, host: &ScriptHost) -> io::Result<()> {
    let world = host.world();
    let world = &*world;
    let line = TraceLine {
        frame: world.frame(),
        t: world.time(),
        server_time: None,
    };
    write_world(w, world, line, &|id| {
        host.brain_state(id).map(|b| b.as_str())
    })
}

/// What a trace line says of when it is.
#[derive(Clone, Copy, Debug)]
pub struct TraceLine {
    /// The frame (a server's tick; a viewer's own frame).
    pub frame: u64,
    /// Its time, seconds.
    pub t: f64,
    /// A viewer's: the server time it shows.
    pub server_time: Option<f64>,
}

/// Writes one trace line per creature of `world` (`brain`: each creature's brain state,
/// `None` where there is none).
pub fn write_world(
    w: &mut impl Write,
    world: &World,
    line: TraceLine,
    brain: &dyn Fn(crate::sim::CreatureId) -> Option<&'static str>,
) -> io::Result<()> {
    let TraceLine { frame, t, .. } = line;
    let mut pose = crate::sim::PoseScratch::default();
    for c in world.creatures() {
        let type_name = world
            .creature_type(c.type_id)
            .map(|t| t.name.as_str())
            .unwrap_or("?");
        write!(w, "{{\"frame\":{frame},\"t\":{},", (t * 1e4).round() / 1e4,)?;
        if let Some(st) = line.server_time {
            write!(w, "\"server_time\":{},", (st * 1e5).round() / 1e5)?;
        }
        write!(
            w,
            "\"id\":{},\"type\":{},\"pos\":",
            c.id.0,
            json_str(type_name)
        )?;
        let (body, rot) = c.body_pose();
        vec3(w, body)?;
        w.write_all(b",\"rot\":")?;
        nums(w, &rot.to_array())?;
        w.write_all(b",\"vel\":")?;
        vec3(w, c.loco.velocity)?;
        w.write_all(b",\"fwd\":")?;
        vec3(w, forward_from_yaw(c.loco.yaw))?;
        let l = &c.loco.lean;
        w.write_all(b",\"lean\":{")?;
        for (i, (k, v)) in [
            ("roll", l.roll),
            ("pitch", l.pitch),
            ("target_roll", l.target_roll),
            ("target_pitch", l.target_pitch),
            ("yaw_rate", l.yaw_rate),
        ]
        .into_iter()
        .enumerate()
        {
            write!(w, "{}\"{k}\":", if i > 0 { "," } else { "" })?;
            num(w, v)?;
        }
        w.write_all(b"},\"dest\":")?;
        match c.nav.as_ref().map(|g| g.target.unwrap_or(g.dest)) {
            Some(d) => vec3(w, d)?,
            None => w.write_all(b"null")?,
        }
        w.write_all(b",\"floor\":")?;
        match world.ground_below(body) {
            Some(g) => vec3(w, g)?,
            None => w.write_all(b"null")?,
        }
        write_while(w, c)?;
        write!(
            w,
            ",\"falling\":{},\"brain\":",
            c.loco.airborne || c.loco.landing
        )?;
        match brain(c.id) {
            Some(b) => write!(w, "\"{b}\"")?,
            None => w.write_all(b"null")?,
        }
        write_ragdoll(w, c)?;
        write_climb(w, world, c)?;
        let model = world.creature_type(c.type_id).and_then(|t| t.model.clone());
        if let Some(m) = model.as_deref() {
            write_springs(w, c, m)?;
        }
        // Loaded models' drawn tips (a generated one's are its feet by construction).
        let model = model.filter(|m| !m.generated);
        let tips = model.as_deref().map(|m| {
            crate::sim::pose_creature(c, m, t as f32, &mut pose);
            (m, &pose.world)
        });
        if c.rag.is_some() {
            write_rig_feet(w, world, c, tips)?;
            w.write_all(b"}\n")?;
            continue;
        }
        write_feet(w, world, c, tips)?;
        write_hands(w, c)?;
        w.write_all(b"}\n")?;
    }
    Ok(())
}

/// What a creature does only now and then, only while it does (a crowd's lines stay
/// short): a jump's phase, a link it crosses, its gait style (types with styles), what its
/// head looks at (`c:look_at`: where
/// the head faces, and the point).
fn write_while(w: &mut impl Write, c: &crate::sim::Creature) -> io::Result<()> {
    if let Some(j) = c.loco.jump.as_ref().filter(|_| c.rag.is_none()) {
        write!(w, ",\"jump\":\"{}\"", j.phase_name())?;
    }
    if let Some(l) = c.nav.as_ref().and_then(|g| g.link.as_ref()) {
        write!(w, ",\"link\":{}", json_str(&l.kind))?;
    }
    if let Some(s) = c.loco.style_name(&c.def).filter(|_| c.rag.is_none()) {
        write!(w, ",\"style\":{}", json_str(s))?;
    }
    if let (Some(h), Some(at), None) = (c.def.body.head.as_ref(), c.loco.look_at, &c.rag) {
        w.write_all(b",\"look\":{\"head\":")?;
        vec3(w, c.loco.head_forward(h.counter_yaw))?;
        w.write_all(b",\"at\":")?;
        vec3(w, at)?;
        w.write_all(b"}")?;
    }
    Ok(())
}

/// A model's spring chains (`"springs"`, only when it has some): each chain's name (its first
/// bone's) and its tip where it swings now.
fn write_springs(
    w: &mut impl Write,
    c: &crate::sim::Creature,
    m: &crate::model::BoundModel,
) -> io::Result<()> {
    if m.springs.is_empty() || c.springs.len() != m.springs.len() {
        return Ok(());
    }
    w.write_all(b",\"springs\":[")?;
    for (i, (chain, s)) in m.springs.iter().zip(&c.springs).enumerate() {
        if i > 0 {
            w.write_all(b",")?;
        }
        write!(w, "{{\"name\":{},\"tip\":", json_str(&chain.name))?;
        vec3(w, s.tip().unwrap_or_default())?;
        w.write_all(b"}")?;
    }
    w.write_all(b"]")
}

/// A creature with arms (and a flyer, whose dangling legs hang as arms): `"hands"`, each
/// arm's end where it hangs and swings now, in the order of its definition's `arms`, and
/// `"shoulders"`, where each hangs from.
fn write_hands(w: &mut impl Write, c: &crate::sim::Creature) -> io::Result<()> {
    if c.def.arms.is_empty() {
        return Ok(());
    }
    let chains = crate::locomotion::arm_chains(&c.def, &c.loco);
    for (key, end) in [("hands", true), ("shoulders", false)] {
        write!(w, ",\"{key}\":[")?;
        for (i, chain) in chains.iter().enumerate() {
            if i > 0 {
                w.write_all(b",")?;
            }
            let p = if end { chain.last() } else { chain.first() };
            vec3(w, p.copied().unwrap_or_default())?;
        }
        w.write_all(b"]")?;
    }
    Ok(())
}

/// A climbing type's surface: `"up"` (the body's up), `"surface"` (floor, wall, ceiling,
/// or null while falling), `"crease"` (concave, convex or null), `"clearance"` (the body centre's distance from the nearest
/// collider surface, negative inside one) and `"contacts"`: for each foot, the normal of
/// the face its target is on and its distance from the nearest collider surface.
fn write_climb(w: &mut impl Write, world: &World, c: &crate::sim::Creature) -> io::Result<()> {
    let Some(cl) = c.loco.climb.as_ref().filter(|_| c.rag.is_none()) else {
        return Ok(());
    };
    w.write_all(b",\"up\":")?;
    vec3(w, c.loco.up)?;
    match c.loco.is_climbing() {
        true => write!(w, ",\"surface\":\"{}\"", cl.surface.name())?,
        false => w.write_all(b",\"surface\":null")?,
    }
    match cl.crease.filter(|_| c.loco.is_climbing()) {
        Some(k) => write!(w, ",\"crease\":\"{}\"", k.name())?,
        None => w.write_all(b",\"crease\":null")?,
    }
    let (body, _) = c.body_pose();
    w.write_all(b",\"clearance\":")?;
    match world.nearest_surface(body, 5.0) {
        Some(h) => num(w, (body - h.point).dot(h.normal))?,
        None => w.write_all(b"null")?,
    }
    w.write_all(b",\"contacts\":[")?;
    for (i, s) in c.loco.legs.iter().enumerate() {
        if i > 0 {
            w.write_all(b",")?;
        }
        w.write_all(b"{\"normal\":")?;
        vec3(w, s.normal)?;
        w.write_all(b",\"off\":")?;
        match world.nearest_surface(s.foot, 1.0) {
            Some(h) => num(w, (s.foot - h.point).dot(h.normal))?,
            None => w.write_all(b"null")?,
        }
        w.write_all(b"}")?;
    }
    w.write_all(b"]")
}

/// The point a foot stands on (`ground` in the trace): the level's surface nearest a
/// climber's planted foot (on a wall or a ceiling that is not below it), else the ground
/// straight below the foot.
fn foot_ground(
    world: &World,
    c: &crate::sim::Creature,
    s: &crate::locomotion::locomotor::LegState,
) -> Option<glam::Vec3> {
    if s.grounded && c.def.climb.is_some() {
        if let Some(h) = world.nearest_surface(s.foot, FOOT_GROUND_REACH) {
            return Some(h.point);
        }
    }
    world.ground_below(s.foot)
}

/// How far from a climber's planted foot its `ground` is looked for, m.
const FOOT_GROUND_REACH: f32 = 0.25;

/// An animated creature's feet: where each is, its target, whether it is planted, the
/// ground under it, its reach, its joints and its knee's pole.
/// With a model (`tips`: the model and its posed joints), each foot's `tip`: where its
/// chain's end is drawn.
fn write_feet(
    w: &mut impl Write,
    world: &World,
    c: &crate::sim::Creature,
    tips: Option<(&crate::model::BoundModel, &Vec<glam::Affine3A>)>,
) -> io::Result<()> {
    w.write_all(b",\"feet\":[")?;
    for (i, (d, s)) in c.def.legs.iter().zip(c.loco.legs.iter()).enumerate() {
        if i > 0 {
            w.write_all(b",")?;
        }
        write!(w, "{{\"leg\":{},\"pos\":", json_str(&d.name))?;
        vec3(w, s.foot)?;
        w.write_all(b",\"target\":")?;
        vec3(w, s.target)?;
        write!(w, ",\"grounded\":{},\"ground\":", s.grounded)?;
        match foot_ground(world, c, s) {
            Some(g) => vec3(w, g)?,
            None => w.write_all(b"null")?,
        }
        w.write_all(b",\"reach\":")?;
        num(w, s.reach)?;
        w.write_all(b",\"joints\":[")?;
        vec3(w, s.hip)?;
        w.write_all(b",")?;
        if s.joints.is_empty() {
            vec3(w, s.knee)?;
        } else {
            for (k, j) in s.joints.iter().enumerate() {
                if k > 0 {
                    w.write_all(b",")?;
                }
                vec3(w, *j)?;
            }
        }
        w.write_all(b",")?;
        vec3(w, s.foot)?;
        w.write_all(b"],\"pole\":")?;
        vec3(w, s.pole)?;
        if let Some(tip) = tips.and_then(|(m, world)| m.posed.tip(i, world)) {
            w.write_all(b",\"tip\":")?;
            vec3(w, tip)?;
        }
        w.write_all(b"}")?;
    }
    w.write_all(b"]")
}

/// `"ragdoll"`, `"ragdoll_state"` and, in physics, `"muscle"` and `"parts"` (every rigid
/// part's centre and rotation: the body, then each leg's segments from the hip down).
fn write_ragdoll(w: &mut impl Write, c: &crate::sim::Creature) -> io::Result<()> {
    write!(
        w,
        ",\"ragdoll\":{},\"ragdoll_state\":\"{}\"",
        c.rag.is_some(),
        c.ragdoll_state()
    )?;
    let Some(rag) = c.rag.as_ref() else {
        return Ok(());
    };
    w.write_all(b",\"muscle\":")?;
    num(w, rag.muscle)?;
    w.write_all(b",\"parts\":[")?;
    for (i, p) in rag.parts.iter().enumerate() {
        w.write_all(if i > 0 { b",{\"p\":" } else { b"{\"p\":" })?;
        vec3(w, p.position)?;
        w.write_all(b",\"q\":")?;
        nums(w, &p.rotation.to_array())?;
        w.write_all(b"}")?;
    }
    w.write_all(b"]")
}

/// Feet of a ragdoll: each leg's lower end, never grounded, its joints along the rig (and,
/// with a model, the `tip` drawn there).
fn write_rig_feet(
    w: &mut impl Write,
    world: &World,
    c: &crate::sim::Creature,
    tips: Option<(&crate::model::BoundModel, &Vec<glam::Affine3A>)>,
) -> io::Result<()> {
    w.write_all(b",\"feet\":[")?;
    let Some(rag) = c.rag.as_ref() else {
        return w.write_all(b"]");
    };
    let chains = crate::sim::rig_chains(&c.def, &rag.parts);
    for (i, (d, chain)) in c.def.legs.iter().zip(chains).enumerate() {
        if i > 0 {
            w.write_all(b",")?;
        }
        let foot = chain[chain.len() - 1];
        write!(w, "{{\"leg\":{},\"pos\":", json_str(&d.name))?;
        vec3(w, foot)?;
        w.write_all(b",\"target\":")?;
        vec3(w, foot)?;
        w.write_all(b",\"grounded\":false,\"ground\":")?;
        match world.ground_below(foot) {
            Some(g) => vec3(w, g)?,
            None => w.write_all(b"null")?,
        }
        w.write_all(b",\"reach\":")?;
        num(w, chain[0].distance(foot) / d.length)?;
        w.write_all(b",\"joints\":[")?;
        for (k, j) in chain.iter().enumerate() {
            if k > 0 {
                w.write_all(b",")?;
            }
            vec3(w, *j)?;
        }
        w.write_all(b"],\"pole\":[0,1,0]")?;
        if let Some(tip) = tips.and_then(|(m, world)| m.posed.tip(i, world)) {
            w.write_all(b",\"tip\":")?;
            vec3(w, tip)?;
        }
        w.write_all(b"}")?;
    }
    w.write_all(b"]")
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"?\"".to_string())
}

/// Writes an error event line.
pub fn write_error(w: &mut impl Write, frame: u64, e: &ScriptError) -> io::Result<()> {
    writeln!(
        w,
        "{{\"frame\":{frame},\"event\":\"error\",\"mod\":{},\"where\":{},\"message\":{}}}",
        json_str(&e.mod_name),
        e.location
            .as_deref()
            .map(json_str)
            .unwrap_or_else(|| "null".into()),
        json_str(&e.message)
    )
}

/// Record and replay around a host's ticks (headless runs and the window share it).
#[derive(Default)]
pub struct Tape {
    record: Option<PathBuf>,
    recorder: Option<Recorder<io::BufWriter<std::fs::File>>>,
    replay: Option<Replay>,
    /// The record as read, for restarts.
    pristine: Option<Replay>,
    /// Recording: each creature's brain state as last recorded.
    brains: std::collections::BTreeMap<crate::sim::CreatureId, Option<&'static str>>,
}

impl Tape {
    /// Opens `replay` (if any) and remembers where to `record`. Returns the tape and the
    /// host options to load with (a replay brings its own seed).
    pub fn open(
        record: Option<PathBuf>,
        replay: Option<PathBuf>,
        host: &HostOptions,
    ) -> io::Result<(Tape, HostOptions)> {
        let loaded = match &replay {
            Some(p) => Some(
                Replay::read(io::BufReader::new(std::fs::File::open(p).map_err(|e| {
                    io::Error::new(e.kind(), format!("{}: {e}", p.display()))
                })?))
                .map_err(|e| io::Error::other(format!("{}: {e}", p.display())))?,
            ),
            None => None,
        };
        let mut opts = host.clone();
        if let Some(r) = &loaded {
            opts.seed = r.header.seed;
        }
        Ok((
            Tape {
                record,
                recorder: None,
                replay: None,
                pristine: loaded,
                brains: Default::default(),
            },
            opts,
        ))
    }

    /// After the mods loaded: starts recording (a fresh file) or switches the host to
    /// replay (from the record's start). Says on `console` when the mods differ.
    pub fn start(&mut self, host: &mut ScriptHost, console: &mut dyn Write) -> io::Result<()> {
        // Restarting (the window's R) replays from the beginning.
        self.replay = self.pristine.clone();
        if let Some(r) = &self.replay {
            host.set_replaying(true);
            if r.header.mods != host.loaded_mods() {
                writeln!(
                    console,
                    "warning: the record was made with mods [{}]; replaying with [{}]",
                    r.header.mods.join(", "),
                    host.loaded_mods().join(", ")
                )?;
            }
        }
        if let Some(p) = self.record.clone() {
            self.brains.clear();
            self.brains_changed(host);
            host.world_mut().start_recording();
            self.recorder = Some(Recorder::new(
                io::BufWriter::new(
                    std::fs::File::create(&p)
                        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", p.display())))?,
                ),
                &Header {
                    skitter_record: RECORD_VERSION,
                    seed: host.world().seed(),
                    mods: host.loaded_mods(),
                },
            )?);
        }
        Ok(())
    }

    /// Before a tick: feeds the replay's inputs for this frame.
    pub fn before_tick(&mut self, host: &mut ScriptHost) -> io::Result<()> {
        if let Some(r) = self.replay.as_mut() {
            r.feed(&mut host.world_mut())
                .map_err(|e| io::Error::other(e.to_string()))?;
            for (id, state) in r.take_brains() {
                host.show_replayed_brain(id, state.as_deref());
            }
        }
        Ok(())
    }

    /// The creatures whose brain state differs from the last recorded, now recorded.
    fn brains_changed(
        &mut self,
        host: &ScriptHost,
    ) -> Vec<(crate::sim::CreatureId, Option<String>)> {
        let mut changed = Vec::new();
        let ids: Vec<crate::sim::CreatureId> =
            host.world().creatures().iter().map(|c| c.id).collect();
        for id in ids {
            let now = host.brain_state(id).map(|b| b.as_str());
            if self.brains.insert(id, now) != Some(now) {
                changed.push((id, now.map(String::from)));
            }
        }
        changed
    }

    /// After a tick: appends what the world received.
    pub fn after_tick(&mut self, host: &mut ScriptHost) -> io::Result<()> {
        if self.recorder.is_some() {
            let mut entries = host.world_mut().take_recorded();
            // The brains' states after the tick, fed before the same tick in a replay.
            let changed = self.brains_changed(host);
            if !changed.is_empty() {
                entries.push(crate::sim::record::Entry {
                    frame: host.world().frame().saturating_sub(1),
                    input: crate::sim::record::Input::Brains { changed },
                });
            }
            if let Some(r) = self.recorder.as_mut() {
                r.write(&entries)?;
            }
        }
        Ok(())
    }

    /// Flushes the record.
    pub fn finish(&mut self) -> io::Result<()> {
        match self.recorder.as_mut() {
            Some(r) => r.flush(),
            None => Ok(()),
        }
    }
}

/// Writes a reload event line.
pub fn write_reload(w: &mut impl Write, r: &ReloadReport) -> io::Result<()> {
    let files: Vec<String> = r.files.iter().map(|f| json_str(f)).collect();
    writeln!(
        w,
        "{{\"frame\":{},\"event\":\"reload\",\"mod\":{},\"ok\":{},\"ms\":{},\"files\":[{}]}}",
        r.frame,
        json_str(&r.mod_name),
        r.ok,
        (r.ms * 10.0).round() / 10.0,
        files.join(",")
    )
}

/// The trace file being written, if any.
type TraceOut = Option<io::BufWriter<std::fs::File>>;

/// A host loaded with the run's mods, its tape started and, for paced runs, its mods
/// watched for hot reload.
fn start(opts: &RunOptions, console: &mut impl Write) -> io::Result<(ScriptHost, Tape)> {
    let (mut tape, host_opts) = Tape::open(opts.record.clone(), opts.replay.clone(), &opts.host)?;
    let mut host = ScriptHost::new(host_opts);
    // Paced runs (hot reload on) never wait for a navmesh bake; unpaced ones bake in the
    // tick that needs it, so their traces are the same every time.
    let paced = opts.realtime || opts.console;
    host.world_mut()
        .set_background_bakes(paced && opts.replay.is_none() && opts.record.is_none());
    host.load(&opts.mods);
    tape.start(&mut host, console)?;
    if paced && !host.replaying() {
        if let Err(e) = host.watch() {
            writeln!(
                console,
                "warning: hot reload is off: cannot watch the mods: {e}"
            )?;
        }
    }
    Ok((host, tape))
}

/// Writes what the host has to say to the console, reloads and errors to the trace too.
fn flush(
    host: &mut ScriptHost,
    trace: &mut TraceOut,
    console: &mut dyn Write,
    report: &mut RunReport,
    audio: Option<&mut audio_out::AudioOut>,
) -> io::Result<()> {
    let frame = host.world().frame();
    // No view to move: camera requests are traced (and move the listener), then dropped
    // (never queued for ever).
    let requests = host.take_camera_requests();
    // Sounds asked for outside a tick (loading, a console line) start with the next one.
    let sounds = host.take_sound_requests();
    if let Some(a) = audio {
        requests.iter().for_each(|r| a.camera(r));
        a.queue(sounds);
    }
    for r in requests {
        if let Some(t) = trace.as_mut() {
            events::write_camera(t, frame, &r)?;
        }
    }
    for out in host.drain_output() {
        writeln!(console, "{out}")?;
        match out {
            HostOutput::Reload(r) => {
                if let Some(t) = trace.as_mut() {
                    write_reload(t, &r)?;
                }
            }
            HostOutput::Error(e) => {
                if let Some(t) = trace.as_mut() {
                    write_error(t, frame, &e)?;
                }
                report.errors.push(e);
            }
            HostOutput::Log(_) => {}
        }
    }
    Ok(())
}

/// Writes an arrive event line per arrival in `events`.
fn write_arrivals(t: &mut impl Write, frame: u64, events: &[WorldEvent]) -> io::Result<()> {
    for e in events {
        let (event, id) = match e {
            WorldEvent::Arrive { id } => ("arrive", id),
            WorldEvent::Despawn { id } => ("despawn", id),
            _ => continue,
        };
        writeln!(
            t,
            "{{\"frame\":{frame},\"event\":\"{event}\",\"id\":{}}}",
            id.0
        )?;
    }
    Ok(())
}

/// The once-a-second console line of a run.
fn summary(
    console: &mut impl Write,
    host: &ScriptHost,
    steps: usize,
    tick_time: Duration,
) -> io::Result<()> {
    let w = host.world();
    let n = w.creatures().len();
    let mean_speed = if n == 0 {
        0.0
    } else {
        w.creatures().iter().map(|c| c.loco.speed()).sum::<f32>() / n as f32
    };
    let physics = match w.ragdoll_count() {
        0 => String::new(),
        r => {
            let g = w.physics_groups();
            format!(
                "  in physics {r} ({} groups, the largest {})",
                g.groups, g.largest
            )
        }
    };
    writeln!(
        console,
        "t={:6.1}s  creatures {n:4}{physics}  mean speed {mean_speed:4.2} m/s  steps/s {steps:5}  tick {:.3} ms  mods {}",
        w.time(),
        tick_time.as_secs_f64() * 1e3 / 60.0,
        host.running_mods().join(",")
    )
}

/// What a run does around each tick besides the trace (a network server's part).
pub trait TickHook {
    /// Before the tick (inputs that arrived go into the World here).
    fn before_tick(&mut self, host: &mut ScriptHost);
    /// After the tick, with its events.
    fn after_tick(&mut self, host: &ScriptHost, events: &[WorldEvent]);
    /// A line for the window's overlay (a server's address and viewers).
    fn status(&self) -> Option<String> {
        None
    }
}

/// No hook.
struct NoHook;

impl TickHook for NoHook {
    fn before_tick(&mut self, _: &mut ScriptHost) {}
    fn after_tick(&mut self, _: &ScriptHost, _: &[WorldEvent]) {}
}

/// Loads the mods and runs. Console lines (errors, logs, summaries) go to `console`.
/// With `realtime`, the mod folders are watched and saves reload (hot reload).
pub fn run(opts: &RunOptions, console: &mut impl Write) -> io::Result<RunReport> {
    run_with(opts, console, &mut NoHook)
}

/// [`run`], with `hook` called around every tick.
pub fn run_with(
    opts: &RunOptions,
    console: &mut impl Write,
    hook: &mut dyn TickHook,
) -> io::Result<RunReport> {
    let (mut host, mut tape) = start(opts, console)?;
    let mut trace: TraceOut = match &opts.trace {
        Some(p) => Some(io::BufWriter::new(std::fs::File::create(p)?)),
        None => None,
    };
    let mut report = RunReport {
        mods: host.loaded_mods(),
        ..Default::default()
    };
    let mut audio = match &opts.audio {
        Some(a) => Some(audio_out::AudioOut::create(a, host.world().seed())?),
        None => None,
    };
    flush(&mut host, &mut trace, console, &mut report, audio.as_mut())?;
    report.load_errors = report.errors.len();
    let mut tuning = events::Tuning::default();
    if let Some(t) = trace.as_mut() {
        write_tick(t, &host)?;
        tuning.write(t, &host.world())?;
    }
    if opts.profile.is_some() {
        host.set_profiling(Some(0));
    }
    let mut stdin = opts.console.then(console_lines::StdinLines::spawn);
    let mut repl = crate::script::console::Console::new();
    let paced = opts.realtime || opts.console;
    let start = Instant::now();
    let mut steps_this_second = 0usize;
    let mut tick_time = Duration::ZERO;
    let mut frame = 0u64;
    while opts.frames.is_none_or(|n| frame < n) {
        if let Some(lines) = stdin.as_mut() {
            let open = lines.run(&mut host, &mut repl, console)?;
            flush(&mut host, &mut trace, console, &mut report, audio.as_mut())?;
            if !open && opts.frames.is_none() {
                break;
            }
        }
        tape.before_tick(&mut host)?;
        if host.watching() {
            host.poll_reloads();
            flush(&mut host, &mut trace, console, &mut report, audio.as_mut())?;
        }
        hook.before_tick(&mut host);
        let t0 = Instant::now();
        let events = host.tick();
        tape.after_tick(&mut host)?;
        hook.after_tick(&host, &events);
        if let Some(a) = audio.as_mut() {
            a.after_tick(&mut host, &events)?;
        }
        if let Some(t) = trace.as_mut() {
            write_arrivals(t, host.world().frame(), &events)?;
        }
        tick_time += t0.elapsed();
        steps_this_second += events
            .iter()
            .filter(|e| matches!(e, WorldEvent::Step { .. }))
            .count();
        frame += 1;
        flush(&mut host, &mut trace, console, &mut report, audio.as_mut())?;
        if let Some(t) = trace.as_mut() {
            write_tick(t, &host)?;
            tuning.write(t, &host.world())?;
        }
        // A run without --frames ends when it is stopped: its profile is kept up to date.
        if let (Some(path), true) = (&opts.profile, frame.is_multiple_of(600)) {
            if let Some(figures) = host.profile() {
                profile_out::write_profile(path, &figures)?;
            }
        }
        if opts.summary && frame.is_multiple_of(60) {
            summary(console, &host, steps_this_second, tick_time)?;
            steps_this_second = 0;
            tick_time = Duration::ZERO;
        }
        if paced {
            pace(start, frame);
        }
    }
    if let Some(t) = trace.as_mut() {
        t.flush()?;
    }
    tape.finish()?;
    if let Some(a) = audio {
        writeln!(console, "{}", a.finish()?)?;
    }
    if let (Some(path), Some(figures)) = (&opts.profile, host.profile()) {
        profile_out::write_profile(path, &figures)?;
    }
    report.frames = frame;
    report.creatures = host.world().creatures().len();
    Ok(report)
}

/// Sleeps until tick `frame` is due, `frame` ticks of 1/60 s after `start`.
fn pace(start: Instant, frame: u64) {
    let due = start + Duration::from_secs_f64(frame as f64 * TICK_DT as f64);
    let now = Instant::now();
    if due > now {
        std::thread::sleep(due - now);
    }
}

/// Loads and validates the mods without running them; returns every error found.
pub fn check(mods: &[PathBuf], host: HostOptions) -> (ScriptHost, Vec<ScriptError>) {
    let mut h = ScriptHost::new(host);
    let errors = h.check(mods);
    (h, errors)
}
