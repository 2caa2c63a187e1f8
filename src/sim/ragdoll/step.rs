//! One tick of every ragdoll: phases and timers, rigs built for new ragdolls, muscles,
//! balance and the recovery anchor driven, one rapier step (only when a rig is awake),
//! parts read back, settled rigs put to sleep, recoveries judged and handed back.

use glam::{Quat, Vec3};
use rapier3d::prelude::{PairFilterContext, PhysicsHooks, QueryFilter, SolverFlags};

use super::anchor::{self, AnchorDrive};
use super::rig;
use super::{RagdollPhase, GETUP_SPEED, SLEEP_AFTER, STILL_DRIFT, STILL_SPEED};
use crate::locomotion::physics::GRAVITY;
use crate::locomotion::{Locomotor, ValidCreatureDef};
use crate::math::curve::smoothstep01;
use crate::math::frame::{horizontal, yaw_rotation};
use crate::sim::ground::RapierGround;
use crate::sim::world::{CreatureId, WorldEvent};
use crate::sim::World;

/// Parts of one creature never touch each other (joined neighbours are also filtered by
/// their joints); every other pair does. `ready` is set once the step's contacts are
/// updated (others wait on it: see `groups::step_worlds`).
pub(super) struct OwnPartsApart<'a> {
    pub(super) ready: Option<&'a std::sync::atomic::AtomicBool>,
}

impl PhysicsHooks for OwnPartsApart<'_> {
    fn filter_contact_pair(&self, ctx: &PairFilterContext) -> Option<SolverFlags> {
        let a = ctx.colliders.get(ctx.collider1).map_or(0, |c| c.user_data);
        let b = ctx.colliders.get(ctx.collider2).map_or(0, |c| c.user_data);
        (a == 0 || a != b).then_some(SolverFlags::COMPUTE_RIGID_IMPULSES)
    }

    fn contacts_updated(&self) {
        if let Some(r) = self.ready {
            r.store(true, std::sync::atomic::Ordering::Release);
        }
    }
}

/// Share of `recovery_time` the anchor takes to bring the body to its goal from lying (see
/// [`rise_time`]).
const RISE_SHARE: f32 = 0.6;
/// The least share of a full rise a try takes (a body already standing: a stagger).
const MIN_RISE: f32 = 0.2;

/// A try stands the body when it is this close to upright (cosine of 25°)...
const UPRIGHT_COS: f32 = 0.906;
/// ...and this close to ride height (share of it).
const HEIGHT_SHARE: f32 = 0.25;

/// Seconds a limp body must stay slower than [`GETUP_SPEED`] before it tries to get up.
const SLOW_FOR: f32 = 0.2;

/// Share of the helped weight the balance help's lift carries at ride height; the legs
/// carry the rest. Carrying it all, the feet barely press on the ground, and a standing body
/// glides on them at the solver's slightest nudge (a crowd of 400 kept 30 soldiers sliding
/// at 3–4 cm/s, never asleep).
const BALANCE_CARRY: f32 = 0.7;

/// Seconds the rise of `rag`'s try takes (its roll done), for a type whose tries last
/// `recovery_time` (`ride`: its ride height): a full rise from a quarter turn off upright or
/// half the ride height off its goal, less for less — a staggered body still standing is
/// handed back in a fifth of the time, not kept in physics for a whole rise.
fn rise_time(rag: &super::Ragdoll, recovery_time: f32, ride: f32) -> f32 {
    let (from, goal) = (rag.from, rag.goal);
    let turn = from.1.angle_between(goal.1) / std::f32::consts::FRAC_PI_2;
    let lift = (from.0 - goal.0).length() / (0.5 * ride.max(1e-3));
    recovery_time * RISE_SHARE * turn.max(lift).clamp(MIN_RISE, 1.0)
}

/// The heading of a body rotation (its +Z seen from above; its −Y when +Z points up or
/// down).
fn heading(rot: Quat) -> f32 {
    let f = rot * Vec3::Z;
    let h = horizontal(f);
    let h = if h.length() > 0.2 {
        h
    } else {
        horizontal(rot * Vec3::NEG_Y)
    };
    h.x.atan2(h.z)
}

impl World {
    /// A tick's ragdolls before their worlds step (see `World::step_bodies`): phases and
    /// timers, rigs built, moved and dropped. False when there is nothing in physics.
    pub(crate) fn ragdolls_before(&mut self, dt: f32) -> bool {
        if self.creatures.iter().all(|c| c.rag.is_none()) && self.rigs.rigs.is_empty() {
            return false;
        }
        self.advance_phases(dt);
        self.sync_rigs();
        true
    }

