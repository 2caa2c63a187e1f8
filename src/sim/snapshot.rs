//! A render snapshot: the plain data a view needs from the World, extracted once per frame
//! into reused buffers. Views read snapshots, never the live World.

use glam::{Quat, Vec3};

use super::world::{CreatureId, World};
/// The crease a climber is crossing, for drawing (the renderer names no locomotion type).
pub use crate::locomotion::Crease;

/// One leg's pose for drawing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LegPose {
    /// Hip, world space.
    pub hip: Vec3,
    /// Knee, world space.
    pub knee: Vec3,
    /// Foot, world space.
    pub foot: Vec3,
    /// Where the foot wants to be (debug drawing).
    pub target: Vec3,
    /// Planted.
    pub grounded: bool,
    /// The normal of the surface its target is on (a climber's; +Y otherwise).
    pub normal: Vec3,
}

/// One creature for drawing; its legs, then its arms, are `legs[first_leg..first_leg +
/// leg_count]` of the snapshot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CreatureView {
    /// Identity.
    pub id: CreatureId,
    /// Body centre.
    pub position: Vec3,
    /// Body rotation (tilt then yaw).
    pub rotation: Quat,
    /// Body full extents.
    pub size: Vec3,
    /// Up vector of the fitted support plane.
    pub up: Vec3,
    /// Head centre, world space.
    pub head_position: Vec3,
    /// Head rotation (counter-yawed).
    pub head_rotation: Quat,
    /// Head full extents.
    pub head_size: Vec3,
    /// Leg thickness, metres.
    pub leg_radius: f32,
    /// Index of the first leg in [`Snapshot::legs`].
    pub first_leg: u32,
    /// Number of legs and arms.
    pub leg_count: u32,
    /// Whether it moved on the tick the snapshot was taken after (always, at full detail; a
    /// far creature under a level of detail only on its turns, see `sim::detail`).
    pub turn: bool,
    /// Its type's index in the world's types, when the type has a model (drawn skinned with
    /// `skins[first_skin..first_skin + skin_count]`).
    pub model: Option<u32>,
    /// Index of its first skinning matrix in [`Snapshot::skins`].
    pub first_skin: u32,
    /// Number of skinning matrices (its model's joints; 0 without a model).
    pub skin_count: u32,
    /// A climber holding on to a surface (its `up` is its body's).
    pub climbing: bool,
    /// The crease a climber is crossing.
    pub crease: Option<Crease>,
    /// The colour it is recoloured in (`None`: as made).
    pub tint: Option<Vec3>,
}

/// Everything a frame draws of the dynamic world.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    /// Tick the snapshot was taken after.
    pub frame: u64,
    /// Simulation time, seconds.
    pub time: f64,
    /// Level version (see [`World::level_version`]).
    pub level_version: u64,
    /// Creatures in id order.
    pub creatures: Vec<CreatureView>,
    /// All legs, creature by creature.
    pub legs: Vec<LegPose>,
    /// Every ragdoll's joints (for the `ragdoll` debug layer).
    pub rig_joints: Vec<super::RigJointView>,
    /// Skinning matrices of every model creature, creature by creature (bind-pose scene
    /// space to the world; see `model::pose`).
    pub skins: Vec<glam::Mat4>,
    /// Every spring chain's points (root to tip), chain after chain (for the `springs`
    /// debug layer); `spring_chains` says how many points each has.
    pub spring_points: Vec<Vec3>,
    /// Points a chain, in `spring_points`' order.
    pub spring_chains: Vec<u32>,
}

impl Snapshot {
    /// The legs of one creature.
    pub fn legs_of(&self, c: &CreatureView) -> &[LegPose] {
        &self.legs[c.first_leg as usize..(c.first_leg + c.leg_count) as usize]
    }

    /// The skinning matrices of one creature.
    pub fn skins_of(&self, c: &CreatureView) -> &[glam::Mat4] {
        &self.skins[c.first_skin as usize..(c.first_skin + c.skin_count) as usize]
    }

