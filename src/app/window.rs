//! The window: winit 0.30 event loop, wgpu surface, fixed 60 Hz ticks drawn interpolated,
//! orbit camera, picking and click-to-move, debug layers, egui overlay (stats, inspector
//! with live gait sliders, script and shader errors, help), and WGSL hot reload.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context as _;
use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop, OwnedDisplayHandle};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowId};

use super::view::View;
use crate::headless::Tape;
use crate::render::gpu::open_device;
use crate::render::{DebugFlags, Renderer};
use crate::script::{HostOptions, HostOutput, ScriptHost};
use crate::sim::Command;

/// What to open.
#[derive(Clone, Debug)]
pub struct WindowOptions {
    /// Mod folders.
    pub mods: Vec<PathBuf>,
    /// Close after this many rendered frames (tests); run until closed when `None`.
    pub frames: Option<u64>,
    /// Host limits and seed.
    pub host: HostOptions,
    /// Debug layers on at start.
    pub debug: DebugFlags,
    /// Record what the world receives (script commands, clicks, hits) into this file.
    pub record: Option<PathBuf>,
    /// Replay this record instead of running callbacks.
    pub replay: Option<PathBuf>,
    /// Start in path edit mode and print where each path point is drawn.
    pub edit_paths: bool,
    /// Write one CSV line per drawn frame here (its timing, ticks, reloads): to find hitches.
    pub frame_log: Option<PathBuf>,
    /// No sound: the output device is not opened.
    pub mute: bool,
}

/// Whether a display server is reachable (X11 or Wayland).
pub fn display_available() -> bool {
    std::env::var_os("DISPLAY").is_some_and(|d| !d.is_empty())
        || std::env::var_os("WAYLAND_DISPLAY").is_some_and(|d| !d.is_empty())
}

/// Opens the window and runs until it is closed (or `frames` are drawn).
pub fn run(opts: WindowOptions) -> anyhow::Result<()> {
    run_with(opts, None)
}

/// [`run`], with `hook` around every tick (a network server: `skitter serve`).
pub fn run_with(
    opts: WindowOptions,
    hook: Option<Box<dyn crate::headless::TickHook>>,
) -> anyhow::Result<()> {
    let (tape, host) = Tape::open(opts.record.clone(), opts.replay.clone(), &opts.host)?;
    let opts = WindowOptions { host, ..opts };
    let event_loop = EventLoop::new().context("cannot open the window system")?;
    let frame_log = opts
        .frame_log
        .as_deref()
        .map(FrameLog::create)
        .transpose()?;
    let mut app = App::new(opts, tape, event_loop.owned_display_handle());
    app.frame_log = frame_log;
    app.hook = hook;
    event_loop.run_app(&mut app).context("window event loop")?;
    if let Some(l) = app.speaker.summary() {
        eprintln!("{l}");
    }
    app.tape.finish().context("writing the record")?;
    match app.failure.take() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// A window's drawing state: its surface, renderer and overlay.
pub(crate) struct Gfx {
    pub(crate) window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    pub(crate) config: wgpu::SurfaceConfiguration,
    pub(crate) renderer: Renderer,
    pub(crate) adapter: String,
    pub(crate) egui_state: egui_winit::State,
    egui_renderer: egui_wgpu::Renderer,
}

impl Gfx {
    /// Resizes the surface.
    pub(crate) fn resize(&mut self, w: u32, h: u32) {
        self.config.width = w.max(1);
        self.config.height = h.max(1);
        self.surface.configure(self.renderer.device(), &self.config);
    }

    /// The frame's texture, or `None` (the surface was reconfigured, or is not ready).
    pub(crate) fn texture(&mut self) -> Option<wgpu::SurfaceTexture> {
        match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => Some(t),
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                self.surface.configure(self.renderer.device(), &self.config);
                None
            }
            _ => None,
        }
    }
}