    /// A tick's ragdolls after their worlds stepped (`stepped`: one of them did): the parts'
    /// impacts as events, recoveries judged and handed back.
    pub(crate) fn ragdolls_after(&mut self, stepped: bool) {
        if stepped {
            self.rigs.steps += 1;
        }
        for c in self.creatures.iter_mut() {
            if let Some((position, speed)) = c.rag.as_mut().and_then(|r| r.impact.take()) {
                self.events.push(WorldEvent::Impact {
                    id: c.id,
                    position,
                    speed,
                });
            }
        }
        self.judge_recoveries();
    }

    /// Limp → recovering when it is time; recovering → limp when a try ran out.
    fn advance_phases(&mut self, dt: f32) {
        let mut start = Vec::new();
        let mut failed = Vec::new();
        for c in self.creatures.iter_mut() {
            let Some(rag) = c.rag.as_mut() else { continue };
            rag.time += dt;
            let p = &c.def.physics;
            match rag.phase {
                RagdollPhase::Limp => {
                    let speed = rag.body().linvel.length();
                    rag.slow = if speed < GETUP_SPEED {
                        rag.slow + dt
                    } else {
                        0.0
                    };
                    let wait = rag.duration.unwrap_or(p.getup_delay);
                    if !rag.gave_up && rag.time >= wait && rag.slow >= SLOW_FOR {
                        start.push(c.id);
                    }
                }
                RagdollPhase::Recovering => {
                    let ramp = smoothstep01(rag.time / (p.recovery_time * 0.5));
                    rag.muscle = rag.hold + (1.0 - rag.hold) * ramp;
                    if rag.time >= rag.roll_time(p.recovery_time) + p.recovery_time {
                        failed.push(c.id);
                    }
                }
            }
        }
        for id in start {
            self.start_recovery(id);
        }
        for id in failed {
            self.fail_recovery(id);
        }
    }

    /// Begins a try: the goal is upright at ride height over the ground under the body; a
    /// body far from upright first rolls onto its feet ([`righting`](super::righting)).
    pub(super) fn start_recovery(&mut self, id: CreatureId) {
        let Some(c) = self.creature(id) else { return };
        let Some(rag) = c.rag.as_ref() else { return };
        let body = *rag.body();
        let def = c.def.clone();
        let ride = def.body.height;
        // Rays start a little above the body, not from high up: under an overhang they
        // find the ground it lies on, not the roof.
        let lift = Vec3::Y * (ride * 0.5);
        let under = |w: &mut World, at: Vec3| {
            w.raycast(at + lift, Vec3::NEG_Y, 10.0)
                .map_or((at - Vec3::Y * ride, Vec3::Y), |h| (h.position, h.normal))
        };
        let ground = under(self, body.position);
        let upright = yaw_rotation(heading(body.rotation));
        let stand = match self.rigs.rigs.get(&id) {
            Some(r) => r.stand.clone(),
            None => rig::stand_pose(&def),
        };
        let righting = super::righting::plan(
            &self.physics,
            &def,
            &stand,
            (body.position, body.rotation),
            upright,
            ground,
        );
        let rise_from = righting.as_ref().map_or(body.position, |r| r.end().0);
        // The floor is the mean ground under the standing feet that they can reach (a body
        // across an edge stands on both levels; a foot over a drop finds nothing), the
        // ground under the body when no foot finds any.
        let at = Vec3::new(rise_from.x, rise_from.y.max(body.position.y), rise_from.z);
        let feet: Vec<f32> = def
            .legs
            .iter()
            .filter_map(|l| {
                let spot = at + upright * Vec3::new(l.rest.x, 0.0, l.rest.z);
                self.raycast(spot + lift, Vec3::NEG_Y, ride * 0.5 + l.length)
                    .map(|h| h.position.y)
            })
            .collect();
        let floor = if feet.is_empty() {
            under(self, rise_from).0.y
        } else {
            feet.iter().sum::<f32>() / feet.len() as f32
        };
        let goal = (Vec3::new(rise_from.x, floor + ride, rise_from.z), upright);
        let Some(rag) = self.creature_mut(id).and_then(|c| c.rag.as_mut()) else {
            return;
        };
        rag.phase = RagdollPhase::Recovering;
        rag.time = 0.0;
        rag.tries += 1;
        rag.from = righting
            .as_ref()
            .map_or((body.position, body.rotation), |r| r.end());
        rag.goal = goal;
        rag.righting = righting;
        rag.still = 0.0;
        rag.rest.clear();
        if let Some((physics, r)) = self.rigs.get_mut(id) {
            r.asleep = false;
            rig::set_settled(physics, r, false);
            anchor::add_anchor(physics, r, (body.position, body.rotation));
            for h in &r.bodies {
                if let Some(b) = physics.bodies.get_mut(*h) {
                    b.wake_up(true);
                }
            }
        }
    }