    /// Fills `self` from `world`, reusing its buffers.
    pub fn capture(&mut self, world: &World) {
        self.frame = world.frame();
        self.time = world.time();
        self.level_version = world.level_version();
        self.creatures.clear();
        self.legs.clear();
        self.rig_joints.clear();
        self.skins.clear();
        self.spring_points.clear();
        self.spring_chains.clear();
        for c in world.creatures() {
            for chain in &c.springs {
                self.spring_chains.push(chain.points().len() as u32);
                self.spring_points.extend(chain.points());
            }
        }
        self.pose_skins(world);
        let mut next_skin = 0u32;
        for c in world.creatures() {
            let first_leg = self.legs.len() as u32;
            let first_skin = next_skin;
            let model = world
                .creature_type(c.type_id)
                .and_then(|t| t.model.as_deref());
            if let Some(m) = model {
                next_skin += m.model.joints.len() as u32;
            }
            self.push_limbs(world, c);
            let longest = c.def.legs.iter().map(|l| l.length).fold(0.0f32, f32::max);
            let (position, rotation) = c.body_pose();
            let size = c.def.body.size;
            let (head_offset, head_size, counter) = match &c.def.body.head {
                Some(h) => (h.offset, h.size, h.counter_yaw),
                None => {
                    let r = size.x.min(size.y) * 0.32;
                    (
                        Vec3::new(0.0, 0.0, size.z * 0.5 + r * 0.4),
                        Vec3::splat(2.0 * r),
                        0.0,
                    )
                }
            };
            self.creatures.push(CreatureView {
                id: c.id,
                position,
                rotation,
                size,
                head_position: position + rotation * head_offset,
                head_rotation: if c.rag.is_some() {
                    rotation
                } else {
                    c.loco.head_rotation(counter)
                },
                head_size,
                up: if c.rag.is_some() {
                    rotation * Vec3::Y
                } else {
                    c.loco.up
                },
                leg_radius: (longest * 0.035).clamp(0.01, 0.08),
                first_leg,
                leg_count: self.legs.len() as u32 - first_leg,
                turn: c.due || c.rag.is_some(),
                model: model.map(|_| c.type_id.0),
                first_skin,
                skin_count: next_skin - first_skin,
                climbing: c.rag.is_none() && c.loco.is_climbing(),
                crease: c
                    .loco
                    .climb
                    .and_then(|cl| cl.crease)
                    .filter(|_| c.rag.is_none() && c.loco.is_climbing()),
                tint: c.tint,
            });
        }
    }

    /// Every model creature's skinning matrices into `skins`, each creature's range in
    /// creature order, posed on the world's threads when it has them (each pose reads only
    /// its creature and its model).
    fn pose_skins(&mut self, world: &World) {
        let time = world.time() as f32;
        let mut total = 0usize;
        for c in world.creatures() {
            if let Some(m) = world
                .creature_type(c.type_id)
                .and_then(|t| t.model.as_deref())
            {
                total += m.model.joints.len();
            }
        }
        self.skins.resize(total, glam::Mat4::IDENTITY);
        {
            let mut rest: &mut [glam::Mat4] = &mut self.skins;
            let mut jobs = Vec::new();
            for c in world.creatures() {
                if let Some(m) = world
                    .creature_type(c.type_id)
                    .and_then(|t| t.model.as_deref())
                {
                    let (mine, tail) = std::mem::take(&mut rest).split_at_mut(m.model.joints.len());
                    rest = tail;
                    jobs.push((c, m, mine));
                }
            }
            let pose_all = |jobs: Vec<(
                &super::Creature,
                &crate::model::BoundModel,
                &mut [glam::Mat4],
            )>| {
                use rayon::prelude::*;
                jobs.into_par_iter().with_min_len(32).for_each_init(
                    super::PoseScratch::default,
                    |s, (c, m, out)| {
                        super::pose_creature(c, m, time, s);
                        out.copy_from_slice(&s.skin);
                    },
                );
            };
            match &world.pool {
                Some(pool) if jobs.len() > 64 => pool.install(|| pose_all(jobs)),
                _ => {
                    let mut s = super::PoseScratch::default();
                    for (c, m, out) in jobs {
                        super::pose_creature(c, m, time, &mut s);
                        out.copy_from_slice(&s.skin);
                    }
                }
            }
        }
    }

