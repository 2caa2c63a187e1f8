//! Interaction groups: rigs that may touch each other within a tick share a physics world;
//! the rest are apart. Each tick the rigs' bounds (their parts' centres, grown by a part's
//! size and a tick's motion) are swept along x and joined where they overlap; a group lives
//! in the world keyed by its lowest creature id (a rig whose group's key changes is rebuilt
//! there from its plain data). The worlds step apart — on the pool's threads when there is
//! one — each a single-threaded rapier step of its own bodies: the same result at any
//! thread count, and a crowd's step no longer one world growing with it.

use std::collections::{BTreeMap, BTreeSet};

use glam::Vec3;
use rapier3d::prelude::PhysicsWorld;

use super::rig;
use super::step::OwnPartsApart;
use crate::sim::level::Level;
use crate::sim::world::CreatureId;
use crate::sim::World;

/// How far beyond its parts' centres a rig may reach within a tick (m): a part's half size
/// (the largest, a torso or a limb's capsule) and a margin.
const REACH: f32 = 0.45;
/// The bounds grow by this many ticks of a part's speed.
const AHEAD: f32 = 2.0 / 60.0;

/// A group's physics world: skitter's settings and the level's colliders.
fn group_world(level: &Level) -> PhysicsWorld {
    let mut w = crate::sim::ground::physics_world();
    level.build_colliders(&mut w.colliders);
    w
}

fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

impl World {
    /// Puts every creature in physics in the world of its interaction group (see the
    /// module's notes), building the rigs that have none.
    pub(super) fn regroup(&mut self) {
        let mut boxes: Vec<(CreatureId, Vec3, Vec3)> = Vec::new();
        for c in &self.creatures {
            let Some(rag) = c.rag.as_ref() else { continue };
            let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
            let mut speed = 0.0f32;
            for p in &rag.parts {
                lo = lo.min(p.position);
                hi = hi.max(p.position);
                speed = speed.max(p.linvel.length());
            }
            let grow = Vec3::splat(REACH + speed * AHEAD);
            boxes.push((c.id, lo - grow, hi + grow));
        }
        let n = boxes.len();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|a, b| {
            boxes[*a]
                .1
                .x
                .total_cmp(&boxes[*b].1.x)
                .then(boxes[*a].0.cmp(&boxes[*b].0))
        });
        let mut parent: Vec<usize> = (0..n).collect();
        for (k, &i) in order.iter().enumerate() {
            for &j in &order[k + 1..] {
                if boxes[j].1.x > boxes[i].2.x {
                    break;
                }
                let (a, b) = (&boxes[i], &boxes[j]);
                if a.1.y <= b.2.y && b.1.y <= a.2.y && a.1.z <= b.2.z && b.1.z <= a.2.z {
                    let (ri, rj) = (find(&mut parent, i), find(&mut parent, j));
                    if ri != rj {
                        parent[ri.max(rj)] = ri.min(rj);
                    }
                }
            }
        }
        // Each group's key: its lowest id (boxes are in id order, so its first member's).
        let mut key_of: BTreeMap<usize, CreatureId> = BTreeMap::new();
        for (i, b) in boxes.iter().enumerate() {
            let r = find(&mut parent, i);
            key_of.entry(r).or_insert(b.0);
        }
        for i in 0..n {
            let id = boxes[i].0;
            let key = key_of[&find(&mut parent, i)];
            match self.rigs.rigs.get(&id) {
                Some(r) if r.world == key => continue,
                Some(_) => self.drop_rig(id),
                None => {}
            }
            let Some(c) = self.creature(id) else { continue };
            let Some(rag) = c.rag.as_ref() else { continue };
            let (def, parts) = (c.def.clone(), rag.parts.clone());
            let level = &self.level;
            let world = self
                .rigs
                .worlds
                .entry(key)
                .or_insert_with(|| group_world(level));
            // A recovering one gets its anchor back in `drive_rigs`.
            let mut r = rig::build(world, id, &def, &parts);
            r.world = key;
            self.rigs.rigs.insert(id, r);
        }
        let used: BTreeSet<CreatureId> = self.rigs.rigs.values().map(|r| r.world).collect();
        self.rigs.worlds.retain(|k, _| used.contains(k));
    }

    /// One rapier step of every world with an awake rig, apart (on the pool when there is
    /// one). False when none stepped.
    pub(super) fn step_worlds(&mut self) -> bool {
        let awake: BTreeSet<CreatureId> = self
            .rigs
            .rigs
            .values()
            .filter(|r| !r.asleep)
            .map(|r| r.world)
            .collect();
        if awake.is_empty() {
            return false;
        }
        let mut worlds: Vec<&mut PhysicsWorld> = self
            .rigs
            .worlds
            .iter_mut()
            .filter(|(k, _)| awake.contains(k))
            .map(|(_, w)| w)
            .collect();
        match self.pool.as_ref() {
            Some(pool) if worlds.len() > 1 => {
                use rayon::prelude::*;
                pool.install(|| {
                    worlds
                        .par_iter_mut()
                        .for_each(|w| w.step_with_events(&OwnPartsApart, &()))
                });
            }
            _ => {
                for w in worlds {
                    w.step_with_events(&OwnPartsApart, &());
                }
            }
        }
        true
    }
}
