//! The `skitter` command line: run mods (headless for now), check them.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};
use skitter::headless::{self, RunOptions};
use skitter::script::HostOptions;

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
struct Limits {
    /// Seed for the world and every mod's math.random.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// CPU time each mod may use per tick, in milliseconds.
    #[arg(long, default_value_t = 4.0)]
    cpu_budget_ms: f64,
    /// Memory each mod's Lua state may use, in MiB.
    #[arg(long, default_value_t = 64)]
    memory_mb: usize,
}

impl Limits {
    fn host(&self) -> anyhow::Result<HostOptions> {
        anyhow::ensure!(
            self.cpu_budget_ms.is_finite() && self.cpu_budget_ms > 0.0,
            "--cpu-budget-ms must be > 0"
        );
        anyhow::ensure!(self.memory_mb >= 1, "--memory-mb must be >= 1");
        Ok(HostOptions {
            seed: self.seed,
            cpu_per_tick: Duration::from_secs_f64(self.cpu_budget_ms / 1e3),
            cpu_at_load: Duration::from_secs_f64((self.cpu_budget_ms / 1e3 * 500.0).max(2.0)),
            memory_limit: self.memory_mb << 20,
        })
    }
}

#[derive(Subcommand)]
enum Cmd {
    /// Run mods. Without --headless this will open a window (not available yet: runs headless).
    Run {
        /// Run without a window.
        #[arg(long)]
        headless: bool,
        /// Number of ticks (60 per second) to run; runs until stopped when absent.
        #[arg(long)]
        frames: Option<u64>,
        /// Write a JSON Lines trace here.
        #[arg(long)]
        trace: Option<PathBuf>,
        /// Pace ticks to the wall clock.
        #[arg(long)]
        realtime: bool,
        #[command(flatten)]
        limits: Limits,
        /// Mod folders, or folders of mod folders (default: the bundled scripts/).
        mods: Vec<PathBuf>,
    },
    /// Load and validate mods; print every error as file:line; exit 1 on error.
    Check {
        #[command(flatten)]
        limits: Limits,
        /// Mod folders, or folders of mod folders (default: the bundled scripts/).
        mods: Vec<PathBuf>,
    },
}

fn default_mods(mods: Vec<PathBuf>) -> Vec<PathBuf> {
    if !mods.is_empty() {
        return mods;
    }
    let here = PathBuf::from("scripts");
    if here.is_dir() {
        return vec![here];
    }
    vec![PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts")]
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
    let mut stdout = std::io::stdout().lock();
    match cli.command {
        None => {
            eprintln!("skitter: the window is not available yet; running the bundled demo headless (Ctrl-C to stop)");
            let opts = RunOptions {
                mods: default_mods(Vec::new()),
                frames: None,
                trace: None,
                realtime: true,
                summary: true,
                host: HostOptions::default(),
            };
            headless::run(&opts, &mut stdout).context("running the demo")?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Cmd::Run {
            headless: is_headless,
            frames,
            trace,
            realtime,
            limits,
            mods,
        }) => {
            if !is_headless {
                eprintln!("skitter: the window is not available yet; running headless");
            }
            let opts = RunOptions {
                mods: default_mods(mods),
                frames,
                trace,
                realtime: realtime || !is_headless,
                summary: true,
                host: limits.host()?,
            };
            let report = headless::run(&opts, &mut stdout).context("running")?;
            eprintln!(
                "skitter: ran {} ticks; {} creatures; mods: {}; {} error(s)",
                report.frames,
                report.creatures,
                report.mods.join(", "),
                report.errors.len()
            );
            Ok(ExitCode::SUCCESS)
        }
        Some(Cmd::Check { limits, mods }) => {
            let (host, errors) = headless::check(&default_mods(mods), limits.host()?);
            for e in &errors {
                println!("{e}");
            }
            let w = host.world();
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
    }
}