    /// A creature's legs, then its arms, as limbs to draw: a ragdoll's are its rig's
    /// segments.
    fn push_limbs(&mut self, world: &World, c: &super::Creature) {
        match c.rag.as_ref() {
            // A ragdoll's legs are its rig's segments.
            Some(rag) => {
                world.rig_joints(c.id, &mut self.rig_joints);
                for chain in super::rig_chains(&c.def, &rag.parts) {
                    let foot = chain[chain.len() - 1];
                    self.legs.push(LegPose {
                        hip: chain[0],
                        knee: chain[1],
                        foot,
                        target: foot,
                        grounded: false,
                        normal: Vec3::Y,
                    });
                }
            }
            None => {
                for st in &c.loco.legs {
                    self.legs.push(LegPose {
                        hip: st.hip,
                        knee: st.knee,
                        foot: st.foot,
                        target: st.target,
                        grounded: st.grounded,
                        normal: st.normal,
                    });
                }
                // Arms are drawn as limbs that never touch the ground.
                for chain in crate::locomotion::arm_chains(&c.def, &c.loco) {
                    let hand = chain[chain.len() - 1];
                    self.legs.push(LegPose {
                        hip: chain[0],
                        knee: chain[1],
                        foot: hand,
                        target: hand,
                        grounded: false,
                        normal: Vec3::Y,
                    });
                }
            }
        }
    }

    /// Blends two snapshots (`a` at `t = 0`, `b` at `t = 1`) into `self`: creatures present
    /// in both are interpolated, the rest are taken from `b`.
    pub fn interpolate(&mut self, a: &Snapshot, b: &Snapshot, t: f32) {
        self.interpolate_each(a, b, |_| t);
    }

    /// [`Snapshot::interpolate`] with each creature at its own `t(index in b)`.
    pub fn interpolate_each(&mut self, a: &Snapshot, b: &Snapshot, t: impl Fn(usize) -> f32) {
        self.clone_from(b);
        let mut j = 0;
        for (i, c) in self.creatures.iter_mut().enumerate() {
            let t = t(i).clamp(0.0, 1.0);
            while j < a.creatures.len() && a.creatures[j].id < c.id {
                j += 1;
            }
            let Some(p) = a
                .creatures
                .get(j)
                .filter(|p| p.id == c.id && p.leg_count == c.leg_count)
            else {
                continue;
            };
            c.position = p.position.lerp(c.position, t);
            c.rotation = p.rotation.slerp(c.rotation, t);
            c.head_position = p.head_position.lerp(c.head_position, t);
            c.head_rotation = p.head_rotation.slerp(c.head_rotation, t);
            c.up = p.up.lerp(c.up, t).normalize_or(c.up);
            for k in 0..c.leg_count as usize {
                let (pa, pb) = (
                    a.legs[p.first_leg as usize + k],
                    &mut self.legs[c.first_leg as usize + k],
                );
                pb.hip = pa.hip.lerp(pb.hip, t);
                pb.knee = pa.knee.lerp(pb.knee, t);
                pb.foot = pa.foot.lerp(pb.foot, t);
            }
            // Skinning matrices blend entry by entry (between two ticks' poses the turns
            // are small: the blend stays a near-rigid transform).
            if p.skin_count == c.skin_count && p.model == c.model {
                for k in 0..c.skin_count as usize {
                    let pa = a.skins[p.first_skin as usize + k];
                    let pb = &mut self.skins[c.first_skin as usize + k];
                    *pb = pa * (1.0 - t) + *pb * t;
                }
            }
        }
    }
}

/// What frames draw between ticks: every creature between its poses at its last two turns,
/// at its own pace. At full detail those are the last two ticks; a far creature under a
/// level of detail (`sim::detail`) moves on one tick in `every`, and is drawn gliding from
/// its pose at one turn to the next over the ticks between them (`every` ticks behind,
/// where a near one is one tick behind) instead of jumping on one frame in `every` and
/// standing still in between.
#[derive(Clone, Debug, Default)]
pub struct Motion {
    /// Each creature's pose at its turn before the last.
    pub prev: Snapshot,
    /// The latest snapshot: each creature's pose at its last turn.
    pub cur: Snapshot,
    /// Per creature of `cur`: the tick of its last turn and the ticks between its last two.
    turns: Vec<(u64, u32)>,
    /// The snapshot before `cur` (its buffers are reused).
    spare: Snapshot,
    /// Buffers for the next `prev` and `turns`.
    next: Snapshot,
    next_turns: Vec<(u64, u32)>,
}

