//! A body breathing at rest (`body.breathe = { rate, depth }`): each tick, every creature
//! that breathes rises and falls on the world's clock, each out of step with the others by
//! its id — the same on a server and on its viewers, which know both.

use super::World;

impl World {
    /// Sets every creature's breath for world time `time` (s), `dt` after the last.
    pub(super) fn breathe_all(&mut self, time: f64, dt: f32) {
        for c in &mut self.creatures {
            let Some(b) = c.def.body.breathe.as_ref() else {
                continue;
            };
            let phase = time * f64::from(b.rate) + (f64::from(c.id.0) * 0.618_034).fract();
            let b = *b;
            c.loco.breathe(Some(&b), phase, dt);
        }
    }
}