#[derive(Default)]
struct Mouse {
    pos: (f32, f32),
    left_down_at: Option<(f32, f32)>,
    right: bool,
    middle: bool,
    mods: winit::keyboard::ModifiersState,
}

#[derive(Default)]
struct Stats {
    frame_ms: f32,
    tick_ms: f32,
}

/// `--frame-log`: a CSV line per drawn frame, so a hitch can be found and blamed (the
/// update — scripts, reloads, ticks — or the drawing).
struct FrameLog {
    out: std::io::BufWriter<std::fs::File>,
    start: Instant,
    /// When the last frame was presented.
    last: Option<Instant>,
    /// This frame so far: its update's time, ticks and the mods it reloaded.
    update_ms: f64,
    ticks: u32,
    reloaded: Vec<String>,
    /// A write failed: it said so once and logs no more.
    stopped: bool,
}

impl FrameLog {
    const HEADER: &'static str = "frame,at_ms,gap_ms,update_ms,draw_ms,ticks,migrating,reloaded";

    fn create(path: &std::path::Path) -> anyhow::Result<FrameLog> {
        use std::io::Write as _;
        let f = std::fs::File::create(path)
            .with_context(|| format!("cannot write the frame log {}", path.display()))?;
        let mut out = std::io::BufWriter::new(f);
        writeln!(out, "{}", FrameLog::HEADER)?;
        Ok(FrameLog {
            out,
            start: Instant::now(),
            last: None,
            update_ms: 0.0,
            ticks: 0,
            reloaded: Vec::new(),
            stopped: false,
        })
    }

    /// A frame was presented: its line (flushed, so a reader sees it at once).
    fn presented(&mut self, frame: u64, drawn_from: Instant, migrating: usize) {
        use std::io::Write as _;
        if self.stopped {
            return;
        }
        let now = Instant::now();
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        let gap = self.last.map_or(0.0, |l| ms(now - l));
        let line = format!(
            "{frame},{:.3},{gap:.3},{:.3},{:.3},{},{migrating},{}",
            ms(now - self.start),
            self.update_ms,
            ms(now - drawn_from),
            self.ticks,
            self.reloaded.join(" ")
        );
        self.last = Some(now);
        self.update_ms = 0.0;
        self.ticks = 0;
        self.reloaded.clear();
        // A log that cannot be written stops logging, not the window.
        if writeln!(self.out, "{line}")
            .and_then(|()| self.out.flush())
            .is_err()
        {
            eprintln!("skitter: the frame log could not be written; it stops here");
            self.stopped = true;
        }
    }
}

struct App {
    opts: WindowOptions,
    display: OwnedDisplayHandle,
    host: ScriptHost,
    view: View,
    gfx: Option<Gfx>,
    egui: egui::Context,
    mouse: Mouse,
    stats: Stats,
    last: Instant,
    clock: super::clock::Clock,
    frames: u64,
    show_help: bool,
    errors: Vec<String>,
    shader_watch: Option<super::shader_watch::ShaderWatch>,
    failure: Option<anyhow::Error>,
    tape: Tape,
    toasts: Vec<super::ui::Toast>,
    /// Space lowered every muscle (everyone limp) until pressed again.
    muscles_lowered: bool,
    frame_log: Option<FrameLog>,
    /// Around each tick (a network server's part).
    hook: Option<Box<dyn crate::headless::TickHook>>,
    /// The console (`` ` ``).
    console: super::console_panel::ConsolePanel,
    /// Footfalls and thuds heard at the camera (kept across restarts: `R`).
    speaker: super::speaker::Speaker,
}

