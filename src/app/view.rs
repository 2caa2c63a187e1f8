//! What the user looks at: camera, follow target, selection, debug layers, and the
//! interpolated snapshot the frame draws. Shared by the window and the screenshot runner.

use glam::Vec3;

use std::sync::Arc;

use crate::math::bezier::BezierPath;
use crate::math::Curve;
use crate::render::instances::PathView;
use crate::render::{DebugFlags, FrameInstances, OrbitCamera};
use crate::script::{CameraRequest, LookAt, ScriptHost};
use crate::sim::{CreatureId, Motion, Snapshot, World};

/// A camera flying a path (`camera.path`), timed in simulation seconds.
#[derive(Clone, Debug)]
pub(crate) struct CameraFlight {
    /// The path.
    pub path: Arc<BezierPath>,
    /// Seconds from start to end.
    pub duration: f32,
    /// Progress over time.
    pub ease: Curve,
    /// What it looks at.
    pub look_at: Option<LookAt>,
    /// Simulation time it started.
    pub start: f64,
}

/// View state.
#[derive(Debug, Default)]
pub(crate) struct View {
    /// A camera path in progress.
    pub flight: Option<CameraFlight>,
    /// The camera.
    pub camera: OrbitCamera,
    /// The camera the reset key returns to.
    pub home: OrbitCamera,
    /// Creature the camera follows.
    pub follow: Option<CreatureId>,
    /// Selected creature.
    pub selected: Option<CreatureId>,
    /// Debug layers.
    pub debug: DebugFlags,
    /// Every creature's poses at its last two turns (the latest snapshot is `motion.cur`).
    pub motion: Motion,
    /// What this frame draws (interpolated).
    pub draw: Snapshot,
    /// Instances built from `draw`.
    pub frame: FrameInstances,
    /// The selected creature's recent lean, for the plot panel.
    pub lean_history: LeanHistory,
    /// The path editor's edit mode (`E`).
    pub edit: super::path_edit::PathEdit,
}

/// One tick of a creature's lean, for plotting.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct LeanSample {
    /// Simulation time, seconds.
    pub t: f64,
    /// Target roll, degrees.
    pub target_roll: f32,
    /// Current roll, degrees.
    pub roll: f32,
    /// Target pitch, degrees.
    pub target_pitch: f32,
    /// Current pitch, degrees.
    pub pitch: f32,
    /// Low-passed yaw rate, degrees per second.
    pub yaw_rate: f32,
}

/// The last [`LeanHistory::SECONDS`] of one creature's lean.
#[derive(Clone, Debug, Default)]
pub(crate) struct LeanHistory {
    /// Whose.
    pub id: Option<CreatureId>,
    /// Oldest first.
    pub samples: std::collections::VecDeque<LeanSample>,
}

impl LeanHistory {
    /// Seconds kept.
    pub(crate) const SECONDS: f64 = 8.0;

    /// Records `id`'s lean after a tick (a new creature starts a new history).
    pub(crate) fn record(&mut self, world: &World, id: Option<CreatureId>) {
        if self.id != id {
            self.id = id;
            self.samples.clear();
        }
        let Some(c) = id.and_then(|id| world.creature(id)) else {
            return;
        };
        let l = &c.loco.lean;
        self.samples.push_back(LeanSample {
            t: world.time(),
            target_roll: l.target_roll,
            roll: l.roll,
            target_pitch: l.target_pitch,
            pitch: l.pitch,
            yaw_rate: l.yaw_rate,
        });
        while self
            .samples
            .front()
            .is_some_and(|s| world.time() - s.t > Self::SECONDS)
        {
            self.samples.pop_front();
        }
    }
}

impl View {
    /// A view framing `world`'s level.
    pub(crate) fn new(world: &World) -> View {
        let mut camera = OrbitCamera::default();
        if let Some(g) = &world.level().ground {
            let w = g.dx * (g.nx - 1) as f32;
            let d = g.dz * (g.nz - 1) as f32;
            camera.target = g.origin + Vec3::new(w * 0.5, 0.0, d * 0.5);
            camera.distance = (w * w + d * d).sqrt() * 0.3;
        }
        let mut v = View {
            camera,
            home: camera,
            ..Default::default()
        };
        v.motion = Motion::new(world);
        v
    }

    /// Applies camera requests from scripts.
    pub(crate) fn apply(&mut self, requests: Vec<CameraRequest>) {
        for r in requests {
            match r {
                CameraRequest::Follow(id) => self.follow = Some(id),
                CameraRequest::Path {
                    path,
                    duration,
                    ease,
                    look_at,
                } => {
                    self.follow = None;
                    self.flight = Some(CameraFlight {
                        path,
                        duration,
                        ease,
                        look_at,
                        start: self.motion.cur.time,
                    });
                }
                CameraRequest::Look { from, at } => {
                    self.follow = None;
                    self.flight = None;
                    self.camera = OrbitCamera::look(from, at);
                    self.home = self.camera;
                }
            }
        }
    }

