//! `skitter join ADDR`: a network viewer in a window. It draws what the viewer shows (the
//! server's world a buffer delay behind, every creature rebuilt here), orbits like the
//! main window, and sends clicks: select a creature, click the ground to walk it there,
//! `K` to knock it over. The overlay says the link: ping, loss, bytes a second, the
//! buffer's delay.

use std::time::{Duration, Instant};

use anyhow::Context as _;
use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop, OwnedDisplayHandle};
use winit::keyboard::Key;
use winit::window::WindowId;

use super::view::View;
use super::window::{open_gfx, present, Gfx};
use crate::net::{NetViewer, UdpViewer, ViewerStatus};
use crate::render::DebugFlags;

/// What a viewer window joins and shows.
#[derive(Clone, Debug)]
pub struct JoinWindowOptions {
    /// The server.
    pub addr: std::net::SocketAddr,
    /// Its secret, if it has one.
    pub secret: Option<String>,
    /// A simulated link in front of the viewer.
    pub sim: Option<crate::net::LinkSim>,
    /// Debug layers on at start.
    pub debug: DebugFlags,
    /// Close after this many frames (tests).
    pub frames: Option<u64>,
    /// The asset cache folder (`None`: the default).
    pub cache: Option<std::path::PathBuf>,
    /// No sound: the output device is not opened.
    pub mute: bool,
}

struct ViewerApp {
    opts: JoinWindowOptions,
    display: OwnedDisplayHandle,
    egui: egui::Context,
    gfx: Option<Gfx>,
    viewer: NetViewer,
    udp: UdpViewer,
    view: Option<View>,
    mouse: (f32, f32),
    left_at: Option<(f32, f32)>,
    orbit: bool,
    pan: bool,
    last: Instant,
    frames: u64,
    failure: Option<anyhow::Error>,
    said_live: bool,
    /// Feet and hits heard at the camera.
    speaker: super::speaker::Speaker,
}

