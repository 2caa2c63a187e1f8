//! Level of detail (issue 17 §6; seed 000 §6.3: "for spiders far from the camera, update
//! leg IK and ground detection every 2–3 frames"). With a [`Detail`] set, an animated
//! creature farther than `radius` (horizontally) from every focus point — the window's
//! camera, or a point of interest the user gave — is *far*: its locomotion (ground casts,
//! steps, body fit, IK, lean) and its navigation steering run once every `every` ticks,
//! with the time of the ticks it skipped, instead of every tick. Its body holds still in
//! between. Creatures near a focus, and those in physics, run every tick, exactly as
//! without a detail setting.
//!
//! Which creatures run on which tick depends only on the tick, the creature's id (far ones
//! take turns in runs of consecutive ids), its position and the focus: the same seed, mods and focus give the same trace at any thread
//! count. A world without a detail setting (headless runs, unless asked) runs everything at
//! full detail, and so does one that is recording (a replay runs at full detail: the focus
//! of a window's camera is not recorded).

use glam::Vec3;

use super::world::World;

/// A level-of-detail setting (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Detail {
    /// Points of interest (the camera's eye in the window): full detail within `radius`.
    pub focus: Vec<Vec3>,
    /// Full detail within this horizontal distance of a focus point, metres.
    pub radius: f32,
    /// Far creatures update once every this many ticks (1: every tick).
    pub every: u32,
}

/// The default radius of full detail around the window's camera, metres.
pub const DEFAULT_DETAIL_RADIUS: f32 = 40.0;
/// The default update interval of far creatures, ticks (20 Hz at 60 Hz).
pub const DEFAULT_DETAIL_EVERY: u32 = 3;

/// Far creatures take their turns in runs of this many consecutive ids: a tick's due
/// creatures (and their brains' tables, made in spawn order) lie together in memory, read
/// as streams, not one in every `every` (a 10 000 crowd's far turns cost a third more when
/// strided: cache misses).
const TURN_RUN: u32 = 32;

impl Detail {
    /// Full detail within `radius` of `focus`, far creatures every [`DEFAULT_DETAIL_EVERY`]
    /// ticks.
    pub fn around(focus: Vec3, radius: f32) -> Detail {
        Detail {
            focus: vec![focus],
            radius,
            every: DEFAULT_DETAIL_EVERY,
        }
    }

    /// Whether a creature at `p` is near a focus point.
    fn near(&self, p: Vec3) -> bool {
        let r2 = self.radius * self.radius;
        self.focus.iter().any(|f| {
            let d = p - *f;
            d.x * d.x + d.z * d.z <= r2
        })
    }
}

impl World {
    /// Sets (or clears, with `None`) the level of detail. Takes effect from the next tick.
    pub fn set_detail(&mut self, detail: Option<Detail>) {
        self.detail = detail.filter(|d| d.every > 1 && d.radius.is_finite());
    }

    /// Moves the focus of the current detail setting (the window calls this as its camera
    /// moves); nothing without one.
    pub fn set_detail_focus(&mut self, focus: &[Vec3]) {
        if let Some(d) = self.detail.as_mut() {
            d.focus.clear();
            d.focus.extend_from_slice(focus);
        }
    }

    /// Marks which creatures run their locomotion and steering on the coming tick (as its
    /// `step` will: commands it applies first can only add ragdolls and new creatures, which
    /// always run) and says whether a level of detail is in effect. The script host calls it
    /// before `on_update`, so brains that follow the level of detail run on their
    /// creature's turns.
    pub fn plan_turns(&mut self) -> bool {
        self.plan_detail();
        self.detail.is_some() && self.recording.is_none()
    }

    /// Marks which creatures run their locomotion and steering this tick (`due`), and for
    /// how many ticks' time (`behind` + 1).
    pub(super) fn plan_detail(&mut self) {
        let frame = self.frame;
        // A recording is replayed at full detail, so it is made at full detail.
        let Some(d) = self.detail.as_ref().filter(|_| self.recording.is_none()) else {
            // Every creature runs (new ones are spawned due): touch them only when that is news.
            if !self.all_due {
                for c in self.creatures.iter_mut() {
                    c.due = true;
                    c.far = false;
                }
                self.all_due = true;
            }
            return;
        };
        self.all_due = false;
        let every = d.every as u64;
        for c in self.creatures.iter_mut() {
            c.far = !d.near(c.loco.position);
            c.due = c.rag.is_some()
                || u64::from(c.behind) + 1 >= every
                || (frame + u64::from(c.id.0 / TURN_RUN)).is_multiple_of(every)
                || !c.far;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locomotion::def::tests::spider;
    use crate::sim::world::tests::flat_world;

    #[test]
    fn far_creatures_take_turns_in_runs_of_ids_each_once_in_every_ticks() {
        let mut w = flat_world(200.0);
        let t = w.register_type("test/spider", spider().validate().expect("valid"));
        // 200 far ones in a row (ids 1..=200), and one at the focus.
        let mut far = Vec::new();
        for i in 0..200 {
            let x = -90.0 + 0.8 * i as f32;
            far.push(w.spawn(t, Vec3::new(x, 0.0, 80.0), 0.0).expect("spawned"));
        }
        let near = w.spawn(t, Vec3::ZERO, 0.0).expect("spawned");
        w.set_detail(Some(Detail::around(Vec3::ZERO, 20.0)));
        let every = DEFAULT_DETAIL_EVERY as usize;
        let mut turns = vec![0usize; far.len()];
        for tick in 0..30 {
            w.plan_turns();
            let due: Vec<bool> = far
                .iter()
                .map(|id| w.creature(*id).expect("alive").due)
                .collect();
            assert!(
                w.creature(near).expect("alive").due,
                "the near one every tick"
            );
            // Due ones come in whole runs of consecutive ids (the first and last runs of the
            // row may be cut by its ends).
            for (i, id) in far.iter().enumerate() {
                let run = id.0 / TURN_RUN;
                let mate = far.iter().position(|o| o.0 / TURN_RUN == run && o != id);
                if let Some(j) = mate {
                    assert_eq!(due[i], due[j], "tick {tick}: ids {} and {}", id.0, far[j].0);
                }
            }
            let share = due.iter().filter(|d| **d).count();
            assert!(
                share.abs_diff(far.len() / every) <= TURN_RUN as usize,
                "tick {tick}: {share} of {} due",
                far.len()
            );
            for (n, d) in turns.iter_mut().zip(&due) {
                *n += usize::from(*d);
            }
            w.step(crate::sim::TICK_DT);
        }
        // Each far one ran once in every `every` ticks: 30 / 3 turns.
        assert!(turns.iter().all(|n| *n == 30 / every), "{turns:?}");
    }
}