    /// After a tick: shift snapshots and take the new one.
    pub(crate) fn after_tick(&mut self, world: &World) {
        self.motion.after_tick(world);
        if let Some(id) = self.selected {
            if world.creature(id).is_none() {
                self.selected = None;
            }
        }
        self.lean_history.record(world, self.selected);
    }

    /// Builds this frame's instances at `alpha` (0..1) between the last two ticks; moves a
    /// following camera along (eased by `dt` seconds of wall time).
    pub(crate) fn prepare_frame(&mut self, alpha: f32, dt: f32, host: &ScriptHost) {
        self.prepare_world(alpha, dt, &host.world(), &host.destinations());
        for (a, b, color) in self.edit.lines(host) {
            self.frame.add_lines([(a, b)], color);
        }
    }

    /// [`View::prepare_frame`] of a World with no host (a network viewer's): the
    /// destinations given, no path editor.
    pub(crate) fn prepare_world(
        &mut self,
        alpha: f32,
        dt: f32,
        world: &World,
        destinations: &[(crate::sim::CreatureId, Vec3)],
    ) {
        self.motion.frame(alpha, &mut self.draw);
        if let Some(id) = self.follow {
            match self.draw.creatures.iter().find(|c| c.id == id) {
                Some(c) => {
                    let k = 1.0 - (-dt / 0.25).exp();
                    self.camera.target += (c.position - self.camera.target) * k;
                }
                None => self.follow = None,
            }
        }
        if let Some(f) = &self.flight {
            let t = (((self.draw.time - f.start) as f32) / f.duration).clamp(0.0, 1.0);
            let s = f.ease.eval(t).clamp(0.0, 1.0) * f.path.length();
            let eye = f.path.point(s);
            let at = match f.look_at {
                Some(LookAt::Point(p)) => p,
                Some(LookAt::Creature(id)) => self
                    .draw
                    .creatures
                    .iter()
                    .find(|c| c.id == id)
                    .map(|c| c.position)
                    .unwrap_or(eye + f.path.tangent(s) * 5.0),
                None => eye + f.path.tangent(s) * 5.0,
            };
            if eye.distance(at) > 1e-3 {
                self.camera = OrbitCamera::look(eye, at);
            }
            if t >= 1.0 {
                self.flight = None;
            }
        }
        let paths = if self.debug.paths || self.edit.on {
            self.path_views(world)
        } else {
            Vec::new()
        };
        let mut debug = self.debug;
        // Edit mode shows the paths it edits.
        debug.paths |= self.edit.on;
        self.frame
            .build(&self.draw, self.selected, debug, destinations, &paths);
        if self.debug.nav {
            self.add_nav_lines(world);
        }
    }

    /// The navmeshes (polygon edges, lifted a little) and each agent's remaining path.
    fn add_nav_lines(&mut self, w: &World) {
        let lift = Vec3::Y * 0.04;
        for (mesh, _) in w.nav_meshes() {
            let mut segs = Vec::new();
            for (i, poly) in mesh.polygons.iter().enumerate() {
                for k in 0..poly.len() {
                    // Each shared edge once; border edges always.
                    let nb = mesh.neighbours[i][k];
                    if nb.is_some_and(|j| j < i) {
                        continue;
                    }
                    let (a, b) = (
                        mesh.vertices[poly[k]],
                        mesh.vertices[poly[(k + 1) % poly.len()]],
                    );
                    segs.push((a + lift, b + lift));
                }
            }
            self.frame.add_lines(segs, [0.2, 0.85, 0.75, 0.8]);
        }
        // Links: an arc from the middle of the start edge to the middle of the end edge, and
        // both edges (blue: the level's; green: found by the bake; grey: found blocked).
        for (l, taken) in w.nav_links() {
            let color = match (taken, l.id >= crate::nav::GENERATED_ID) {
                (false, _) => [0.5, 0.5, 0.5, 0.8],
                (true, false) => [0.3, 0.5, 1.0, 1.0],
                (true, true) => [0.35, 0.95, 0.35, 1.0],
            };
            let (a, b) = l.middle();
            let run = crate::math::frame::horizontal(b - a).length();
            let rise = crate::math::ballistic::jump_rise(run);
            let arc = crate::math::Ballistic::plan(a, b, rise, crate::math::ballistic::GRAVITY);
            let pts: Vec<Vec3> = arc.points(12).collect();
            let mut segs: Vec<(Vec3, Vec3)> =
                pts.windows(2).map(|p| (p[0] + lift, p[1] + lift)).collect();
            segs.push((l.start.0 + lift, l.start.1 + lift));
            segs.push((l.end.0 + lift, l.end.1 + lift));
            self.frame.add_lines(segs, color);
        }
        for c in w.creatures() {
            if let Some(path) = w.nav_path(c.id) {
                let segs: Vec<(Vec3, Vec3)> = path
                    .windows(2)
                    .map(|p| (p[0] + lift * 2.0, p[1] + lift * 2.0))
                    .collect();
                self.frame.add_lines(segs, [1.0, 0.35, 0.9, 1.0]);
            }
        }
    }

