//! Each tick, every creature's spring chains (a model's tail, abdomen, antennae: see
//! `model::springs`) chase where its body carries them now: the rest shape from the body's
//! frame (the ragdoll's body part while in physics) and, for chains on the head, the head's
//! turn; the ground under it — the plane of its planted feet, else the ground under its
//! body — stops it. Each creature's own state: the same trace at any thread count.

use glam::{Affine3A, Vec3};

use super::ground::RapierGround;
use super::world::{Creature, World};
use crate::locomotion::GroundQuery;
use crate::math::spring_chain::SpringChain;
use crate::math::SpringParams;
use crate::model::BoundModel;

/// How far a chain's points keep above the ground (m).
const CLEARANCE: f32 = 0.02;
/// How far above a point the ground under it is looked for (m), and below.
const CAST_ABOVE: f32 = 0.5;
const CAST_BELOW: f32 = 1.5;

/// One creature's own spring chain settings and spine shares (see [`Creature::tuned`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tuned {
    /// Each chain's settings (empty: its type's).
    pub springs: Vec<SpringParams>,
    /// Its spine's shares of the lean, pelvis first, summing to 1 (`None`: its type's).
    pub spine: Option<Vec<f32>>,
}

/// A change to one creature's [`Tuned`].
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Tune {
    /// Chain `.0`'s settings.
    Spring(usize, SpringParams),
    /// The spine's shares, pelvis first (normalised to sum to 1).
    Spine(Vec<f32>),
}

impl World {
    /// Applies `t` to creature `id` (a chain or spine it does not have, or shares that are
    /// not numbers ≥ 0 with a sum > 0, change nothing).
    pub(super) fn tune(&mut self, id: super::world::CreatureId, t: &Tune) {
        let Some(c) = self.creature(id) else { return };
        let Some(m) = self
            .creature_type(c.type_id)
            .and_then(|ty| ty.model.clone())
        else {
            return;
        };
        let Some(c) = self.creature_mut(id) else {
            return;
        };
        let tuned = c.tuned.get_or_insert_with(Default::default);
        match t {
            Tune::Spring(i, p) if *i < m.springs.len() => {
                if tuned.springs.len() != m.springs.len() {
                    tuned.springs = m.springs.iter().map(|s| s.params).collect();
                }
                tuned.springs[*i] = *p;
            }
            Tune::Spine(w) if w.len() == m.spine.joints.len() => {
                let sum: f32 = w.iter().sum();
                if w.iter().all(|x| x.is_finite() && *x >= 0.0) && sum > 0.0 {
                    tuned.spine = Some(w.iter().map(|x| x / sum).collect());
                }
            }
            _ => {}
        }
    }

    /// Breathes (for world time `time`) and steps by `dt` the spring chains of every
    /// creature (`all`), or of those the locomotion pass left (in physics) — on the pool
    /// when there is one: each creature's chains read only its own state, so any thread
    /// count gives the same.
    pub(super) fn finish_bodies(&mut self, time: f64, dt: f32, all: bool) {
        let after = After {
            types: &self.types,
            time,
            tick: self.frame + 1,
            dt,
        };
        let World {
            creatures,
            physics,
            rigs,
            ground_collider,
            level,
            pool,
            ..
        } = self;
        let (physics, rigs, field) = (&*physics, &*rigs, *ground_collider);
        let only_ground = level.boxes.is_empty();
        let left = |c: &&mut Creature| all || c.finished != after.tick;
        let Some(pool) = pool.as_ref() else {
            let ground = RapierGround::new(physics, rigs, field, only_ground);
            let mut rest = Vec::new();
            for c in creatures.iter_mut().filter(left) {
                after.finish(c, &ground, &mut rest);
            }
            return;
        };
        if !all && creatures.iter().all(|c| c.finished == after.tick) {
            return;
        }
        use rayon::prelude::*;
        pool.install(|| {
            // In runs of creatures: each job makes its own ground query, and a creature's
            // chains are a few hundred nanoseconds of work.
            creatures
                .par_iter_mut()
                .with_min_len(64)
                .filter(left)
                .for_each_init(
                    || {
                        (
                            RapierGround::new(physics, rigs, field, only_ground),
                            Vec::new(),
                        )
                    },
                    |(ground, rest), c| after.finish(c, &*ground, rest),
                );
        });
    }
}

/// What a creature's body does each tick after its legs and its physics: it breathes, and
/// its spring chains chase where the body carries them. Done in the locomotion pass, on
/// each creature while its state is at hand (its chains follow its body as its legs left
/// it; no second walk over the crowd), and by [`World::finish_bodies`] for the rest.
#[derive(Clone, Copy)]
pub(super) struct After<'a> {
    pub(super) types: &'a [super::world::CreatureType],
    /// The world's time at the end of the tick (s).
    pub(super) time: f64,
    /// The tick's number (the world's frame after it).
    pub(super) tick: u64,
    pub(super) dt: f32,
}

