//! `skitter serve` and `skitter join`: the command line of multiplayer.

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use skitter::headless::RunOptions;
use skitter::net::{JoinOptions, LinkSim, ServerOptions, ViewerMode};

/// `skitter serve`'s options.
#[derive(clap::Args)]
pub(crate) struct ServeArgs {
    /// UDP port to listen on (0: any free one; the line `serving on ADDR` says which).
    #[arg(long, default_value_t = skitter::net::DEFAULT_PORT)]
    port: u16,
    /// Address to listen on.
    #[arg(long, default_value = "0.0.0.0")]
    bind: std::net::IpAddr,
    /// Serve without a window of the server's own.
    #[arg(long)]
    headless: bool,
    /// Ticks (60 per second) to serve (a window: frames drawn); serves until stopped when
    /// absent.
    #[arg(long)]
    frames: Option<u64>,
    /// Write the server's trace here (the same as `skitter run --headless`'s).
    #[arg(long, requires = "headless")]
    trace: Option<PathBuf>,
    /// Record what the world receives (scripts' commands and viewers' inputs) here.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// What viewers may do: watch, or play (click to walk a creature, K to knock it over).
    #[arg(long, default_value = "play", value_parser = ["watch", "play"])]
    viewers: String,
    /// Only viewers that know this secret may join (netcode's secure connect tokens).
    #[arg(long)]
    secret: Option<String>,
    /// Snapshots a second (20 by default; 60 / N for a whole N).
    #[arg(long, default_value_t = 20)]
    snapshot_rate: u32,
    /// Bytes a second each viewer's snapshots may use.
    #[arg(long, default_value_t = 250_000)]
    budget: usize,
    /// The server's window: no sound (`M` mutes a running window).
    #[arg(long, conflicts_with = "headless")]
    mute: bool,
    #[command(flatten)]
    limits: crate::Limits,
    /// Mod folders, or folders of mod folders (default: the bundled scripts/).
    mods: Vec<PathBuf>,
}

/// `skitter join`'s options.
#[derive(clap::Args)]
pub(crate) struct JoinArgs {
    /// The server: HOST:PORT (the port defaults to skitter's).
    addr: String,
    /// Join without a window.
    #[arg(long)]
    headless: bool,
    /// Frames (60 per second) to run; a window closes after them (default: open until
    /// closed), a headless or --screenshot run defaults to 120, counted from the server's
    /// welcome.
    #[arg(long)]
    frames: Option<u64>,
    /// Write the viewer's trace here (each line also carrying `server_time`).
    #[arg(long, requires = "headless")]
    trace: Option<PathBuf>,
    /// After --frames frames, draw what the viewer shows into this PNG, offscreen.
    #[arg(long, value_name = "FILE.png", conflicts_with = "headless")]
    screenshot: Option<PathBuf>,
    /// Image size for --screenshot, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x720", value_parser = crate::parse_size)]
    size: (u32, u32),
    /// Debug layers to draw (as `skitter run --debug`; `net` draws the server's latest
    /// snapshot beside each body).
    #[arg(long, default_value = "")]
    debug: String,
    /// The server's secret, if it has one.
    #[arg(long)]
    secret: Option<String>,
    /// A simulated bad link in front of this viewer, e.g. latency=100,jitter=20,loss=2
    /// (milliseconds, percent; also dup, reorder, burst=START/END).
    #[arg(long, value_name = "SPEC")]
    net_sim: Option<LinkSim>,
    /// The asset cache folder (files by content hash; default $SKITTER_CACHE, else
    /// $XDG_CACHE_HOME/skitter, else ~/.cache/skitter).
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Seconds to wait for the server before giving up.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
    /// A window: no sound (the output device is not opened; `M` mutes a running window).
    #[arg(long, conflicts_with_all = ["headless", "screenshot"])]
    mute: bool,
    /// Headless: mix what a listener at the camera's start hears of the shown world (feet
    /// landing and lifting, hits) into this 16-bit stereo 48 kHz WAV, a frame at a time.
    #[arg(long, value_name = "FILE.wav", requires = "headless")]
    audio_out: Option<PathBuf>,
}

fn resolve(addr: &str) -> anyhow::Result<SocketAddr> {
    let with_port = if addr
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
    {
        addr.to_string()
    } else {
        format!("{addr}:{}", skitter::net::DEFAULT_PORT)
    };
    with_port
        .to_socket_addrs()
        .with_context(|| format!("cannot resolve {addr}"))?
        .next()
        .with_context(|| format!("{addr} has no address"))
}

