//! The tick's bodies: locomotion of every animated creature beside the ragdolls' physics
//! worlds. The two touch disjoint creatures (animated ones are not in rapier; the worlds hold
//! only rigs) and read the same static level, so on a pool they run side by side — the
//! thread left over while one large world steps takes the walkers, and the worlds' large
//! narrow phases share out — and on one thread one after the other: the same results either
//! way, events gathered in the same order (locomotion's, climbers' surfaces, the ragdolls').

use std::time::{Duration, Instant};

use glam::Vec3;

use super::ground::RapierGround;
use super::springs::After;
use super::world::{Creature, CreatureId, World, WorldEvent};
use crate::locomotion::locomotor::Scratch;
use crate::locomotion::StepEvent;

/// A creature's tick of locomotion as it comes out of the parallel pass: its steps and
/// lifts, whether it ended a path followed once, and its landing.
type StepsOf = (CreatureId, Vec<StepEvent>, bool, Option<(Vec3, f32)>);

impl World {
    /// Locomotion and the ragdolls (see the module's note), with their wall-clock times in
    /// `step_times` (`overlap`: how long they ran side by side). Whether a creature is in
    /// physics (false: every creature walked, its spring chains already stepped).
    pub(super) fn step_bodies(&mut self, dt: f32) -> bool {
        let t0 = Instant::now();
        // The ragdolls' phases and rigs first: their events go after locomotion's.
        let mark = self.events.len();
        let ragdolls = self.ragdolls_before(dt);
        let early: Vec<WorldEvent> = self.events.drain(mark..).collect();
        let before = t0.elapsed();
        let t1 = Instant::now();
        let (loco, worlds) = self.move_and_step_worlds(dt, ragdolls);
        let (steps, took) = loco;
        let (stepped, rapier) = worlds;
        let both = t1.elapsed();
        for (id, steps, end, land) in steps {
            push_steps(&mut self.events, id, &steps, end, land);
        }
        // Climbers that came onto a surface of another kind (in id order).
        for c in &mut self.creatures {
            if let Some(cl) = c.loco.climb.as_mut().filter(|cl| cl.changed) {
                cl.changed = false;
                self.events.push(WorldEvent::Surface {
                    id: c.id,
                    normal: cl.up(),
                    surface: cl.surface,
                });
            }
        }
        self.events.extend(early);
        let t2 = Instant::now();
        if ragdolls {
            self.ragdolls_after(stepped);
        }
        let t = &mut self.step_times;
        t.locomotion = took;
        t.rapier = rapier;
        t.physics = before + rapier + t2.elapsed();
        t.overlap = (took + rapier).saturating_sub(both);
        ragdolls
    }

    /// Each animated creature's locomotion (its steps, path ends and landings, and its own
    /// wall clock) and, when `ragdolls`, every group's world stepped (whether one did, and
    /// their wall clock): on the calling thread one after the other, or side by side on the
    /// pool (each creature's update reads only the static level and its own state, so the
    /// results are the same at any thread count).
    #[allow(clippy::type_complexity)]
    fn move_and_step_worlds(
        &mut self,
        dt: f32,
        ragdolls: bool,
    ) -> ((Vec<StepsOf>, Duration), (bool, Duration)) {
        let after = After {
            types: &self.types,
            time: self.time + f64::from(dt),
            tick: self.frame + 1,
            dt,
        };
        let World {
            creatures,
            scratch,
            pool,
            physics,
            rigs,
            ground_collider,
            level,
            nav,
            crowds_to_caller,
            step_times,
            ..
        } = self;
        // The crowd navigation deferred by `step_nav` (it touches only the navigators, fed
        // already): beside locomotion, on the pool's other thread when there is one — unless
        // the caller runs them beside its own work (`take_crowd_updates`).
        let to_caller = *crowds_to_caller && pool.is_some();
        let beside = &mut step_times.beside;
        let nav_step = || {
            let t = Instant::now();
            if !to_caller {
                nav.run_deferred();
            }
            *beside = t.elapsed();
        };
        let (mut moving, mut rigged): (Vec<&mut Creature>, Vec<&mut Creature>) =
            creatures.iter_mut().partition(|c| c.rag.is_none());
        // Ground queries leave ragdolls' parts out while there are any (the level's world
        // holds none: this only spares the filter).
        let ground = Ground {
            physics: &*physics,
            exclude: !rigs.rigs.is_empty(),
            field: *ground_collider,
            only_ground: level.boxes.is_empty(),
        };
        let level = &*physics;
        let on_pool = pool.is_some();
        let walk = || {
            let t = Instant::now();
            let steps = match pool.as_ref() {
                None => {
                    let steps = move_serial(&mut moving, &ground, &after, scratch, dt);
                    let mut nav_step = nav_step;
                    nav_step();
                    steps
                }
                Some(_) => {
                    let moving = &mut moving;
                    let (ground, after) = (&ground, &after);
                    rayon::join(|| move_parallel(moving, ground, after, dt), nav_step).0
                }
            };
            (steps, t.elapsed())
        };
        let step = || {
            if ragdolls {
                let (stepped, took, walked) =
                    super::ragdoll::step_worlds(&mut rigged, rigs, level, on_pool, dt, walk);
                (walked, (stepped, took))
            } else {
                (walk(), (false, Duration::ZERO))
            }
        };
        match pool.as_ref() {
            Some(p) => p.install(step),
            None => step(),
        }
    }
}