impl After<'_> {
    /// Breathes `c` and steps its chains (`rest`: a buffer; not for a `dt` of 0); it is
    /// finished this tick.
    pub(super) fn finish(&self, c: &mut Creature, ground: &dyn GroundQuery, rest: &mut Vec<Vec3>) {
        c.finished = self.tick;
        super::breath::breathe(c, self.time, self.dt);
        if !(self.dt > 0.0) {
            return;
        }
        let model = self
            .types
            .get(c.type_id.0 as usize)
            .and_then(|t| t.model.as_deref())
            .filter(|m| !m.springs.is_empty());
        match model {
            Some(m) => step_creature(c, m, self.dt, ground, rest),
            None => c.springs.clear(),
        }
    }
}

/// The ground under a creature's chains, as a plane: the support plane its posture fitted
/// this tick, else through its planted feet (a climber), else level at the ground under its
/// body (in the air, in physics, a flyer); `None` with no ground under it. One cast at
/// most a creature.
fn floor_plane(c: &Creature, at: Vec3, ground: &dyn GroundQuery) -> Option<(Vec3, Vec3)> {
    if let Some(f) = c.loco.floor.filter(|_| c.rag.is_none()) {
        // The plane the posture fitted this tick (a walker on its feet).
        return Some(f);
    }
    if c.rag.is_none() {
        let mut feet = [Vec3::ZERO; 16];
        let mut n = 0;
        for st in c.loco.legs.iter().filter(|st| st.grounded) {
            if n < feet.len() {
                feet[n] = st.foot;
                n += 1;
            }
        }
        let under = Vec3::new(at.x, 0.0, at.z);
        if let Some(p) = crate::locomotion::posture::fit_plane(&feet[..n], under) {
            return Some((Vec3::new(at.x, p.height, at.z), p.normal));
        }
    }
    ground
        .cast_down(at + Vec3::Y * CAST_ABOVE, CAST_ABOVE + CAST_BELOW)
        .map(|g| (g, Vec3::Y))
}

/// Steps `c`'s spring chains (of its type's model `m`) by `dt`; `rest` a buffer.
pub(crate) fn step_creature(
    c: &mut Creature,
    m: &BoundModel,
    dt: f32,
    ground: &dyn GroundQuery,
    rest: &mut Vec<Vec3>,
) {
    let mut springs = std::mem::take(&mut c.springs);
    if springs.len() != m.springs.len() {
        springs.clear();
        springs.resize(m.springs.len(), SpringChain::default());
    }
    step_chains(c, m, dt, ground, rest, &mut springs);
    c.springs = springs;
}

/// [`step_creature`]'s work on `springs`, `c`'s chains taken out of it.
fn step_chains(
    c: &Creature,
    m: &BoundModel,
    dt: f32,
    ground: &dyn GroundQuery,
    rest: &mut Vec<Vec3>,
    springs: &mut [SpringChain],
) {
    // The head's turn, only for a model with chains on its head (the body's rotation made
    // with it).
    let on_head = m.springs.iter().any(|s| s.on_head);
    let (position, rotation, head) = match (m.binding.head, &c.rag, c.def.body.head.as_ref()) {
        (Some(h), None, Some(hd)) if on_head => {
            let (body, head) = c.loco.body_and_head_rotation(hd.counter_yaw);
            let turn = head * body.inverse();
            let at = c.loco.body_position();
            (at, body, Some((m.model.joints[h].head(), turn)))
        }
        _ => {
            let (at, body) = c.body_pose();
            (at, body, None)
        }
    };
    let body = Affine3A::from_rotation_translation(rotation, position)
        * Affine3A::from_mat4(m.binding.fix);
    // The plane found the first time a point hangs below the body's centre (none above it
    // reaches the ground).
    let mut plane = None;
    let mut floor = |p: Vec3| {
        if p.y > position.y {
            return None;
        }
        let (o, n) = (*plane.get_or_insert_with(|| floor_plane(c, position, ground)))?;
        Some(o.y - (n.x * (p.x - o.x) + n.z * (p.z - o.z)) / n.y.max(0.1))
    };
    let own = c.tuned.as_ref().map(|t| &t.springs[..]).unwrap_or(&[]);
    // Chains side by side, a few at a time (see `SpringChain::step_together`).
    use crate::math::spring_chain::AT_ONCE;
    for (g, states) in springs.chunks_mut(AT_ONCE).enumerate() {
        let first = g * AT_ONCE;
        let chains = &m.springs[first..first + states.len()];
        rest.clear();
        let mut spans = [(0usize, 0usize); AT_ONCE];
        for (k, chain) in chains.iter().enumerate() {
            let start = rest.len();
            crate::model::rest_points(chain, &body, head, rest);
            spans[k] = (start, rest.len());
        }
        let mut rests: [&[Vec3]; AT_ONCE] = [&[]; AT_ONCE];
        let mut params = [&chains[0].params; AT_ONCE];
        for (k, chain) in chains.iter().enumerate() {
            rests[k] = &rest[spans[k].0..spans[k].1];
            params[k] = own.get(first + k).unwrap_or(&chain.params);
        }
        let n = chains.len();
        SpringChain::step_together(states, &rests[..n], &params[..n], dt, CLEARANCE, &mut floor);
    }
}

/// `c`'s spring chains' points, chain after chain (what [`crate::model::PoseInput::springs`]
/// takes).
pub(crate) fn spring_points(c: &Creature, out: &mut Vec<Vec3>) {
    out.clear();
    for s in &c.springs {
        out.extend(s.points());
    }
}
