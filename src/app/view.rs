//! What the user looks at: camera, follow target, selection, debug layers, and the
//! interpolated snapshot the frame draws. Shared by the window and the screenshot runner.

use glam::Vec3;

use crate::render::{DebugFlags, FrameInstances, OrbitCamera};
use crate::script::{CameraRequest, ScriptHost};
use crate::sim::{CreatureId, Snapshot, World};

/// View state.
#[derive(Debug, Default)]
pub struct View {
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
    /// Snapshot after the previous tick.
    pub prev: Snapshot,
    /// Snapshot after the latest tick.
    pub cur: Snapshot,
    /// What this frame draws (interpolated).
    pub draw: Snapshot,
    /// Instances built from `draw`.
    pub frame: FrameInstances,
}

impl View {
    /// A view framing `world`'s level.
    pub fn new(world: &World) -> View {
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
        v.cur.capture(world);
        v.prev.clone_from(&v.cur);
        v
    }

    /// Applies camera requests from scripts.
    pub fn apply(&mut self, requests: Vec<CameraRequest>) {
        for r in requests {
            match r {
                CameraRequest::Follow(id) => self.follow = Some(id),
                CameraRequest::Look { from, at } => {
                    self.follow = None;
                    self.camera = OrbitCamera::look(from, at);
                    self.home = self.camera;
                }
            }
        }
    }

    /// After a tick: shift snapshots and take the new one.
    pub fn after_tick(&mut self, world: &World) {
        std::mem::swap(&mut self.prev, &mut self.cur);
        self.cur.capture(world);
        if let Some(id) = self.selected {
            if world.creature(id).is_none() {
                self.selected = None;
            }
        }
    }

    /// Builds this frame's instances at `alpha` (0..1) between the last two ticks; moves a
    /// following camera along (eased by `dt` seconds of wall time).
    pub fn prepare_frame(&mut self, alpha: f32, dt: f32, host: &ScriptHost) {
        self.draw.interpolate(&self.prev, &self.cur, alpha);
        if let Some(id) = self.follow {
            match self.draw.creatures.iter().find(|c| c.id == id) {
                Some(c) => {
                    let k = 1.0 - (-dt / 0.25).exp();
                    self.camera.target += (c.position - self.camera.target) * k;
                }
                None => self.follow = None,
            }
        }
        self.frame
            .build(&self.draw, self.selected, self.debug, &host.destinations());
    }

    /// The creature under pixel (`x`, `y`) of a `w`×`h` view, nearest first.
    pub fn pick_creature(&self, x: f32, y: f32, w: u32, h: u32) -> Option<CreatureId> {
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
