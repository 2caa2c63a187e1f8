//! A body breathing at rest (`body.breathe = { rate, depth }`): each tick, every creature
//! that breathes rises and falls on the world's clock, each out of step with the others by
//! its id — the same on a server and on its viewers, which know both.

use super::world::Creature;

/// Sets `c`'s breath for world time `time` (s), `dt` after the last (nothing for a
/// creature that does not breathe).
pub(super) fn breathe(c: &mut Creature, time: f64, dt: f32) {
    let Some(b) = c.def.body.breathe.as_ref() else {
        return;
    };
    let phase = time * f64::from(b.rate) + (f64::from(c.id.0) * 0.618_034).fract();
    let b = *b;
    c.loco.breathe(Some(&b), phase, dt);
}