/// What locomotion's ground queries are made from (each job makes its own).
struct Ground<'a> {
    physics: &'a rapier3d::prelude::PhysicsWorld,
    exclude: bool,
    field: Option<super::ground::GroundRef>,
    only_ground: bool,
}

impl<'a> Ground<'a> {
    fn query(&self) -> RapierGround<'a> {
        RapierGround::excluding(self.physics, self.exclude, self.field, self.only_ground)
    }
}

/// Locomotion of `moving` on the calling thread, in id order.
fn move_serial(
    moving: &mut [&mut Creature],
    ground: &Ground,
    after: &After,
    scratch: &mut Scratch,
    dt: f32,
) -> Vec<StepsOf> {
    let ground = ground.query();
    let mut rest = Vec::new();
    let mut out = Vec::new();
    for c in moving.iter_mut() {
        if let Some(dt) = c.take_turn(dt) {
            let falling = Falling::before(&c.loco);
            c.loco
                .update(&c.def, &c.gait, &c.lean, &ground, dt, scratch);
            let end = std::mem::take(&mut scratch.path_end);
            let land = falling.landed(&c.loco);
            if !scratch.events.is_empty() || end || land.is_some() {
                out.push((c.id, std::mem::take(&mut scratch.events), end, land));
            }
            scratch.events.clear();
        }
        after.finish(c, &ground, &mut rest);
    }
    out
}

/// Locomotion of `moving` on the pool; the results in id order.
fn move_parallel(
    moving: &mut [&mut Creature],
    ground: &Ground,
    after: &After,
    dt: f32,
) -> Vec<StepsOf> {
    use rayon::prelude::*;
    moving
        .par_iter_mut()
        .map_init(
            // A query pipeline per chunk of work (its filter is not shareable).
            || (Scratch::default(), ground.query(), Vec::new()),
            |(s, ground, rest), c| {
                let Some(turn) = c.take_turn(dt) else {
                    after.finish(c, &*ground, rest);
                    return (c.id, Vec::new(), false, None);
                };
                let falling = Falling::before(&c.loco);
                c.loco.update(&c.def, &c.gait, &c.lean, &*ground, turn, s);
                let land = falling.landed(&c.loco);
                // Its body after its legs, while its state is at hand.
                after.finish(c, &*ground, rest);
                let end = std::mem::take(&mut s.path_end);
                (c.id, std::mem::take(&mut s.events), end, land)
            },
        )
        .filter(|(_, steps, end, land)| !steps.is_empty() || *end || land.is_some())
        .collect()
}

/// Whether a creature was in the air before its tick, and how fast it came down.
struct Falling(Option<f32>);

impl Falling {
    fn before(loco: &crate::locomotion::Locomotor) -> Falling {
        Falling(loco.airborne.then_some(-loco.velocity.y))
    }

    /// Where and how fast it landed, if this tick brought it down.
    fn landed(&self, loco: &crate::locomotion::Locomotor) -> Option<(Vec3, f32)> {
        let speed = self.0.filter(|_| !loco.airborne && loco.landing)?;
        Some((loco.position, speed.max(0.0)))
    }
}

/// A creature's step and lift events of a tick, its landing, and the end of a path
/// followed once (the same event as a destination reached), as world events.
fn push_steps(
    events: &mut Vec<WorldEvent>,
    id: CreatureId,
    steps: &[StepEvent],
    end: bool,
    land: Option<(Vec3, f32)>,
) {
    if let Some((position, speed)) = land {
        events.push(WorldEvent::Land {
            id,
            position,
            speed,
        });
    }
    for s in steps {
        events.push(if s.lift {
            WorldEvent::Lift {
                id,
                leg: s.leg,
                position: s.position,
            }
        } else {
            WorldEvent::Step {
                id,
                leg: s.leg,
                position: s.position,
                speed: s.speed,
            }
        });
    }
    if end {
        events.push(WorldEvent::Arrive { id });
    }
}