    /// Paths to draw: the named ones, those creatures follow, and the camera's.
    fn path_views(&self, w: &World) -> Vec<PathView> {
        let mut out = Vec::new();
        if let Some(f) = &self.flight {
            out.push(PathView::of(&f.path, 0.0));
        }
        // Named paths (path files) where they are, followed or not.
        for (_, p) in w.paths() {
            out.push(PathView::of(p, 0.0));
        }
        for c in w.creatures() {
            // A follower of a named path walks the path drawn above.
            let named = |f: &crate::path::PathFollower| {
                f.source.as_deref().is_some_and(|k| w.path(k).is_some())
            };
            if let Some(f) = c.loco.follow.as_ref().filter(|f| !named(f)) {
                // Legged followers walk a ground projection: draw it at their feet.
                let lift = if c.def.legs.is_empty() {
                    0.0
                } else {
                    c.loco.position.y - c.def.body.height + 0.03
                };
                out.push(PathView::of(&f.path, lift));
            }
        }
        out
    }

    /// The creature under pixel (`x`, `y`) of a `w`×`h` view, nearest first.
    pub(crate) fn pick_creature(&self, x: f32, y: f32, w: u32, h: u32) -> Option<CreatureId> {
        let (o, d) = self.camera.ray(x, y, w, h);
        let mut best: Option<(f32, CreatureId)> = None;
        for c in &self.draw.creatures {
            // A sphere around the body, generous enough to hit with a click.
            let r = c.size.max_element() * 0.75 + 0.1;
            let to = c.position - o;
            let t = to.dot(d);
            if t < 0.0 {
                continue;
            }
            let miss = (to - d * t).length();
            if miss <= r && best.is_none_or(|(bt, _)| t < bt) {
                best = Some((t, c.id));
            }
        }
        best.map(|(_, id)| id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::bezier::ControlPoint;
    use crate::script::HostOptions;

    #[test]
    fn the_lean_history_follows_the_selection_and_keeps_a_window() {
        use crate::sim::Command;
        let mut host = ScriptHost::new(HostOptions::default());
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        host.load(&[
            root.join("scripts/spider"),
            root.join("tests/fixtures/walkers"),
            root.join("tests/fixtures/flat"),
        ]);
        assert!(host.take_errors().is_empty());
        let mut v = View::new(&host.world());
        let ids: Vec<CreatureId> = host.world().creatures().iter().map(|c| c.id).collect();
        assert!(!ids.is_empty());
        v.selected = Some(ids[0]);
        host.world_mut().push(Command::Hit(ids[0], Vec3::X, 1.0));
        for _ in 0..(LeanHistory::SECONDS as usize * 60 + 30) {
            host.tick();
            v.after_tick(&host.world());
        }
        let h = &v.lean_history;
        assert_eq!(h.id, Some(ids[0]));
        let span = h.samples.back().map(|s| s.t).unwrap_or(0.0)
            - h.samples.front().map(|s| s.t).unwrap_or(0.0);
        assert!(
            span <= LeanHistory::SECONDS && span > LeanHistory::SECONDS - 0.1,
            "{span}"
        );
        v.selected = None;
        host.tick();
        v.after_tick(&host.world());
        assert!(v.lean_history.samples.is_empty());
    }

    #[test]
    fn a_camera_path_flies_in_simulation_time_and_ends_at_the_path_end() {
        let host = ScriptHost::new(HostOptions::default());
        let mut v = View::new(&host.world());
        let cp = |x: f32, z: f32| ControlPoint {
            position: Vec3::new(x, 4.0, z),
            handle_in: None,
            handle_out: None,
        };
        let path = Arc::new(
            BezierPath::new(&[cp(-10.0, 0.0), cp(0.0, 5.0), cp(10.0, 0.0)], false).expect("path"),
        );
        let ease = Curve::smoothstep(0.0, 1.0).expect("curve");
        v.apply(vec![CameraRequest::Path {
            path: path.clone(),
            duration: 2.0,
            ease,
            look_at: Some(LookAt::Point(Vec3::ZERO)),
        }]);
        v.motion.cur.time = 0.0;
        v.motion.prev.time = 0.0;
        v.prepare_frame(1.0, 0.016, &host);
        assert!(
            v.camera.eye().distance(Vec3::new(-10.0, 4.0, 0.0)) < 1e-3,
            "starts at the path start: {}",
            v.camera.eye()
        );
        v.motion.cur.time = 1.0;
        v.prepare_frame(1.0, 0.016, &host);
        assert!(
            v.camera.eye().distance(path.point(path.length() * 0.5)) < 1e-3,
            "half way at half time (smoothstep)"
        );
        assert!(
            (v.camera.target - Vec3::ZERO).length() < 1e-4,
            "looks at the point"
        );
        v.motion.cur.time = 5.0;
        v.prepare_frame(1.0, 0.016, &host);
        assert!(v.camera.eye().distance(Vec3::new(10.0, 4.0, 0.0)) < 1e-3);
        assert!(v.flight.is_none(), "the flight ends");
    }
}