impl Motion {
    /// Starts from `world` as it stands (nothing moving yet).
    pub fn new(world: &World) -> Motion {
        let mut m = Motion::default();
        m.cur.capture(world);
        m.prev.clone_from(&m.cur);
        m.turns = vec![(m.cur.frame, 1); m.cur.creatures.len()];
        m
    }

    /// After a tick: the new snapshot; creatures that moved on it shift their last two turns.
    pub fn after_tick(&mut self, world: &World) {
        // `spare` takes the old latest snapshot; `cur` the new one.
        std::mem::swap(&mut self.spare, &mut self.cur);
        self.cur.capture(world);
        let (old, prev) = (&self.spare, &self.prev);
        let next = &mut self.next;
        (next.frame, next.time, next.level_version) = (old.frame, old.time, old.level_version);
        next.creatures.clear();
        next.legs.clear();
        next.rig_joints.clear();
        next.skins.clear();
        let turns = &mut self.next_turns;
        turns.clear();
        let (mut i, mut j) = (0, 0);
        for c in &self.cur.creatures {
            while old.creatures.get(i).is_some_and(|o| o.id < c.id) {
                i += 1;
            }
            while prev.creatures.get(j).is_some_and(|o| o.id < c.id) {
                j += 1;
            }
            let same = |o: &&CreatureView| o.id == c.id && o.leg_count == c.leg_count;
            let last = old.creatures.get(i).filter(same);
            // A creature that moved: its turn before the last is the old latest snapshot (it
            // has not moved since its last turn), and its last turn is now. One that did not
            // keeps both.
            let (from, src, turn) = match (last, c.turn) {
                (Some(o), true) => {
                    let span = self.cur.frame.saturating_sub(self.turns[i].0).max(1);
                    (o, old, (self.cur.frame, span as u32))
                }
                (Some(_), false) => match prev.creatures.get(j).filter(same) {
                    Some(p) => (p, prev, self.turns[i]),
                    None => (c, &self.cur, (self.cur.frame, 1)),
                },
                // New: drawn where it is.
                (None, _) => (c, &self.cur, (self.cur.frame, 1)),
            };
            let first = next.legs.len() as u32;
            next.legs.extend_from_slice(src.legs_of(from));
            let first_skin = next.skins.len() as u32;
            next.skins.extend_from_slice(src.skins_of(from));
            next.creatures.push(CreatureView {
                first_leg: first,
                first_skin,
                ..*from
            });
            turns.push(turn);
        }
        std::mem::swap(&mut self.prev, &mut self.next);
        std::mem::swap(&mut self.turns, &mut self.next_turns);
    }