    /// A try that did not stand the body up: limp again, or give up.
    fn fail_recovery(&mut self, id: CreatureId) {
        if let Some((physics, r)) = self.rigs.get_mut(id) {
            anchor::drop_anchor(physics, r);
        }
        let Some(c) = self.creature_mut(id) else {
            return;
        };
        let max = c.def.physics.recovery_tries;
        let Some(rag) = c.rag.as_mut() else { return };
        rag.phase = RagdollPhase::Limp;
        rag.time = 0.0;
        rag.muscle = rag.hold;
        rag.duration = None;
        if rag.tries >= max {
            rag.gave_up = true;
            let tries = rag.tries;
            self.events.push(WorldEvent::RecoverFailed { id, tries });
        }
    }

    /// Builds rigs for ragdolls that have none; removes rigs of creatures that left physics.
    fn sync_rigs(&mut self) {
        let stale: Vec<CreatureId> = self
            .rigs
            .rigs
            .keys()
            .filter(|id| self.creature(**id).is_none_or(|c| c.rag.is_none()))
            .copied()
            .collect();
        for id in stale {
            self.drop_rig(id);
        }
        self.regroup();
    }

    /// Tries whose anchor has arrived: stood up → hand back to the stepper.
    fn judge_recoveries(&mut self) {
        let mut done = Vec::new();
        for c in &self.creatures {
            let Some(rag) = c.rag.as_ref() else { continue };
            let rt = c.def.physics.recovery_time;
            if rag.phase != RagdollPhase::Recovering
                || rag.time < rag.roll_time(rt) + rise_time(rag, rt, c.def.body.height) + 0.1
            {
                continue;
            }
            let b = rag.body();
            let up = (b.rotation * Vec3::Y).y;
            let ride = c.def.body.height;
            if up >= UPRIGHT_COS
                && (b.position.y - rag.goal.0.y).abs() <= HEIGHT_SHARE * ride
                && b.linvel.length() < 1.0
            {
                done.push(c.id);
            }
        }
        for id in done {
            self.hand_back(id);
        }
    }

    /// Ends a ragdoll: the stepper takes over from the rig's pose.
    fn hand_back(&mut self, id: CreatureId) {
        self.drop_rig(id);
        let ground = RapierGround::new(
            &self.physics,
            &self.rigs,
            self.ground_collider,
            self.level.boxes.is_empty(),
        );
        let Some(i) = self.index_of(id) else {
            return;
        };
        let c = &mut self.creatures[i];
        let Some(rag) = c.rag.take() else { return };
        let body = rag.parts[0];
        let feet: Vec<Vec3> = rig::rig_chains(&c.def, &rag.parts)
            .into_iter()
            .map(|ch| ch[ch.len() - 1])
            .collect();
        let mut loco = Locomotor::stand_up(
            &c.def,
            body.position,
            heading(body.rotation),
            &feet,
            &ground,
        );
        loco.velocity = horizontal(body.linvel);
        loco.intent = c.loco.intent;
        loco.follow = c.loco.follow.take();
        c.loco = loco;
        let has_nav = c.nav.is_some();
        self.events.push(WorldEvent::Recover { id });
        if has_nav {
            self.replace_agents();
        }
    }
}

/// Muscles, balance help and the anchor of creature `c`'s rig `r` in `physics` (`level`:
/// the level alone, for the balance help's ray) — unless it sleeps or has settled.
pub(super) fn drive(
    level: &rapier3d::prelude::PhysicsWorld,
    physics: &mut rapier3d::prelude::PhysicsWorld,
    c: &crate::sim::world::Creature,
    r: &mut rig::Rig,
) {
    let Some(rag) = c.rag.as_ref() else { return };
    // A settled rig keeps its motors and anchor as they are: still, it needs no
    // change, and a moving anchor would keep its island awake.
    if r.asleep || r.settled {
        return;
    }
    rig::set_strength(physics, r, rag.muscle, rag.gains);
    let mass = r.mass();
    let mut balanced = false;
    if rag.phase == RagdollPhase::Recovering {
        let rt = c.def.physics.recovery_time;
        let roll = rag.roll_time(rt);
        let pose = match &rag.righting {
            Some(plan) if rag.time < roll => plan.at(smoothstep01(rag.time / roll)),
            _ => {
                let rise = rise_time(rag, rt, c.def.body.height);
                let t = smoothstep01((rag.time - roll) / rise);
                (
                    rag.from.0.lerp(rag.goal.0, t),
                    rag.from.1.slerp(rag.goal.1, t),
                )
            }
        };
        anchor::add_anchor(physics, r, pose);
        anchor::drive_anchor(physics, r, AnchorDrive::Recover, mass);
        anchor::move_anchor(physics, r, pose);
    } else if let Some((help, pose)) = balance(level, &c.def, rag) {
        anchor::add_anchor(physics, r, pose);
        anchor::drive_anchor(physics, r, AnchorDrive::Balance(help), mass);
        anchor::move_anchor(physics, r, pose);
        balanced = true;
    } else {
        anchor::drop_anchor(physics, r);
    }
    let settling = balanced
        && rag
            .parts
            .iter()
            .all(|p| p.linvel.length() < rig::SETTLING_SPEED);
    rig::set_settling(physics, r, settling);
}