fn load_host(opts: &WindowOptions, tape: &mut Tape) -> (ScriptHost, View) {
    let mut host = ScriptHost::new(opts.host.clone());
    // Navmeshes bake on worker threads: frames never wait for them (but a run being
    // recorded or replayed bakes in the tick, so the replay matches).
    host.world_mut()
        .set_background_bakes(opts.replay.is_none() && opts.record.is_none());
    host.load(&opts.mods);
    if let Err(e) = tape.start(&mut host, &mut std::io::stderr()) {
        eprintln!("skitter: record/replay: {e}");
    }
    if !host.replaying() {
        if let Err(e) = host.watch() {
            eprintln!("skitter: hot reload is off: cannot watch the mods: {e}");
        }
    }
    let mut view = View::new(&host.world());
    view.debug = opts.debug;
    view.edit.on = opts.edit_paths && !host.replaying();
    view.apply(host.take_camera_requests());
    (host, view)
}

impl App {
    fn new(opts: WindowOptions, mut tape: Tape, display: OwnedDisplayHandle) -> App {
        let (host, view) = load_host(&opts, &mut tape);
        let speaker = super::speaker::Speaker::open(opts.host.seed, opts.mute);
        App {
            opts,
            display,
            host,
            view,
            gfx: None,
            egui: egui::Context::default(),
            mouse: Mouse::default(),
            stats: Stats::default(),
            last: Instant::now(),
            clock: super::clock::Clock::default(),
            frames: 0,
            show_help: false,
            errors: Vec::new(),
            shader_watch: None,
            failure: None,
            tape,
            toasts: Vec::new(),
            muscles_lowered: false,
            frame_log: None,
            hook: None,
            console: Default::default(),
            speaker,
        }
    }

    fn fail(&mut self, event_loop: &ActiveEventLoop, e: anyhow::Error) {
        self.failure = Some(e);
        event_loop.exit();
    }

    fn watch_shaders(&mut self) {
        match super::shader_watch::ShaderWatch::new(&super::shader_dir().join("scene.wgsl")) {
            Ok(w) => self.shader_watch = Some(w),
            Err(e) => self
                .errors
                .push(format!("shader hot reload unavailable: {e}")),
        }
    }