    /// The frame `alpha` (0..1) of the way from the last tick to the next: each creature
    /// between its last two turns, `(ticks since its last turn + alpha) / (ticks between
    /// them)` of the way.
    pub fn frame(&self, alpha: f32, out: &mut Snapshot) {
        let now = self.cur.frame;
        out.interpolate_each(&self.prev, &self.cur, |i| match self.turns.get(i) {
            Some(&(last, span)) => (now.saturating_sub(last) as f32 + alpha) / span as f32,
            None => alpha,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locomotion::def::tests::spider;
    use crate::locomotion::Intent;
    use crate::sim::{Command, GroundDesc, HeightSource, TICK_DT};

    #[test]
    fn captures_and_interpolates() {
        let mut w = World::new(1);
        w.set_ground(&GroundDesc {
            tag: Default::default(),
            position: Vec3::ZERO,
            width: 20.0,
            depth: 20.0,
            heights: HeightSource::Flat,
        })
        .expect("ground");
        let t = w.register_type("t/spider", spider().validate().expect("valid"));
        let id = w.spawn(t, Vec3::ZERO, 0.0).expect("spawn");
        w.push(Command::SetIntent(id, Intent::walk(Vec3::Z, 1.0)));
        let (mut a, mut b, mut mid) = (
            Snapshot::default(),
            Snapshot::default(),
            Snapshot::default(),
        );
        for _ in 0..30 {
            w.step(TICK_DT);
        }
        a.capture(&w);
        w.step(TICK_DT);
        b.capture(&w);
        assert_eq!(a.creatures.len(), 1);
        assert_eq!(b.legs_of(&b.creatures[0]).len(), 8);
        mid.interpolate(&a, &b, 0.5);
        let (pa, pb, pm) = (
            a.creatures[0].position,
            b.creatures[0].position,
            mid.creatures[0].position,
        );
        assert!(pb.z > pa.z);
        assert!((pm - (pa + pb) * 0.5).length() < 1e-5);
        assert!(w.level_version() > 0);
    }
}

#[cfg(test)]
mod motion_tests {
    use super::*;
    use crate::locomotion::def::tests::spider;
    use crate::locomotion::Intent;
    use crate::sim::{Command, Detail, GroundDesc, HeightSource, TICK_DT};

    /// (near z, far z).
    type Zs = (f32, f32);

    /// Two spiders walking along +z: one at the level of detail's focus, one 30 m away
    /// (moving on one tick in 3). Drawn at 4 frames per tick: (near z, far z) per frame, and
    /// each one's z at every tick.
    fn walk_and_draw(ticks: usize) -> (Vec<Zs>, Vec<Zs>) {
        let mut w = World::new(1);
        w.set_ground(&GroundDesc {
            tag: Default::default(),
            position: Vec3::ZERO,
            width: 80.0,
            depth: 80.0,
            heights: HeightSource::Flat,
        })
        .expect("ground");
        let t = w.register_type("t/spider", spider().validate().expect("valid"));
        let near = w.spawn(t, Vec3::new(0.0, 0.0, -10.0), 0.0).expect("spawn");
        let far = w.spawn(t, Vec3::new(30.0, 0.0, -10.0), 0.0).expect("spawn");
        for id in [near, far] {
            w.push(Command::SetIntent(id, Intent::walk(Vec3::Z, 1.0)));
        }
        w.set_detail(Some(Detail::around(Vec3::new(0.0, 0.0, -10.0), 10.0)));
        let mut m = Motion::new(&w);
        let mut out = Snapshot::default();
        let (mut drawn, mut ticked) = (Vec::new(), Vec::new());
        for _ in 0..ticks {
            w.step(TICK_DT);
            m.after_tick(&w);
            let z = |s: &Snapshot, k: usize| s.creatures[k].position.z;
            ticked.push((z(&m.cur, 0), z(&m.cur, 1)));
            for a in [0.0, 0.25, 0.5, 0.75] {
                m.frame(a, &mut out);
                drawn.push((z(&out, 0), z(&out, 1)));
            }
        }
        (drawn, ticked)
    }

    #[test]
    fn far_creatures_are_drawn_gliding_between_their_turns() {
        let (drawn, ticked) = walk_and_draw(240);
        // Once both walk at speed (the last two seconds).
        let steps = |k: usize| -> Vec<f32> {
            drawn[480..]
                .windows(2)
                .map(|w| {
                    if k == 0 {
                        w[1].0 - w[0].0
                    } else {
                        w[1].1 - w[0].1
                    }
                })
                .collect()
        };
        let tick_steps: Vec<f32> = ticked[120..].windows(2).map(|w| w[1].1 - w[0].1).collect();
        // The far one moves on one tick in three (the world's level of detail)...
        let still = tick_steps.iter().filter(|d| d.abs() < 1e-6).count();
        assert!(
            (still as f32 / tick_steps.len() as f32 - 2.0 / 3.0).abs() < 0.05,
            "{still} of {} ticks without a move",
            tick_steps.len()
        );
        // ...yet every frame draws it a little farther on, by about the same step: no frame
        // jumps and none stands still, as for the near one.
        for k in [0, 1] {
            let s = steps(k);
            let mean = s.iter().sum::<f32>() / s.len() as f32;
            assert!(mean > 1e-3, "creature {k} walks: {mean}");
            let (lo, hi) = s
                .iter()
                .fold((f32::MAX, f32::MIN), |(l, h), d| (l.min(*d), h.max(*d)));
            assert!(
                lo > 0.3 * mean && hi < 2.0 * mean,
                "creature {k}: frame steps {lo:.4}..{hi:.4} m, mean {mean:.4}"
            );
        }
        // The near one is drawn between its last two ticks, as before: at the start of a tick
        // exactly where it was the tick before.
        for i in 1..ticked.len() {
            assert_eq!(drawn[i * 4].0, ticked[i - 1].0, "tick {i}");
        }
    }
}