/// Opens a viewer window on `opts.addr` and runs until it is closed.
pub fn run_join_window(opts: JoinWindowOptions) -> anyhow::Result<()> {
    let udp = UdpViewer::connect(opts.addr, opts.secret.as_deref(), opts.sim)?;
    let event_loop = EventLoop::new().context("cannot open the window system")?;
    let viewer = match &opts.cache {
        Some(dir) => NetViewer::with_cache(dir.clone()),
        None => NetViewer::new(),
    };
    // The viewer's world has no seed of the server's: variations from a fixed one.
    let speaker = super::speaker::Speaker::open(0, opts.mute);
    let mut app = ViewerApp {
        speaker,
        display: event_loop.owned_display_handle(),
        opts,
        egui: egui::Context::default(),
        gfx: None,
        viewer,
        udp,
        view: None,
        mouse: (0.0, 0.0),
        left_at: None,
        orbit: false,
        pan: false,
        last: Instant::now(),
        frames: 0,
        failure: None,
        said_live: false,
    };
    event_loop.run_app(&mut app).context("window event loop")?;
    if let Some(l) = app.speaker.summary() {
        eprintln!("{l}");
    }
    match app.failure.take() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

impl ViewerApp {
    fn fail(&mut self, event_loop: &ActiveEventLoop, e: anyhow::Error) {
        self.failure = Some(e);
        event_loop.exit();
    }

    /// The network and the viewer's frame; the view made once the world has its level.
    fn update(&mut self) -> anyhow::Result<()> {
        let now = Instant::now();
        let dt = (now - self.last).min(Duration::from_millis(250));
        self.last = now;
        self.udp.frame(&mut self.viewer, dt)?;
        let sounds = self.viewer.take_sounds();
        match self.viewer.status() {
            ViewerStatus::Refused(why) => anyhow::bail!("the server refused: {why}"),
            ViewerStatus::Disconnected(why) => anyhow::bail!("disconnected: {why}"),
            ViewerStatus::Live if !self.said_live => {
                println!("joined {}", self.opts.addr);
                self.said_live = true;
            }
            _ => {}
        }
        let world = self.viewer.world();
        if self.view.is_none() && world.level().ground.is_some() {
            let mut v = View::new(world);
            v.debug = self.opts.debug;
            self.view = Some(v);
        }
        if let Some(v) = self.view.as_mut() {
            let ear = (v.camera.eye(), v.camera.target);
            self.speaker.queue(&sounds, Vec::new(), world);
            self.speaker.frame(dt.as_secs_f64(), world, ear);
            // What is near the camera is sent first.
            let focus = v.camera.target;
            v.after_tick(world);
            v.prepare_world(1.0, dt.as_secs_f32(), world, &[]);
            if v.debug.net {
                super::join::net_lines(v, &self.viewer);
            }
            self.viewer.set_camera(Some(focus));
        }
        Ok(())
    }

    fn status_text(&self) -> String {
        let f = self.viewer.figures();
        let (rtt, loss, bps) = self.viewer.link();
        let state = match self.viewer.status() {
            ViewerStatus::Joining => "joining…".to_string(),
            ViewerStatus::Live => format!("joined {}", self.opts.addr),
            ViewerStatus::Refused(w) | ViewerStatus::Disconnected(w) => w.clone(),
        };
        format!(
            "{state}\nping {:.0} ms   loss {:.1} %   {:.1} kB/s\nbuffer {:.0} ms   creatures {}\n{}\n{}",
            rtt * 1e3,
            loss.max(f.loss) * 100.0,
            bps / 1e3,
            f.delay * 1e3,
            self.viewer.world().creatures().len(),
            if self.viewer.may_play() {
                "click a creature, then the ground to walk it there; K knocks it over; N: the server's latest snapshot"
            } else {
                "watching (the server takes no clicks); N: the server's latest snapshot"
            },
            self.speaker.line() + " (M: off / on)"
        )
    }

    fn redraw(&mut self, event_loop: &ActiveEventLoop) {
        if let Err(e) = self.update() {
            return self.fail(event_loop, e);
        }
        let text = self.status_text();
        let (Some(gfx), Some(view)) = (self.gfx.as_mut(), self.view.as_ref()) else {
            return;
        };
        let size = (gfx.config.width, gfx.config.height);
        let w = self.viewer.world();
        gfx.renderer.set_level(w.level(), w.level_version());
        gfx.renderer.set_models(w.types());
        gfx.renderer
            .prepare(&view.frame, &view.camera, size, w.level(), w.time() as f32);
        let Some(texture) = gfx.texture() else { return };
        let target = texture.texture.create_view(&Default::default());
        let mut encoder = gfx
            .renderer
            .device()
            .create_command_encoder(&Default::default());
        gfx.renderer.encode(&mut encoder, &target, size);
        let input = gfx.egui_state.take_egui_input(&gfx.window);
        let output = self.egui.run_pass(input, |ctx| {
            egui::Window::new("network")
                .anchor(egui::Align2::LEFT_TOP, [8.0, 8.0])
                .resizable(false)
                .collapsible(true)
                .show(ctx, |ui| ui.label(text.as_str()));
        });
        present(&self.egui, gfx, output, encoder, &target, texture, size);
        self.frames += 1;
        if self.opts.frames.is_some_and(|n| self.frames >= n) {
            event_loop.exit();
        }
    }

    fn click(&mut self) {
        let (Some(gfx), Some(view)) = (self.gfx.as_ref(), self.view.as_mut()) else {
            return;
        };
        let (w, h) = (gfx.config.width, gfx.config.height);
        let (x, y) = self.mouse;
        if let Some(id) = view.pick_creature(x, y, w, h) {
            view.selected = Some(id);
            return;
        }
        let (o, d) = view.camera.ray(x, y, w, h);
        if let (Some(id), Some(p)) = (view.selected, self.viewer.raycast(o, d)) {
            if self.viewer.may_play() {
                self.viewer.walk(id, p);
            }
        }
    }

    fn key(&mut self, key: &Key) {
        let Key::Character(c) = key else {
            if matches!(key, Key::Named(winit::keyboard::NamedKey::Escape)) {
                if let Some(v) = self.view.as_mut() {
                    v.selected = None;
                }
            }
            return;
        };
        let Some(view) = self.view.as_mut() else {
            return;
        };
        match c.as_str() {
            "k" | "K" => {
                if let Some(id) = view.selected.filter(|_| self.viewer.may_play()) {
                    let fwd = view.camera.target - view.camera.eye();
                    self.viewer.knock(id, fwd);
                }
            }
            "n" | "N" => view.debug.net ^= true,
            "m" | "M" => self.speaker.toggle_mute(),
            "0" => view.debug.sticks ^= true,
            "3" => view.debug.contacts ^= true,
            "6" => view.debug.lean ^= true,
            _ => {}
        }
    }
}

impl ApplicationHandler for ViewerApp {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.gfx.is_some() {
            return;
        }
        let title = format!("skitter — {}", self.opts.addr);
        match open_gfx(event_loop, &self.display, &self.egui, &title) {
            Ok(g) => {
                g.window.request_redraw();
                self.gfx = Some(g);
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
            WindowEvent::Resized(s) => {
                if let Some(g) = self.gfx.as_mut() {
                    g.resize(s.width, s.height);
                }
            }
            WindowEvent::RedrawRequested => self.redraw(event_loop),
            WindowEvent::CursorMoved { position, .. } => {
                let p = (position.x as f32, position.y as f32);
                let (dx, dy) = (p.0 - self.mouse.0, p.1 - self.mouse.1);
                if let Some(v) = self.view.as_mut() {
                    if self.orbit {
                        v.camera.orbit(dx, dy);
                    }
                    if self.pan {
                        v.camera.pan(dx, dy);
                    }
                }
                self.mouse = p;
            }
            WindowEvent::MouseInput { state, button, .. } if !consumed => {
                let down = state == ElementState::Pressed;
                match button {
                    MouseButton::Right => self.orbit = down,
                    MouseButton::Middle => self.pan = down,
                    MouseButton::Left if down => self.left_at = Some(self.mouse),
                    MouseButton::Left => {
                        let moved = self
                            .left_at
                            .take()
                            .map(|a| (a.0 - self.mouse.0).abs() + (a.1 - self.mouse.1).abs());
                        if moved.is_some_and(|m| m < 6.0) {
                            self.click();
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
                if let Some(v) = self.view.as_mut() {
                    v.camera.zoom(steps);
                }
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
