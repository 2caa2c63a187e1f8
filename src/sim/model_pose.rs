//! A creature's model posed from its state: the points of its limbs as locomotion or its
//! ragdoll has them (legs, then arms), its body frame and its head, handed to the model
//! layer's poser. The trace's `tip` and the renderer's skinning both come from here.

use glam::{Affine3A, Mat4, Vec3};

use super::world::Creature;
use crate::model::{BoundModel, PoseInput};

/// Buffers a pose is made in (reused from creature to creature).
#[derive(Clone, Debug, Default)]
pub struct PoseScratch {
    /// Every limb's points, hip to foot, legs then arms.
    pub points: Vec<Vec3>,
    /// How many points each limb has.
    pub lens: Vec<usize>,
    /// Each joint's world matrix.
    pub world: Vec<Affine3A>,
    /// Each joint's skinning matrix (bind-pose scene space to the world).
    pub skin: Vec<Mat4>,
    /// The spring chains' points.
    pub springs: Vec<Vec3>,
    /// Each leg's foot (slope, standing) for drawing foot bones.
    pub feet: Vec<crate::model::FootInput>,
}

/// Every limb's points of `c`, hip (or shoulder) to foot (or hand): legs, then arms.
pub fn limb_points(c: &Creature, points: &mut Vec<Vec3>, lens: &mut Vec<usize>) {
    points.clear();
    lens.clear();
    if let Some(rag) = c.rag.as_ref() {
        for chain in super::rig_chains(&c.def, &rag.parts) {
            lens.push(chain.len());
            points.extend(chain);
        }
        return;
    }
    for st in &c.loco.legs {
        let start = points.len();
        points.push(st.hip);
        if st.joints.is_empty() {
            points.push(st.knee);
        } else {
            points.extend_from_slice(&st.joints);
        }
        points.push(st.foot);
        lens.push(points.len() - start);
    }
    for chain in crate::locomotion::arm_chains(&c.def, &c.loco) {
        lens.push(chain.len());
        points.extend(chain);
    }
}

/// Poses `model` for `c` at world time `time` (its idle clip's clock) into `s` (its joints'
/// world and skinning matrices).
pub fn pose_creature(c: &Creature, model: &BoundModel, time: f32, s: &mut PoseScratch) {
    limb_points(c, &mut s.points, &mut s.lens);
    super::springs::spring_points(c, &mut s.springs);
    s.feet.clear();
    if c.rag.is_none() {
        s.feet
            .extend(c.loco.legs.iter().map(|l| crate::model::FootInput {
                slope: l.slope,
                grounded: l.grounded,
            }));
    }
    let counter = c.def.body.head.as_ref().map_or(0.0, |h| h.counter_yaw);
    // (The body's rotation and the head's made together: they share the body's frame.)
    let (position, rotation, head) = match c.rag {
        Some(_) => {
            let (at, rot) = c.body_pose();
            (at, rot, None)
        }
        None => {
            let (rot, head) = c.loco.body_and_head_rotation(counter);
            (c.loco.body_position(), rot, Some(head))
        }
    };
    model.posed.pose(
        &PoseInput {
            body: Affine3A::from_rotation_translation(rotation, position),
            head,
            body_rotation: rotation,
            lean: if c.rag.is_some() {
                glam::Quat::IDENTITY
            } else {
                c.loco.lean.rotation()
            },
            // Each creature a little out of step with the others (deterministic: by id).
            time: time + (c.id.0 as f32 * 0.618_034).fract() * 10.0,
            points: &s.points,
            chain_lens: &s.lens,
            springs: &s.springs,
            feet: &s.feet,
            spine: c.tuned.as_ref().and_then(|t| t.spine.as_deref()),
            breath: match (&c.def.body.breathe, &c.rag) {
                (Some(b), None) if b.depth > 0.0 => c.loco.breath / (0.5 * b.depth),
                _ => 0.0,
            },
            look: c.loco.look_at.filter(|_| c.rag.is_none()),
        },
        &mut s.world,
        &mut s.skin,
    );
}