/// Creature `c`'s parts back from its rig `r` in `physics` into plain data (a tick of `dt`);
/// a still rig settles (rapier may then put it to sleep).
pub(super) fn read_back(
    physics: &mut rapier3d::prelude::PhysicsWorld,
    c: &mut crate::sim::world::Creature,
    r: &mut rig::Rig,
    dt: f32,
) {
    let Some(rag) = c.rag.as_mut() else { return };
    // rapier's word: asleep with its island (a sleeping rig bumped by an awake one
    // wakes with it, and is read again).
    let asleep = r
        .bodies
        .first()
        .and_then(|h| physics.bodies.get(*h))
        .is_some_and(|b| b.is_sleeping());
    if asleep {
        if !r.asleep {
            r.asleep = true;
            for p in rag.parts.iter_mut() {
                p.linvel = Vec3::ZERO;
                p.angvel = Vec3::ZERO;
            }
        }
        return;
    }
    r.asleep = false;
    // A part that was coming down and was stopped within the tick landed on something.
    let mut falling = [0.0f32; 32];
    for (f, p) in falling.iter_mut().zip(&rag.parts) {
        *f = -p.linvel.y;
    }
    rig::read_parts(physics, r, &mut rag.parts);
    for (f, p) in falling.iter().zip(&rag.parts) {
        if *f > super::IMPACT_SPEED
            && p.linvel.y + f > super::IMPACT_SPEED
            && rag.impact.is_none_or(|(_, s)| *f > s)
        {
            rag.impact = Some((p.position, *f));
        }
    }
    // Settled once still for a while (slow, and gone nowhere); unsettled by a move.
    let fast = rag
        .parts
        .iter()
        .any(|p| p.linvel.length() >= STILL_SPEED || p.angvel.length() * 0.2 >= STILL_SPEED);
    let strayed = rag.rest.len() != rag.parts.len()
        || rag
            .parts
            .iter()
            .zip(&rag.rest)
            .any(|(p, at)| p.position.distance_squared(*at) > STILL_DRIFT * STILL_DRIFT);
    if fast || strayed {
        rag.still = 0.0;
        rag.rest.clear();
        rag.rest.extend(rag.parts.iter().map(|p| p.position));
    } else {
        rag.still += dt;
    }
    let settled = rag.phase == RagdollPhase::Limp && rag.still >= SLEEP_AFTER;
    rig::set_settled(physics, r, settled);
    // The locomotor follows the body (scripts read c:position(), agents re-place).
    let body = rag.parts[0];
    c.loco.position = body.position;
    c.loco.velocity = body.linvel;
    c.loco.yaw = heading(body.rotation);
}

/// Balance help for stances that cannot stand alone (TABS' marionette strings): while the
/// muscles are above half strength, the body is within 45° of upright and over the ground
/// between half and 1.5 times its ride height, an anchor holds it near ride height (carrying
/// [`BALANCE_CARRY`] of the helped weight there, at most twice the rig's weight) and upright,
/// its heading and sideways motion free.
/// Returns the help's share and the anchor's pose.
fn balance(
    physics: &rapier3d::prelude::PhysicsWorld,
    def: &ValidCreatureDef,
    rag: &super::Ragdoll,
) -> Option<(f32, (Vec3, Quat))> {
    let help = def.physics.balance_for(def.legs.len()) * smoothstep01((rag.muscle - 0.5) * 4.0);
    let body = rag.body();
    if help <= 0.0 || (body.rotation * Vec3::Y).y < 0.7 {
        return None;
    }
    let ride = def.body.height;
    // The level alone: every other rigid body is a ragdoll part.
    let query = physics.query_pipeline_with_filter(QueryFilter::exclude_dynamic());
    let (h, _) = crate::sim::ground::ray_down(&query, body.position, ride * 1.5)?;
    if h < ride * 0.5 {
        return None;
    }
    let at = Vec3::new(
        body.position.x,
        body.position.y - h + ride + BALANCE_CARRY * GRAVITY / anchor::BALANCE_LIFT,
        body.position.z,
    );
    Some((help, (at, yaw_rotation(heading(body.rotation)))))
}