    fn poll_shaders(&mut self) {
        let Some(watch) = &self.shader_watch else {
            return;
        };
        let Some(src) = watch.poll() else { return };
        let path = watch.path().display().to_string();
        let Some(gfx) = self.gfx.as_mut() else { return };
        let reloaded = match src {
            Ok(src) => gfx.renderer.reload_shader(&src).map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        match reloaded {
            Ok(()) => eprintln!("skitter: reloaded {path}"),
            Err(e) => eprintln!("skitter: {path}: keeping the last good pipelines:\n{e}"),
        }
    }

    fn drain_host(&mut self) {
        for out in self.host.drain_output() {
            if out.is_error() {
                eprintln!("{out}");
            } else {
                println!("{out}");
            }
            match out {
                HostOutput::Error(e) => self.errors.push(e.to_string()),
                HostOutput::Reload(r) => self.toasts.push(super::ui::Toast {
                    text: match &r.error {
                        None => format!("{} reloaded in {:.0} ms", r.mod_name, r.ms),
                        Some(e) => format!("{} did not reload: {e}", r.mod_name),
                    },
                    ok: r.ok,
                    at: Instant::now(),
                }),
                HostOutput::Log(l) => self.console.log(&l),
            }
        }
        self.view.apply(self.host.take_camera_requests());
        // Full detail around the camera (when a level of detail is set).
        let eye = self.view.camera.eye();
        self.host.world_mut().set_detail_focus(&[eye]);
    }

    fn step(&mut self) {
        let started = Instant::now();
        let reloaded = self.host.poll_reloads();
        if let Some(log) = &mut self.frame_log {
            log.reloaded.extend(reloaded.iter().map(|r| match r.ok {
                true => r.mod_name.clone(),
                false => format!("{}(failed)", r.mod_name),
            }));
        }
        self.drain_host();
        self.toasts
            .retain(|t| t.at.elapsed() < super::ui::Toast::SHOWN);
        let now = Instant::now();
        let dt = (now - self.last).as_secs_f64();
        self.last = now;
        if let Some(s) = self.host.take_time_scale() {
            self.clock.set_scale(s);
        }
        let t0 = Instant::now();
        let (tape, host, errors, view, hook, speaker) = (
            &mut self.tape,
            &mut self.host,
            &mut self.errors,
            &mut self.view,
            &mut self.hook,
            &mut self.speaker,
        );
        let ticks = self.clock.frame(dt, || {
            let started = Instant::now();
            if let Err(e) = tape.before_tick(host) {
                errors.push(format!("replay: {e}"));
                *tape = Tape::default();
            }
            if let Some(h) = hook.as_mut() {
                h.before_tick(host);
            }
            let events = host.tick();
            if let Err(e) = tape.after_tick(host) {
                errors.push(format!("record: {e}"));
            }
            if let Some(h) = hook.as_mut() {
                h.after_tick(host, &events);
            }
            speaker.queue(&events, host.take_sound_requests(), &host.world());
            view.after_tick(&host.world());
            started.elapsed().as_secs_f64()
        });
        let ear = (self.view.camera.eye(), self.view.camera.target);
        self.speaker.frame(dt, &self.host.world(), ear);
        if ticks > 0 {
            let per = t0.elapsed().as_secs_f32() * 1e3 / ticks as f32;
            self.stats.tick_ms = self.stats.tick_ms * 0.9 + per * 0.1;
        }
        self.stats.frame_ms = self.stats.frame_ms * 0.9 + dt as f32 * 1e3 * 0.1;
        self.drain_host();
        let alpha = self.clock.alpha();
        let posing = Instant::now();
        self.view.prepare_frame(alpha, dt as f32, &self.host);
        self.host.profile_frame_phase("posing", posing.elapsed());
        if let Some(log) = &mut self.frame_log {
            log.update_ms += started.elapsed().as_secs_f64() * 1e3;
            log.ticks += ticks;
        }
    }

    fn redraw(&mut self, event_loop: &ActiveEventLoop) {
        self.poll_shaders();
        self.step();
        let drawn_from = Instant::now();
        let Some(gfx) = self.gfx.as_mut() else { return };
        let size = (gfx.config.width, gfx.config.height);
        {
            let w = self.host.world();
            gfx.renderer.set_level(w.level(), w.level_version());
            gfx.renderer.set_models(w.types());
            gfx.renderer.prepare(
                &self.view.frame,
                &self.view.camera,
                size,
                w.level(),
                w.time() as f32,
            );
        }
        let Some(texture) = gfx.texture() else {
            return;
        };
        let target = texture.texture.create_view(&Default::default());
        let mut encoder = gfx
            .renderer
            .device()
            .create_command_encoder(&Default::default());
        gfx.renderer.encode(&mut encoder, &target, size);

        // The overlay.
        let input = gfx.egui_state.take_egui_input(&gfx.window);
        let mut actions = Vec::new();
        let output = {
            let host = &self.host;
            let view = &self.view;
            let stats = &self.stats;
            let errors = &mut self.errors;
            let show_help = &mut self.show_help;
            let toasts = &self.toasts;
            let console = &mut self.console;
            let draw = gfx.renderer.stats;
            let net = self.hook.as_ref().and_then(|h| h.status());
            let shader_error = gfx.renderer.shader_error.clone();
            let adapter = gfx.adapter.clone();
            let sound = self.speaker.line();
            self.egui.run_pass(input, |ctx| {
                let readouts = super::ui::Readouts {
                    frame_ms: stats.frame_ms,
                    tick_ms: stats.tick_ms,
                    speed: self.clock.speed(),
                    scale: self.clock.scale(),
                    paused: self.clock.paused(),
                    draw,
                    adapter: &adapter,
                    sound: &sound,
                    net: net.as_deref(),
                };
                super::ui::overlay(
                    ctx,
                    host,
                    view,
                    &readouts,
                    errors,
                    shader_error.as_deref(),
                    show_help,
                    &mut actions,
                );
                super::ui::toasts(ctx, toasts);
                console.draw(ctx, host);
                super::profile_panel::draw(ctx, host);
            })
        };
        present(&self.egui, gfx, output, encoder, &target, texture, size);
        self.host
            .profile_frame_phase("drawing", drawn_from.elapsed());
        for a in actions {
            super::ui::apply(a, &mut self.host, &mut self.view, &mut self.clock);
        }
        self.console.run_requests(&mut self.host);
        self.frames += 1;
        if let Some(log) = &mut self.frame_log {
            log.presented(self.frames, drawn_from, self.host.brains_migrating());
        }
        if self.frames == 2 && self.opts.edit_paths {
            super::path_edit::print_gizmos(&self.host, &self.view.camera, size);
        }
        if self.opts.frames.is_some_and(|n| self.frames >= n) {
            event_loop.exit();
        }
    }

    fn click(&mut self, x: f32, y: f32) {
        let Some(gfx) = &self.gfx else { return };
        let (w, h) = (gfx.config.width, gfx.config.height);
        if let Some(id) = self.view.pick_creature(x, y, w, h) {
            self.view.selected = Some(id);
            return;
        }
        let Some(sel) = self.view.selected else {
            return;
        };
        if self.host.replaying() {
            // A replay's inputs come from its record; clicks only select.
            return;
        }
        let (o, d) = self.view.camera.ray(x, y, w, h);
        let hit = self.host.world_mut().raycast(o, d, 500.0);
        match hit {
            Some(hit) => self.host.send_to(sel, Some(hit.position)),
            None => self.view.selected = None,
        }
    }

    fn key(&mut self, key: &Key) {
        let name = match key {
            Key::Character(c) => c.to_lowercase(),
            Key::Named(NamedKey::Delete | NamedKey::Backspace) => "delete".to_string(),
            _ => String::new(),
        };
        let m = self.mouse.mods;
        if self
            .view
            .edit
            .key(&mut self.host, &name, m.control_key(), m.shift_key())
        {
            return;
        }
        match key {
            Key::Named(NamedKey::Home) => {
                self.view.camera = self.view.home;
                self.view.follow = None;
            }
            Key::Named(NamedKey::Escape) => {
                self.view.selected = None;
                self.view.follow = None;
            }
            Key::Named(NamedKey::Space) if !self.host.replaying() => {
                self.muscles_lowered = !self.muscles_lowered;
                super::muscles::set_all_muscles(&mut self.host.world_mut(), self.muscles_lowered);
            }
            Key::Character(c) => match c.as_str() {
                "`" => self.console.toggle(),
                "o" | "O" => super::profile_panel::toggle(&mut self.host),
                "h" | "H" => self.show_help = !self.show_help,
                "m" | "M" => self.speaker.toggle_mute(),
                "p" | "P" => self.clock.toggle_pause(),
                "." => self.clock.step_once(),
                "[" => self.clock.nudge(false),
                "]" => self.clock.nudge(true),
                "e" | "E" => super::path_edit::toggle(&mut self.view.edit, &self.host),
                "f" | "F" => {
                    self.view.follow = if self.view.follow.is_some() {
                        None
                    } else {
                        self.view.selected
                    }
                }
                "r" | "R" => {
                    let debug = self.view.debug;
                    let camera = self.view.camera;
                    let _ = self.tape.finish();
                    (self.host, self.view) = load_host(&self.opts, &mut self.tape);
                    self.view.debug = debug;
                    self.view.camera = camera;
                    self.errors.clear();
                    self.drain_host();
                }
                "1" => self.view.debug.targets ^= true,
                "2" => self.view.debug.casts ^= true,
                "3" => self.view.debug.contacts ^= true,
                "4" => self.view.debug.plane ^= true,
                "5" => self.view.debug.paths ^= true,
                "6" => self.view.debug.lean ^= true,
                "7" => self.view.debug.nav ^= true,
                "8" => self.view.debug.ragdoll ^= true,
                "9" => self.view.debug.bones ^= true,
                "0" => self.view.debug.sticks ^= true,
                "u" | "U" => self.view.debug.surface ^= true,
                "n" | "N" => self.view.debug.net ^= true,
                "j" | "J" => self.view.debug.springs ^= true,
                "l" | "L" => self.view.debug.lod ^= true,
                "k" | "K" => {
                    if let Some(id) = self.view.selected.filter(|_| !self.host.replaying()) {
                        let fwd = self.view.camera.target - self.view.camera.eye();
                        super::muscles::knock_over(&mut self.host.world_mut(), id, fwd);
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.gfx.is_some() {
            return;
        }
        match open_gfx(event_loop, &self.display, &self.egui, "skitter") {
            Ok(g) => {
                g.window.request_redraw();
                self.gfx = Some(g);
                self.watch_shaders();
                self.drain_host();
                self.last = Instant::now();
            }
            Err(e) => self.fail(event_loop, e),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let consumed = match self.gfx.as_mut() {
            Some(g) => g.egui_state.on_window_event(&g.window, &event).consumed,
            None => false,
        };
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => {
                if let Some(g) = self.gfx.as_mut() {
                    g.resize(size.width, size.height);
                }
            }
            WindowEvent::RedrawRequested => self.redraw(event_loop),
            WindowEvent::ModifiersChanged(m) => self.mouse.mods = m.state(),
            WindowEvent::CursorMoved { position, .. } => {
                let p = (position.x as f32, position.y as f32);
                let (dx, dy) = (p.0 - self.mouse.pos.0, p.1 - self.mouse.pos.1);
                if self.mouse.right {
                    self.view.camera.orbit(dx, dy);
                }
                if self.mouse.middle {
                    self.view.camera.pan(dx, dy);
                    self.view.follow = None;
                }
                self.mouse.pos = p;
                if self.view.edit.grabbing() {
                    if let Some(g) = &self.gfx {
                        let m = self.mouse.mods;
                        self.view.edit.motion(
                            &mut self.host,
                            &self.view.camera,
                            p,
                            (g.config.width, g.config.height),
                            m.shift_key(),
                            m.alt_key(),
                        );
                    }
                }
            }
            WindowEvent::MouseInput { state, button, .. }
                if !consumed || state == ElementState::Released =>
            {
                let down = state == ElementState::Pressed;
                match button {
                    MouseButton::Right => self.mouse.right = down,
                    MouseButton::Middle => self.mouse.middle = down,
                    MouseButton::Left if down && !consumed => {
                        let size = self.gfx.as_ref().map(|g| (g.config.width, g.config.height));
                        let took = size.is_some_and(|size| {
                            self.view.edit.press(
                                &mut self.host,
                                &self.view.camera,
                                self.mouse.pos,
                                size,
                            )
                        });
                        if !took {
                            self.mouse.left_down_at = Some(self.mouse.pos)
                        }
                    }
                    MouseButton::Left if self.view.edit.grabbing() => {
                        self.view.edit.release(&mut self.host);
                    }
                    MouseButton::Left => {
                        if let Some(at) = self.mouse.left_down_at.take() {
                            let moved =
                                (at.0 - self.mouse.pos.0).abs() + (at.1 - self.mouse.pos.1).abs();
                            if moved < 6.0 {
                                self.click(self.mouse.pos.0, self.mouse.pos.1);
                            }
                        }
                    }
                    _ => {}
                }
            }
            WindowEvent::MouseWheel { delta, .. } if !consumed => {
                let steps = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 60.0,
                };
                self.view.camera.zoom(steps);
            }
            WindowEvent::KeyboardInput { event, .. }
                if !consumed && event.state == ElementState::Pressed =>
            {
                self.key(&event.logical_key)
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some(g) = &self.gfx {
            g.window.request_redraw();
        }
    }
}

/// Opens a window titled `title` with its surface, renderer and overlay.
pub(crate) fn open_gfx(
    event_loop: &ActiveEventLoop,
    display: &OwnedDisplayHandle,
    egui: &egui::Context,
    title: &str,
) -> anyhow::Result<Gfx> {
    let attrs = Window::default_attributes()
        .with_title(title)
        .with_inner_size(winit::dpi::LogicalSize::new(1280.0, 720.0));
    let window = Arc::new(
        event_loop
            .create_window(attrs)
            .context("cannot create the window")?,
    );
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(
        Box::new(display.clone()),
    ));
    let surface = instance
        .create_surface(window.clone())
        .context("cannot create a drawing surface")?;
    let (adapter, device, queue) = open_device(&instance, Some(&surface))?;
    let size = window.inner_size();
    let mut config = surface
        .get_default_config(&adapter, size.width.max(1), size.height.max(1))
        .context("the adapter cannot present to this window")?;
    let caps = surface.get_capabilities(&adapter);
    if let Some(f) = caps.formats.iter().find(|f| f.is_srgb()) {
        config.format = *f;
    }
    config.present_mode = wgpu::PresentMode::AutoVsync;
    surface.configure(&device, &config);
    let egui_renderer = egui_wgpu::Renderer::new(
        &device,
        config.format,
        egui_wgpu::RendererOptions::default(),
    );
    let renderer = Renderer::new(device, queue, config.format, &super::scene_shader());
    let egui_state = egui_winit::State::new(
        egui.clone(),
        egui::ViewportId::ROOT,
        &window,
        Some(window.scale_factor() as f32),
        None,
        None,
    );
    let adapter = adapter.get_info().name;
    Ok(Gfx {
        window,
        surface,
        config,
        renderer,
        adapter,
        egui_state,
        egui_renderer,
    })
}

/// Stops a creature the user sent somewhere (used by the inspector).
pub(crate) fn stop(host: &mut ScriptHost, id: crate::sim::CreatureId) {
    host.send_to(id, None);
    host.world_mut()
        .push(Command::SetIntent(id, crate::locomotion::Intent::Idle));
}

/// Draws the egui overlay over the frame in `encoder`, submits and presents it.
pub(crate) fn present(
    egui: &egui::Context,
    gfx: &mut Gfx,
    output: egui::FullOutput,
    mut encoder: wgpu::CommandEncoder,
    target: &wgpu::TextureView,
    texture: wgpu::SurfaceTexture,
    size: (u32, u32),
) {
    gfx.egui_state
        .handle_platform_output(&gfx.window, output.platform_output);
    let ppp = output.pixels_per_point;
    let jobs = egui.tessellate(output.shapes, ppp);
    let screen = egui_wgpu::ScreenDescriptor {
        size_in_pixels: [size.0, size.1],
        pixels_per_point: ppp,
    };
    let (device, queue) = (gfx.renderer.device().clone(), gfx.renderer.queue().clone());
    let mut textures = output.textures_delta;
    for (id, deltas) in textures.set.drain() {
        for delta in deltas.iter() {
            gfx.egui_renderer.update_texture(&device, &queue, id, delta);
        }
    }
    let extra = gfx
        .egui_renderer
        .update_buffers(&device, &queue, &mut encoder, &jobs, &screen);
    {
        let pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("egui"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: target,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Load,
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        let mut pass = pass.forget_lifetime();
        gfx.egui_renderer.render(&mut pass, &jobs, &screen);
    }
    queue.submit(extra.into_iter().chain([encoder.finish()]));
    gfx.window.pre_present_notify();
    queue.present(texture);
    for id in textures.free.drain() {
        gfx.egui_renderer.free_texture(&id);
    }
    textures.clear();
}