/// The model made for a type that brings none: its standing pose on flat ground (legs as
/// locomotion stands them, arms hanging) dressed by `model::generate`.
pub fn generated_model(name: &str, def: &crate::locomotion::ValidCreatureDef) -> BoundModel {
    use crate::locomotion::{FlatGround, Locomotor};
    use crate::model::{GenSpec, HandShape, LimbSpec};
    let loco = Locomotor::spawn(def, Vec3::ZERO, 0.0, &FlatGround(0.0));
    let at = loco.body_position();
    let longest = def.legs.iter().map(|l| l.length).fold(0.0f32, f32::max);
    let radius = (longest * 0.035).clamp(0.01, 0.08);
    let mut limbs: Vec<LimbSpec> = def
        .legs
        .iter()
        .zip(&loco.legs)
        .map(|(d, st)| {
            let mut points = vec![st.hip - at];
            if st.joints.is_empty() {
                points.push(st.knee - at);
            } else {
                points.extend(st.joints.iter().map(|j| *j - at));
            }
            points.push(st.foot - at);
            LimbSpec {
                name: d.name.clone(),
                points,
                radius,
                arm: false,
                // Two to four legs stand on feet that lie on the ground; more are
                // an arthropod's, ending in points.
                hand: if def.legs.len() <= 4 {
                    HandShape::Paw
                } else {
                    HandShape::Knob
                },
            }
        })
        .collect();
    for (a, chain) in def
        .arms
        .iter()
        .zip(crate::locomotion::arm_chains(def, &loco))
    {
        limbs.push(LimbSpec {
            name: a.name.clone(),
            points: chain.iter().map(|p| *p - at).collect(),
            radius: radius * 0.8,
            arm: true,
            hand: match a.hand {
                crate::locomotion::Hand::Plain => HandShape::Knob,
                crate::locomotion::Hand::Claw => HandShape::Claw,
                crate::locomotion::Hand::Fist => HandShape::Fist,
            },
        });
    }
    let head = def
        .body
        .head
        .as_ref()
        .map(|h| (h.offset, h.size))
        .or_else(|| {
            let s = def.body.size;
            let r = s.x.min(s.y) * 0.32;
            Some((
                Vec3::new(0.0, 0.0, s.z * 0.5 + r * 0.4),
                Vec3::splat(2.0 * r),
            ))
        });
    let chains = appendages(def, head);
    crate::model::generate(&GenSpec {
        name: name.to_string(),
        size: def.body.size,
        height: def.body.height,
        head,
        limbs,
        chains,
    })
}

/// The tail and antennae `def` asks for, where the generated body and head (`head`: its
/// centre and size) put them.
fn appendages(
    def: &crate::locomotion::ValidCreatureDef,
    head: Option<(Vec3, Vec3)>,
) -> Vec<crate::model::ChainSpec> {
    use crate::model::ChainSpec;
    let mut out = Vec::new();
    let body = &def.body;
    if let Some(t) = &body.tail {
        out.push(ChainSpec {
            name: "tail".into(),
            points: t.tail_points(body),
            radius: t.radius,
            on_head: false,
            params: t.springs,
        });
    }
    if let Some(a) = &body.antennae {
        // On the head the model draws (a default one when the definition gives none).
        let mut with_head = body.clone();
        if let (None, Some((offset, size))) = (&with_head.head, head) {
            with_head.head = Some(crate::locomotion::HeadDef {
                offset,
                size,
                counter_yaw: 0.0,
                look: Default::default(),
            });
        }
        let (sides, on_head) = a.antenna_points(&with_head);
        for (points, side) in sides.into_iter().zip(["L", "R"]) {
            out.push(ChainSpec {
                name: format!("antenna.{side}."),
                points,
                radius: a.radius,
                on_head,
                params: a.springs,
            });
        }
    }
    out
}

/// The body plan `skitter export` records for type `t` (its definition's figures, the
/// bones its model binds each limb to): loaded back while the bones agree, it is the same
/// creature to the bit. `None` when the model's limbs do not line up with the definition's.
pub fn plan_record(t: &super::CreatureType) -> Option<crate::model::PlanRecord> {
    use crate::model::LimbRecord;
    let def = &t.def;
    let m = t.model.as_ref()?;
    let names = |c: &crate::model::LegChain| -> Vec<String> {
        c.bones
            .iter()
            .map(|b| m.model.joints[*b].name.clone())
            .collect()
    };
    if def.legs.len() != m.binding.legs.len()
        || def.arms.len() != m.binding.arms.len()
        || def
            .legs
            .iter()
            .zip(&m.binding.legs)
            .any(|(d, c)| d.name != c.name)
        || def
            .arms
            .iter()
            .zip(&m.binding.arms)
            .any(|(d, c)| d.name != c.name)
    {
        return None;
    }
    Some(crate::model::PlanRecord {
        version: 1,
        fix: m.binding.fix,
        size: def.body.size,
        height: def.body.height,
        head: def.body.head.as_ref().map(|h| (h.offset, h.size)),
        legs: def
            .legs
            .iter()
            .zip(&m.binding.legs)
            .map(|(d, c)| LimbRecord {
                name: d.name.clone(),
                bones: names(c),
                hip: d.hip,
                rest: d.rest,
                segments: d.segments.clone(),
                knee: (d.knee != crate::locomotion::default_knee(d.rest)).then_some(d.knee),
            })
            .collect(),
        arms: def
            .arms
            .iter()
            .zip(&m.binding.arms)
            .map(|(d, c)| LimbRecord {
                name: d.name.clone(),
                bones: names(c),
                hip: d.shoulder,
                rest: Vec3::ZERO,
                segments: d.segments.clone(),
                knee: None,
            })
            .collect(),
        limb_radius: def.physics.limb_radius,
        limb_radii: def.physics.limb_radii.clone(),
    })
}
