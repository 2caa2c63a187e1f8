//! `skitter serve --headless` and `skitter join --headless`: the run loops around a
//! server and a viewer on UDP.

use std::io::{self, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::server::{NetServer, ServerOptions};
use super::udp::{UdpServer, UdpViewer};
use super::viewer::{NetViewer, ViewerStatus};
use crate::headless::{self, RunOptions, RunReport, TickHook, TraceLine};
use crate::script::ScriptHost;
use crate::sim::{WorldEvent, TICK_DT};

/// The server's part of a run (headless or in the window): network in before each
/// tick, out after it.
pub struct Serving {
    server: NetServer,
    udp: UdpServer,
    last: Instant,
}

impl Serving {
    /// Listens on `addr` (with `secret`, only viewers that know it join).
    pub fn bind(
        addr: SocketAddr,
        secret: Option<&str>,
        opts: ServerOptions,
    ) -> io::Result<Serving> {
        Ok(Serving {
            server: NetServer::new(opts),
            udp: UdpServer::bind(addr, secret)?,
            last: Instant::now(),
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.udp.addr()
    }
}

impl TickHook for Serving {
    fn before_tick(&mut self, host: &mut ScriptHost) {
        let dt = self.last.elapsed();
        self.last = Instant::now();
        self.server.sync_mods(host);
        self.udp.receive(&mut self.server, dt, &host.world());
        self.server.apply_inputs(host);
    }

    fn after_tick(&mut self, host: &ScriptHost, events: &[WorldEvent]) {
        self.server.after_tick(&host.world(), events);
        self.udp.send(&mut self.server);
    }

    fn status(&self) -> Option<String> {
        let stats = self.server.viewer_stats();
        let mut line = format!("serving on {}: {} viewer(s)", self.udp.addr(), stats.len());
        for s in stats.values() {
            line += &format!(
                "\n  ping {:.0} ms, loss {:.1} %, {:.1} kB/s",
                s.rtt * 1e3,
                s.loss * 100.0,
                s.bytes_per_sec / 1e3
            );
        }
        Some(line)
    }
}

/// Serves `run`'s world on `addr` (paced to the wall clock) until its frames are done.
/// Prints the address it listens on first.
pub fn serve(
    run: &RunOptions,
    addr: SocketAddr,
    secret: Option<&str>,
    opts: ServerOptions,
    console: &mut impl Write,
) -> io::Result<RunReport> {
    let mut hook = Serving::bind(addr, secret, opts)?;
    writeln!(console, "serving on {}", hook.addr())?;
    console.flush()?;
    let run = RunOptions {
        realtime: true,
        ..run.clone()
    };
    headless::run_with(&run, console, &mut hook)
}

/// What a headless viewer run does.
#[derive(Clone, Debug)]
pub struct JoinOptions {
    /// The server.
    pub addr: SocketAddr,
    /// The server's shared secret, if it has one.
    pub secret: Option<String>,
    /// Frames (60 a second) to run once the server has welcomed it.
    pub frames: u64,
    /// Trace file: the same lines as a run's, each with the server time it shows.
    pub trace: Option<PathBuf>,
    /// Give up if not live within this long.
    pub join_timeout: Duration,
    /// A simulated link in front of the viewer.
    pub sim: Option<super::LinkSim>,
    /// The asset cache folder (`None`: the default).
    pub cache: Option<PathBuf>,
    /// Mix what a listener hears of the shown world into a WAV.
    pub audio: Option<crate::headless::AudioOptions>,
}

/// Joins a server without a window: runs `frames` frames at 60 Hz from its welcome, writing
/// the trace.
/// Returns the viewer at the end (its world, its figures).
pub fn join_headless(opts: &JoinOptions, console: &mut impl Write) -> anyhow::Result<NetViewer> {
    let mut udp = UdpViewer::connect(opts.addr, opts.secret.as_deref(), opts.sim)?;
    let mut viewer = match &opts.cache {
        Some(dir) => NetViewer::with_cache(dir.clone()),
        None => NetViewer::new(),
    };
    let mut trace = match &opts.trace {
        Some(p) => Some(io::BufWriter::new(std::fs::File::create(p)?)),
        None => None,
    };
    let mut audio = match &opts.audio {
        Some(a) => Some(crate::headless::AudioOut::create(a, 0)?),
        None => None,
    };
    let start = Instant::now();
    let dt = Duration::from_secs_f64(TICK_DT as f64);
    let mut said_live = false;
    // `frames` counts from the welcome: a server slow to start (a window opening on a busy
    // machine) shortens nothing; `join_timeout` bounds the wait before it.
    let (mut frame, mut live_frames) = (0u64, 0u64);
    while live_frames < opts.frames {
        udp.frame(&mut viewer, dt)?;
        match viewer.status() {
            ViewerStatus::Refused(why) => anyhow::bail!("the server refused: {why}"),
            ViewerStatus::Disconnected(why) => anyhow::bail!("disconnected: {why}"),
            ViewerStatus::Joining if start.elapsed() > opts.join_timeout => {
                anyhow::bail!(
                    "no answer from {} within {:.0?} (is `skitter serve` running there?)",
                    opts.addr,
                    opts.join_timeout
                )
            }
            ViewerStatus::Live if !said_live => {
                writeln!(console, "joined {}", opts.addr)?;
                said_live = true;
            }
            _ => {}
        }
        if let Some(a) = audio.as_mut().filter(|_| said_live) {
            // A frame (from the welcome) is a tick long: its sounds are one block.
            a.write_tick(&viewer.take_sounds(), viewer.world())?;
        }
        if let (Some(t), Some(st)) = (trace.as_mut(), viewer.shown_time()) {
            // Frames and times from the welcome, as the WAV's blocks.
            let line = TraceLine {
                frame: live_frames,
                t: live_frames as f64 * TICK_DT as f64,
                server_time: Some(st),
            };
            headless::write_world(t, viewer.world(), line, &|_| None)?;
        }
        if said_live {
            live_frames += 1;
        }
        frame += 1;
        let due = start + dt * (frame as u32);
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
    }
    if let Some(t) = trace.as_mut() {
        t.flush()?;
    }
    if let Some(a) = audio {
        writeln!(console, "{}", a.finish()?)?;
    }
    Ok(viewer)
}
