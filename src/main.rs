//! The `skitter` command line: run mods (headless for now), check them.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};
use skitter::headless::{self, RunOptions};
use skitter::script::HostOptions;

mod cmd_net;
mod cmd_pack;

#[derive(Parser)]
#[command(
    name = "skitter",
    version,
    about = "Procedurally animated, script-defined creatures"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Cmd>,
}

#[derive(clap::Args, Clone)]
pub(crate) struct Limits {
    /// Seed for the world and every mod's math.random.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Script work each mod may do per tick, in work units (one per Luau function entry or
    /// loop back-edge, 25 per API call: the same count on any machine, at any load), before
    /// its creatures' share.
    #[arg(long, default_value_t = skitter::script::DEFAULT_WORK_PER_TICK)]
    cpu_budget: u64,
    /// Work units added to a mod's tick allowance for each creature its brains drive.
    #[arg(long, default_value_t = skitter::script::DEFAULT_WORK_PER_CREATURE)]
    cpu_budget_per_creature: u64,
    /// Wall-clock backstop per mod per tick, in milliseconds: stops a host call that runs long
    /// (the load gets 40x).
    #[arg(long, default_value_t = 250.0)]
    cpu_budget_ms: f64,
    /// Memory each mod's Lua state may use, in MiB.
    #[arg(long, default_value_t = 64)]
    memory_mb: usize,
    /// Most creatures one mod may have alive at once.
    #[arg(long, default_value_t = 4096)]
    max_creatures: usize,
    /// Most creatures in physics (active ragdolls) at once; more requests are refused
    /// with an error.
    #[arg(long, default_value_t = skitter::sim::DEFAULT_MAX_RAGDOLLS)]
    max_ragdolls: usize,
    /// Largest asset file (a model, its buffers, its images) a mod may load, in MiB.
    #[arg(long, default_value_t = skitter::model::DEFAULT_MAX_ASSET_MB, value_name = "MIB")]
    max_asset_mb: u64,
    /// Threads for the tick's per-creature work (default: every core). The same seed and
    /// mods give the same trace at any count.
    #[arg(long)]
    threads: Option<usize>,
    /// Level of detail: creatures farther than this many metres from the camera (in the
    /// window; default 40) or from --lod-focus (headless and --screenshot, where it is off
    /// unless given) update their locomotion and steering every --lod-every ticks. 0: off.
    #[arg(long, value_name = "METRES")]
    lod_radius: Option<f32>,
    /// How often far creatures update, in ticks.
    #[arg(long, default_value_t = skitter::sim::DEFAULT_DETAIL_EVERY, value_name = "TICKS")]
    lod_every: u32,
    /// The point of interest for --lod-radius when there is no window camera: X,Z metres.
    #[arg(long, default_value = "0,0", value_parser = parse_xz, value_name = "X,Z")]
    lod_focus: (f32, f32),
    /// A folder of mods where a mod's missing dependencies are looked up (repeat for more;
    /// default: the user mods folder, $XDG_DATA_HOME/skitter/mods). They are looked up
    /// beside the mods given first, then in the bundled scripts/, then here.
    #[arg(long, value_name = "DIR")]
    mods_path: Vec<PathBuf>,
}

impl Limits {
    pub(crate) fn host(&self) -> anyhow::Result<HostOptions> {
        anyhow::ensure!(
            self.cpu_budget_ms.is_finite() && self.cpu_budget_ms > 0.0,
            "--cpu-budget-ms must be > 0"
        );
        anyhow::ensure!(self.memory_mb >= 1, "--memory-mb must be >= 1");
        anyhow::ensure!(self.cpu_budget >= 1, "--cpu-budget must be >= 1");
        anyhow::ensure!(self.lod_every >= 1, "--lod-every must be >= 1");
        anyhow::ensure!(
            self.lod_radius.is_none_or(|r| r.is_finite() && r >= 0.0),
            "--lod-radius must be >= 0"
        );
        let users = if self.mods_path.is_empty() {
            user_mods_folder().into_iter().collect()
        } else {
            self.mods_path.clone()
        };
        Ok(HostOptions {
            mod_search: std::iter::once(bundled_scripts()).chain(users).collect(),
            seed: self.seed,
            work_per_tick: self.cpu_budget,
            work_per_creature: self.cpu_budget_per_creature,
            work_at_load: self.cpu_budget.saturating_mul(500),
            cpu_per_tick: Duration::from_secs_f64(self.cpu_budget_ms / 1e3),
            cpu_at_load: Duration::from_secs_f64((self.cpu_budget_ms / 1e3 * 40.0).max(2.0)),
            memory_limit: self.memory_mb << 20,
            max_creatures: self.max_creatures,
            max_ragdolls: self.max_ragdolls,
            max_asset_bytes: self.max_asset_mb.saturating_mul(1 << 20),
            threads: self.threads.unwrap_or_else(skitter::sim::cores),
            detail: self.detail(None),
            migrate_per_tick: skitter::script::DEFAULT_MIGRATE_PER_TICK,
        })
    }