pub(crate) fn serve_cmd(
    args: ServeArgs,
    stdout: &mut impl std::io::Write,
) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        args.snapshot_rate >= 1 && 60 % args.snapshot_rate == 0,
        "--snapshot-rate must divide 60 (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60), got {}",
        args.snapshot_rate
    );
    let run = RunOptions {
        host: args.limits.host()?,
        mods: crate::default_mods(args.mods),
        frames: args.frames,
        trace: args.trace,
        realtime: true,
        summary: true,
        record: args.record,
        replay: None,
        console: false,
        profile: None,
        audio: None,
    };
    let opts = ServerOptions {
        snapshot_every: 60 / args.snapshot_rate,
        budget: args.budget,
        mode: if args.viewers == "watch" {
            ViewerMode::Watch
        } else {
            ViewerMode::Play
        },
        ..ServerOptions::default()
    };
    let addr = SocketAddr::new(args.bind, args.port);
    if !args.headless && skitter::app::display_available() {
        let serving = skitter::net::Serving::bind(addr, args.secret.as_deref(), opts.clone())
            .with_context(|| format!("serving on {addr}"))?;
        writeln!(stdout, "serving on {}", serving.addr())?;
        let window = skitter::app::WindowOptions {
            mods: run.mods.clone(),
            // The window counts drawn frames (a server's window closes after them).
            frames: run.frames,
            host: run.host.clone(),
            debug: skitter::render::DebugFlags::default(),
            record: run.record.clone(),
            replay: None,
            edit_paths: false,
            frame_log: None,
            mute: args.mute,
        };
        match skitter::app::run_window_with(window, Some(Box::new(serving))) {
            Ok(()) => return Ok(ExitCode::SUCCESS),
            Err(e) => {
                eprintln!("skitter: cannot open the server's window ({e:#}); serving headless")
            }
        }
    } else if !args.headless {
        eprintln!("skitter: no display (DISPLAY and WAYLAND_DISPLAY are unset); serving headless");
    }
    let report = skitter::net::serve(&run, addr, args.secret.as_deref(), opts, stdout)
        .with_context(|| format!("serving on {addr}"))?;
    eprintln!(
        "skitter: served {} ticks; {} creatures; mods: {}; {} error(s)",
        report.frames,
        report.creatures,
        report.mods.join(", "),
        report.errors.len()
    );
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn join_cmd(
    args: JoinArgs,
    stdout: &mut impl std::io::Write,
) -> anyhow::Result<ExitCode> {
    let addr = resolve(&args.addr)?;
    let debug = skitter::render::DebugFlags::parse(&args.debug)?;
    anyhow::ensure!(
        args.timeout.is_finite() && args.timeout > 0.0,
        "--timeout must be > 0"
    );
    if !args.headless && args.screenshot.is_none() {
        anyhow::ensure!(
            skitter::app::display_available(),
            "no display (DISPLAY and WAYLAND_DISPLAY are unset): join with --headless (and --trace), or --screenshot"
        );
        skitter::app::run_join_window(skitter::app::JoinWindowOptions {
            addr,
            secret: args.secret,
            sim: args.net_sim,
            debug,
            frames: args.frames,
            cache: args.cache,
            mute: args.mute,
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    let opts = JoinOptions {
        addr,
        secret: args.secret,
        frames: args.frames.unwrap_or(120),
        trace: args.trace,
        join_timeout: Duration::from_secs_f64(args.timeout),
        sim: args.net_sim,
        cache: args.cache,
        audio: args.audio_out.map(crate::audio_at_start),
    };
    let viewer = skitter::net::join_headless(&opts, stdout)?;
    let f = viewer.figures();
    eprintln!(
        "skitter: viewed {} frames; {} creatures; buffer {:.0} ms; loss {:.1} %; {} bytes received; largest datagram {} B",
        f.frames,
        viewer.world().creatures().len(),
        f.delay * 1e3,
        f.loss * 100.0,
        f.bytes,
        f.largest_packet
    );
    if let Some(out) = &args.screenshot {
        let r = skitter::app::shoot_viewer(&viewer, args.size, debug, out)?;
        eprintln!(
            "skitter: wrote {} ({} creatures, adapter: {})",
            out.display(),
            r.creatures,
            r.adapter
        );
    }
    Ok(ExitCode::SUCCESS)
}
