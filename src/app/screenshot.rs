//! `skitter run --screenshot`: run the mods headless for N ticks, then render the scene
//! offscreen (no window, no display) and write a PNG.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::view::View;
use crate::render::offscreen::{write_png, Offscreen};
use crate::render::DebugFlags;
use crate::script::{HostOptions, HostOutput, ScriptError, ScriptHost};

/// What to shoot.
#[derive(Clone, Debug)]
pub struct ShotOptions {
    /// Mod folders.
    pub mods: Vec<PathBuf>,
    /// Ticks to run before the picture.
    pub frames: u64,
    /// Image size.
    pub size: (u32, u32),
    /// Debug layers drawn.
    pub debug: DebugFlags,
    /// Render every tick and report frame times.
    pub bench: bool,
    /// Every model creature at this level of detail (`None`: chosen per creature).
    pub lod: Option<usize>,
    /// Host limits and seed.
    pub host: HostOptions,
    /// Draw the path editor's gizmos (as `--edit-paths` shows them in the window).
    pub edit_paths: bool,
}

/// What a shot did.
#[derive(Clone, Debug, Default)]
pub struct ShotReport {
    /// Adapter used.
    pub adapter: String,
    /// Script errors.
    pub errors: Vec<ScriptError>,
    /// The last frame's draw calls, instances, model triangles and levels of detail.
    pub stats: crate::render::FrameStats,
    /// Creatures drawn.
    pub creatures: usize,
    /// Mean GPU frame time (submit to idle) over the frames rendered, when benchmarking.
    pub mean_frame: Option<Duration>,
    /// Mean CPU time per frame for snapshot + instances + upload, when benchmarking.
    pub mean_cpu: Option<Duration>,
}

/// Runs the mods and writes the PNG to `out`.
pub fn shoot(
    opts: &ShotOptions,
    out: &Path,
    console: &mut dyn std::io::Write,
) -> anyhow::Result<ShotReport> {
    let mut host = ScriptHost::new(opts.host.clone());
    host.load(&opts.mods);
    let mut report = ShotReport::default();
    let mut view = View::new(&host.world());
    view.debug = opts.debug;
    view.edit.on = opts.edit_paths;
    let mut shot = Offscreen::new(opts.size.0, opts.size.1, &super::scene_shader())?;
    report.adapter = shot.adapter_name.clone();
    shot.renderer.lod_force = opts.lod;
    if let Some(e) = &shot.renderer.shader_error {
        writeln!(console, "shader error (using the built-in shader): {e}")?;
    }
    let (mut gpu_total, mut cpu_total, mut rendered) = (Duration::ZERO, Duration::ZERO, 0u32);
    let drain = |host: &mut ScriptHost,
                 report: &mut ShotReport,
                 console: &mut dyn std::io::Write|
     -> std::io::Result<()> {
        for out in host.drain_output() {
            writeln!(console, "{out}")?;
            if let HostOutput::Error(e) = out {
                report.errors.push(e);
            }
        }
        Ok(())
    };
    drain(&mut host, &mut report, console)?;
    view.apply(host.take_camera_requests());
    for f in 0..opts.frames {
        // Full detail around the camera (when a level of detail is set).
        host.world_mut().set_detail_focus(&[view.camera.eye()]);
        host.tick();
        drain(&mut host, &mut report, console)?;
        view.apply(host.take_camera_requests());
        view.after_tick(&host.world());
        if opts.bench && f + 1 < opts.frames {
            let t0 = Instant::now();
            view.prepare_frame(1.0, 1.0 / 60.0, &host);
            let t1 = Instant::now();
            draw(&mut shot, &view, &host);
            cpu_total += t1 - t0;
            gpu_total += t1.elapsed();
            rendered += 1;
        }
    }
    view.prepare_frame(1.0, 1.0 / 60.0, &host);
    draw(&mut shot, &view, &host);
    report.creatures = host.world().creatures().len();
    let rgba = shot.read()?;
    write_png(out, opts.size.0, opts.size.1, &rgba)?;
    report.stats = shot.renderer.stats;
    if rendered > 0 {
        report.mean_frame = Some(gpu_total / rendered);
        report.mean_cpu = Some(cpu_total / rendered);
    }
    Ok(report)
}

/// Renders the view's current frame offscreen.
fn draw(shot: &mut Offscreen, view: &View, host: &ScriptHost) {
    let w = host.world();
    shot.renderer.set_models(w.types());
    shot.draw(
        w.level(),
        w.level_version(),
        &view.frame,
        &view.camera,
        w.time() as f32,
    );
}