    /// The level-of-detail setting: `--lod-radius` if given (0: off), else `default` (the
    /// window's radius; `None` headless).
    fn detail(&self, default: Option<f32>) -> Option<skitter::sim::Detail> {
        let radius = self.lod_radius.or(default).filter(|r| *r > 0.0)?;
        let (x, z) = self.lod_focus;
        Some(skitter::sim::Detail {
            focus: vec![glam::Vec3::new(x, 0.0, z)],
            radius,
            every: self.lod_every,
        })
    }
}

/// A command-line value of the wrong form (clap prints it after the option's name).
#[derive(Debug, thiserror::Error)]
enum ArgError {
    /// Not two numbers joined by `sep`.
    #[error("expected {form}, got \"{got}\"")]
    Form { form: &'static str, got: String },
    /// One of the two numbers does not parse.
    #[error("bad {what} in \"{got}\"")]
    Number { what: &'static str, got: String },
    /// A NaN or infinite coordinate.
    #[error("X,Z must be finite, got \"{0}\"")]
    NotFinite(String),
    /// A picture too small or too large.
    #[error("size must be between 1x1 and 8192x8192, got {0}")]
    Size(String),
}

/// Two numbers joined by `sep` (`form` names them), each parsed as `T`.
fn parse_pair<T: std::str::FromStr>(
    s: &str,
    sep: &[char],
    form: &'static str,
    names: [&'static str; 2],
) -> Result<(T, T), ArgError> {
    let (a, b) = s.split_once(sep).ok_or_else(|| ArgError::Form {
        form,
        got: s.to_string(),
    })?;
    let num = |v: &str, what| {
        v.trim().parse().map_err(|_| ArgError::Number {
            what,
            got: s.to_string(),
        })
    };
    Ok((num(a, names[0])?, num(b, names[1])?))
}

fn parse_xz(s: &str) -> Result<(f32, f32), ArgError> {
    let (x, z): (f32, f32) = parse_pair(s, &[','], "X,Z", ["X", "Z"])?;
    if !x.is_finite() || !z.is_finite() {
        return Err(ArgError::NotFinite(s.to_string()));
    }
    Ok((x, z))
}

/// `skitter run`'s options.
#[derive(clap::Args)]
struct RunArgs {
    /// Run without a window.
    #[arg(long)]
    headless: bool,
    /// Number of ticks (60 per second) to run; runs until stopped when absent.
    #[arg(long)]
    frames: Option<u64>,
    /// Write a JSON Lines trace here (headless runs).
    #[arg(long, requires = "headless")]
    trace: Option<PathBuf>,
    /// Pace ticks to the wall clock (headless runs; a window always is), with hot reload.
    #[arg(long, requires = "headless")]
    realtime: bool,
    /// Headless runs: read Luau lines from stdin and run them in the live world between
    /// ticks (the window has the same console on the ` key). Paced to the wall clock; without
    /// --frames the run ends with stdin. `:help` lists the console's directives.
    #[arg(long, requires = "headless", conflicts_with = "replay")]
    console: bool,
    /// Headless runs: profile every tick — each mod's callbacks per kind and behaviour (work
    /// units, milliseconds: mean, p95, worst), its budget share and memory, the tick's
    /// phases — and write the figures here as JSON at the end (and every 10 s of simulated
    /// time, for a run without --frames that is stopped).
    #[arg(long, requires = "headless", value_name = "FILE.json")]
    profile: Option<PathBuf>,
    /// Render the scene after --frames ticks into this PNG, offscreen (no window or display).
    #[arg(long, value_name = "FILE.png", conflicts_with_all = ["headless", "record", "replay"])]
    screenshot: Option<PathBuf>,
    /// Image size for --screenshot, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x720", value_parser = parse_size)]
    size: (u32, u32),
    /// Debug layers to draw, a comma list: targets, casts, contacts, plane, paths, lean, nav,
    /// ragdoll, bones, sticks, surface, net, springs, lod, or all (every overlay; sticks replaces the models, so
    /// it is asked for by name). The README lists what each draws.
    #[arg(long, default_value = "")]
    debug: String,
    /// Headless: mix what a listener at the camera hears (footfalls, lifts, hits) into this
    /// 16-bit stereo 48 kHz WAV, the same bytes for the same seed and mods.
    #[arg(long, value_name = "FILE.wav", requires = "headless")]
    audio_out: Option<PathBuf>,
    /// Window runs: no sound (the output device is not opened; `M` mutes a running window).
    #[arg(long, conflicts_with_all = ["headless", "screenshot"])]
    mute: bool,
    /// With --screenshot: render every tick and report frame times.
    #[arg(long, requires = "screenshot")]
    bench_frames: bool,
    /// With --screenshot: draw every model creature at this level of detail (0: the mesh as
    /// made, 1-3: coarser) instead of each at the coarsest whose error covers under a pixel —
    /// to compare, or to see a level.
    #[arg(long, value_name = "LEVEL", requires = "screenshot", value_parser = clap::value_parser!(u8).range(0..4))]
    lod: Option<u8>,
    /// Record what the world receives each tick (script commands, clicks, hits) here.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// Replay a record: the same inputs, tick by tick, with no callbacks running (the
    /// mods' level, types and tuning come from their files).
    #[arg(long, value_name = "FILE", conflicts_with = "record")]
    replay: Option<PathBuf>,
    /// Open the window in path edit mode (E) and print where each path point is drawn
    /// (window pixels), for scripted edits; with --screenshot, draw the edit gizmos.
    #[arg(long, conflicts_with_all = ["headless", "replay"])]
    edit_paths: bool,
    /// Window runs: write a CSV line per drawn frame here (when it was drawn, the gap
    /// since the last, the update's and the drawing's time, ticks, brains still moving
    /// after a reload, the mods reloaded in it), to find hitches.
    #[arg(long, value_name = "FILE.csv", conflicts_with_all = ["headless", "screenshot"])]
    frame_log: Option<PathBuf>,
    #[command(flatten)]
    limits: Limits,
    /// Mod folders, or folders of mod folders (default: the bundled scripts/).
    mods: Vec<PathBuf>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run mods: in a window, or --headless, or --screenshot to a PNG without a window.
    Run(RunArgs),
    /// Create a mod folder that runs as it is (with editor definitions for luau-lsp and LuaLS).
    New {
        /// The new mod's folder; its last component is the mod's name.
        path: PathBuf,
    },
    /// Write a creature type's model (the one it brings, or the one made from its
    /// definition) as a rigged binary glTF to open in Blender: its skeleton in the bind
    /// pose, its skinned mesh, its materials.
    Export {
        /// The type: `mod/name`, or a name only one loaded mod defines.
        #[arg(value_name = "TYPE")]
        type_name: String,
        /// The file to write (`.glb`).
        #[arg(value_name = "FILE.glb")]
        out: PathBuf,
        #[command(flatten)]
        limits: Limits,
        /// Mod folders, or folders of mod folders (default: the bundled scripts/).
        mods: Vec<PathBuf>,
    },
    /// Pack a mod folder into NAME-VERSION.zip (with each file's SHA-256; no .git, editor
    /// files or definitions) to hand over; `run`, `check` and `install` take the .zip.
    Pack(cmd_pack::PackArgs),
    /// Install a package (.zip) into the user mods folder, where dependencies are looked up,
    /// after checking every entry.
    Install(cmd_pack::InstallArgs),
    /// Serve the mods' world to viewers over UDP (`skitter join` watches and plays).
    Serve(cmd_net::ServeArgs),
    /// Join a server: a viewer that runs no mod and no physics, rebuilding every creature
    /// from the server's snapshots and foot plants.
    Join(cmd_net::JoinArgs),
    /// Load and validate mods; print every error as file:line; exit 1 on error.
    Check {
        #[command(flatten)]
        limits: Limits,
        /// Also draw each model type's bind pose (front, side, top; every leg, arm, free
        /// chain and helper coloured and named) to this PNG.
        #[arg(long, value_name = "FILE.png")]
        picture: Option<PathBuf>,
        /// Mod folders, or folders of mod folders (default: the bundled scripts/).
        mods: Vec<PathBuf>,
    },
}

/// Opens the window when there is a display and a GPU; otherwise says why and runs the same
/// mods headless, paced to the wall clock, with a summary line per second.
fn windowed_or_headless(
    opts: skitter::app::WindowOptions,
    stdout: &mut impl std::io::Write,
) -> anyhow::Result<()> {
    use skitter::app;
    let why = if app::display_available() {
        match app::run_window(opts.clone()) {
            Ok(()) => return Ok(()),
            Err(e) => format!("cannot open the window: {e:#}"),
        }
    } else {
        "no display (DISPLAY and WAYLAND_DISPLAY are unset)".to_string()
    };
    eprintln!("skitter: {why}; running headless instead (Ctrl-C to stop)");
    if let Some(log) = &opts.frame_log {
        eprintln!(
            "skitter: no frame log written to {} (it logs a window's frames)",
            log.display()
        );
    }
    let run = RunOptions {
        mods: opts.mods,
        frames: opts.frames,
        trace: None,
        realtime: true,
        summary: true,
        host: opts.host,
        record: opts.record,
        replay: opts.replay,
        console: false,
        profile: None,
        audio: None,
    };
    let report = headless::run(&run, stdout).context("running headless")?;
    eprintln!(
        "skitter: ran {} ticks; {} creatures; {} error(s)",
        report.frames,
        report.creatures,
        report.errors.len()
    );
    Ok(())
}

pub(crate) fn parse_size(s: &str) -> Result<(u32, u32), ArgError> {
    let (w, h): (u32, u32) = parse_pair(s, &['x', 'X'], "WIDTHxHEIGHT", ["width", "height"])?;
    if !(1..=8192).contains(&w) || !(1..=8192).contains(&h) {
        return Err(ArgError::Size(s.to_string()));
    }
    Ok((w, h))
}

pub(crate) fn default_mods(mods: Vec<PathBuf>) -> Vec<PathBuf> {
    if !mods.is_empty() {
        return mods;
    }
    vec![bundled_scripts()]
}

/// The bundled mods: `scripts/` here, else the source tree's.
fn bundled_scripts() -> PathBuf {
    let here = PathBuf::from("scripts");
    if here.is_dir() {
        return here;
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts")
}

/// The user mods folder: `$XDG_DATA_HOME/skitter/mods`, else `~/.local/share/skitter/mods`
/// (`None` with neither variable set).
pub(crate) fn user_mods_folder() -> Option<PathBuf> {
    let set = |v: &str| {
        std::env::var_os(v)
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
    };
    set("XDG_DATA_HOME")
        .or_else(|| set("HOME").map(|h| h.join(".local/share")))
        .map(|d| d.join("skitter/mods"))
}

fn main() -> ExitCode {
    match real_main() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("skitter: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn real_main() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    quiet_vulkan_device_select();
    let mut stdout = std::io::stdout().lock();
    match cli.command {
        None => {
            windowed_or_headless(
                skitter::app::WindowOptions {
                    mods: default_mods(Vec::new()),
                    frames: None,
                    host: HostOptions {
                        detail: Some(skitter::sim::Detail::around(
                            glam::Vec3::ZERO,
                            skitter::sim::DEFAULT_DETAIL_RADIUS,
                        )),
                        ..HostOptions::default()
                    },
                    debug: skitter::render::DebugFlags::default(),
                    record: None,
                    replay: None,
                    edit_paths: false,
                    frame_log: None,
                    mute: false,
                },
                &mut stdout,
            )?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Cmd::Run(args)) => run_cmd(args, &mut stdout),
        Some(Cmd::New { path }) => new_cmd(&path),
        Some(Cmd::Pack(args)) => cmd_pack::pack_cmd(args, &mut stdout),
        Some(Cmd::Install(args)) => cmd_pack::install_cmd(args, &mut stdout),
        Some(Cmd::Serve(args)) => cmd_net::serve_cmd(args, &mut stdout),
        Some(Cmd::Join(args)) => cmd_net::join_cmd(args, &mut stdout),
        Some(Cmd::Check {
            limits,
            picture,
            mods,
        }) => check_cmd(&default_mods(mods), limits.host()?, picture.as_deref()),
        Some(Cmd::Export {
            type_name,
            out,
            limits,
            mods,
        }) => export_cmd(&type_name, &out, &default_mods(mods), limits.host()?),
    }
}

/// Without a desktop session (no usable `XDG_RUNTIME_DIR`, no Wayland display) Mesa's Vulkan
/// device-select layer still asks libwayland for a compositor to pick the GPU by, and
/// libwayland prints "error: XDG_RUNTIME_DIR is invalid or not set in the environment."
/// (once per device enumeration): harmless, but it reads as a failure — in a window on an
/// X display without a session (Xvfb, a remote X) as offscreen. With no session the layer
/// has no compositor to ask, so it is switched off (its own `NODEVICE_SELECT=1`; wgpu still
/// picks the adapter by its power preference) unless the user chose a device
/// (`MESA_VK_DEVICE_SELECT`) or set the switch.
///
/// Called first thing in `main`, before any thread starts (setting the environment is not
/// thread-safe).
fn quiet_vulkan_device_select() {
    let set = |v: &str| std::env::var_os(v).is_some_and(|s| !s.is_empty());
    let session = std::env::var_os("XDG_RUNTIME_DIR")
        .is_some_and(|d| !d.is_empty() && std::path::Path::new(&d).is_dir());
    let chosen = [
        "WAYLAND_DISPLAY",
        "MESA_VK_DEVICE_SELECT",
        "NODEVICE_SELECT",
    ]
    .iter()
    .any(|v| set(v));
    if !session && !chosen {
        std::env::set_var("NODEVICE_SELECT", "1");
    }
}

/// `skitter run`: offscreen to a picture, in a window, or headless.
fn run_cmd(args: RunArgs, stdout: &mut impl std::io::Write) -> anyhow::Result<ExitCode> {
    // Unpaced and unbounded, a trace grows by hundreds of megabytes a minute.
    if args.trace.is_some() && args.frames.is_none() && !args.realtime {
        anyhow::bail!(
            "--trace needs --frames N (or --realtime to pace the run to the clock): unbounded and unpaced, a trace grows by hundreds of megabytes a minute"
        );
    }
    let debug = skitter::render::DebugFlags::parse(&args.debug)?;
    if let Some(out) = &args.screenshot {
        let opts = skitter::app::ShotOptions {
            mods: default_mods(args.mods.clone()),
            frames: args.frames.unwrap_or(60),
            size: args.size,
            debug,
            bench: args.bench_frames,
            lod: args.lod.map(usize::from),
            host: args.limits.host()?,
            edit_paths: args.edit_paths,
        };
        return screenshot_cmd(&opts, out, stdout);
    }
    if args.headless {
        return headless_cmd(args, stdout);
    }
    // A log that cannot be written is said at once (not taken for a window that cannot
    // open).
    if let Some(p) = &args.frame_log {
        std::fs::File::create(p)
            .with_context(|| format!("cannot write the frame log {}", p.display()))?;
    }
    let host = HostOptions {
        detail: args
            .limits
            .detail(Some(skitter::sim::DEFAULT_DETAIL_RADIUS)),
        ..args.limits.host()?
    };
    windowed_or_headless(
        skitter::app::WindowOptions {
            mods: default_mods(args.mods),
            frames: args.frames,
            host,
            debug,
            record: args.record,
            replay: args.replay,
            edit_paths: args.edit_paths,
            frame_log: args.frame_log,
            mute: args.mute,
        },
        stdout,
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `--audio-out`'s listener where the window's camera starts (a script's `camera.look`
/// moves it).
fn audio_at_start(path: PathBuf) -> headless::AudioOptions {
    let cam = skitter::render::OrbitCamera::default();
    headless::AudioOptions {
        path,
        eye: cam.eye(),
        target: cam.target,
    }
}

/// `skitter run --headless`: the ticks as fast as they go (or paced), a trace if asked.
fn headless_cmd(args: RunArgs, stdout: &mut impl std::io::Write) -> anyhow::Result<ExitCode> {
    let opts = RunOptions {
        host: args.limits.host()?,
        mods: default_mods(args.mods),
        frames: args.frames,
        trace: args.trace,
        realtime: args.realtime,
        // Someone typing at the console is not shown a line a second under their prompt.
        summary: !(args.console && std::io::IsTerminal::is_terminal(&std::io::stdin())),
        record: args.record,
        replay: args.replay,
        console: args.console,
        profile: args.profile,
        audio: args.audio_out.map(audio_at_start),
    };
    let report = headless::run(&opts, stdout).context("running")?;
    eprintln!(
        "skitter: ran {} ticks; {} creatures; mods: {}; {} error(s)",
        report.frames,
        report.creatures,
        report.mods.join(", "),
        report.errors.len()
    );
    // The world ran what loaded; a script or CI running a scene still learns that
    // something did not.
    if report.load_errors > 0 {
        eprintln!(
            "skitter: {} error(s) while loading the mods (above): exit status 1",
            report.load_errors
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// `skitter run --screenshot`: runs the mods offscreen and writes the picture.
fn screenshot_cmd(
    opts: &skitter::app::ShotOptions,
    out: &std::path::Path,
    stdout: &mut impl std::io::Write,
) -> anyhow::Result<ExitCode> {
    let size = opts.size;
    let report = skitter::app::shoot(opts, out, stdout)?;
    eprintln!(
        "skitter: wrote {} ({}x{}, {} creatures, {} draw calls, models by level of detail {}, {} model triangles, adapter: {})",
        out.display(),
        size.0,
        size.1,
        report.creatures,
        report.stats.draw_calls,
        report
            .stats
            .per_lod
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join("/"),
        report.stats.skinned_triangles,
        report.adapter
    );
    if let (Some(f), Some(c)) = (report.mean_frame, report.mean_cpu) {
        println!(
            "frame time: {:.2} ms mean (render submit to idle); CPU instances: {:.3} ms",
            f.as_secs_f64() * 1e3,
            c.as_secs_f64() * 1e3
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `skitter new PATH`.
fn new_cmd(path: &std::path::Path) -> anyhow::Result<ExitCode> {
    let files = skitter::scaffold::new_mod(path)?;
    println!("created {} ({} files)", path.display(), files.len());
    let p = path.display();
    println!("  skitter check {p}                        # every error, as file:line");
    println!("  skitter run --headless --frames 300 {p}  # 5 s without a window: what it did, then it ends");
    println!("  skitter run {p}                          # see it (a window until you close it); save a file to change it live");
    Ok(ExitCode::SUCCESS)
}

/// `skitter check`: every error as `mod/file.lua:LINE: ...`; exit 1 when there is one.
/// What a mod will do: what it defines, the files it loads, its load's cost, its budget.
fn print_mod_report(r: &skitter::script::ModReport) {
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    println!(
        "  defines: types {}; behaviours {}",
        list(&r.types),
        list(&r.behaviours)
    );
    let assets: Vec<String> = r.assets.iter().map(|(f, k)| format!("{f} ({k})")).collect();
    println!("  loads: {}", list(&assets));
    println!(
        "  its load: {} work units, {:.1} MiB of Lua memory, {} level piece(s) built, {} creature(s) spawned",
        r.load_units,
        r.memory as f64 / (1 << 20) as f64,
        r.level_pieces,
        r.spawns_at_load
    );
    println!(
        "  runs under: {} work units a tick + {} a creature it drives, {} MiB (--cpu-budget, --cpu-budget-per-creature, --memory-mb)",
        r.budget.0,
        r.budget.1,
        r.budget.2 >> 20
    );
}

fn check_cmd(
    mods: &[PathBuf],
    host: HostOptions,
    picture: Option<&std::path::Path>,
) -> anyhow::Result<ExitCode> {
    let (mut host, errors) = headless::check(mods, host);
    for out in host.drain_output() {
        if let skitter::script::HostOutput::Log(l) = &out {
            if l.level == skitter::script::LogLevel::Warn {
                println!("warning: {}", l.text);
            }
        }
    }
    for e in &errors {
        println!("{e}");
    }
    // Where each mod came from (a dependency found by lookup says where and for whom).
    let reports = host.mod_reports();
    for (name, version, from) in host.mod_origins() {
        println!("mod {name} {version}: {from}");
        if let Some(r) = reports.iter().find(|r| r.name == name) {
            print_mod_report(r);
        }
    }
    let w = host.world();
    // What each model type's skeleton was bound as: the legs found, their bones, lengths.
    for t in w.types() {
        if let Some(m) = t.model.as_ref().filter(|m| !m.generated) {
            println!("{}: model {}", t.name, m.describe());
            let groups: Vec<String> = (0..t.def.group_count)
                .map(|g| {
                    t.def
                        .legs
                        .iter()
                        .filter(|l| l.group == g)
                        .map(|l| l.name.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect();
            println!("  gait groups: {}", groups.join(" | "));
        }
    }
    if let Some(file) = picture {
        let models: Vec<(String, &skitter::model::BoundModel)> = w
            .types()
            .iter()
            .filter_map(|t| {
                t.model
                    .as_deref()
                    .filter(|m| !m.generated)
                    .map(|m| (t.name.clone(), m))
            })
            .collect();
        match skitter::model::picture(&models, file) {
            Ok(()) => println!(
                "picture: {} ({} model type(s))",
                file.display(),
                models.len()
            ),
            Err(e) => {
                println!("error: {e}");
                return Ok(ExitCode::FAILURE);
            }
        }
    }
    if errors.is_empty() {
        println!(
            "ok: {} mod(s) ({}), {} creature type(s), {} creature(s)",
            host.loaded_mods().len(),
            host.loaded_mods().join(", "),
            w.types().len(),
            w.creatures().len()
        );
        Ok(ExitCode::SUCCESS)
    } else {
        println!("{} error(s)", errors.len());
        Ok(ExitCode::from(1))
    }
}

/// `skitter export TYPE FILE.glb`: the type's model written as a GLB.
fn export_cmd(
    type_name: &str,
    out: &std::path::Path,
    mods: &[PathBuf],
    host: HostOptions,
) -> anyhow::Result<ExitCode> {
    let (host, errors) = headless::check(mods, host);
    for e in &errors {
        eprintln!("{e}");
    }
    let w = host.world();
    let matches: Vec<&skitter::sim::CreatureType> = w
        .types()
        .iter()
        .filter(|t| t.name == type_name || t.name.rsplit('/').next() == Some(type_name))
        .collect();
    let t = match matches.as_slice() {
        [t] => *t,
        [] => anyhow::bail!(
            "no creature type \"{type_name}\" (types: {})",
            w.types()
                .iter()
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        many => anyhow::bail!(
            "\"{type_name}\" names {} types ({}): give mod/name",
            many.len(),
            many.iter()
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let m = t
        .model
        .as_ref()
        .with_context(|| format!("type {} has no model", t.name))?;
    let record = skitter::sim::plan_record(t);
    let bytes = skitter::model::to_glb(&m.model, record.as_ref())
        .map_err(|e| anyhow::anyhow!("cannot export {}: {e}", t.name))?;
    std::fs::write(out, &bytes).with_context(|| format!("cannot write {}", out.display()))?;
    eprintln!(
        "skitter: wrote {} ({}: {} joints, {} legs, {} arms, {} bytes)",
        out.display(),
        t.name,
        m.model.joints.len(),
        m.binding.legs.len(),
        m.binding.arms.len(),
        bytes.len()
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_points_parse_and_bad_ones_say_what_is_wrong() {
        assert_eq!(parse_size("320x180").expect("size"), (320, 180));
        assert_eq!(parse_size(" 64 X 48 ").expect("size"), (64, 48));
        assert_eq!(parse_xz("1.5, -2").expect("point"), (1.5, -2.0));
        let err = |r: Result<(u32, u32), ArgError>| r.expect_err("bad").to_string();
        assert_eq!(err(parse_size("320")), "expected WIDTHxHEIGHT, got \"320\"");
        assert_eq!(err(parse_size("ax9")), "bad width in \"ax9\"");
        assert_eq!(err(parse_size("9x-1")), "bad height in \"9x-1\"");
        assert_eq!(
            err(parse_size("0x10")),
            "size must be between 1x1 and 8192x8192, got 0x10"
        );
        let err = |r: Result<(f32, f32), ArgError>| r.expect_err("bad").to_string();
        assert_eq!(err(parse_xz("1;2")), "expected X,Z, got \"1;2\"");
        assert_eq!(err(parse_xz("1,z")), "bad Z in \"1,z\"");
        assert_eq!(err(parse_xz("inf,0")), "X,Z must be finite, got \"inf,0\"");
    }
}
