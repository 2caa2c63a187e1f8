//! A model made from a creature's definition, for types that bring none: a skeleton of a
//! body bone, a head bone and one bone per limb segment in the standing pose, and a skinned
//! mesh over it — tapered, jointed leg segments with a ball at each joint and a claw at the
//! foot, and a body shaped by the body plan (cephalothorax and abdomen for eight legs,
//! thorax and abdomen for six, a torso and haunches for four, a torso and pelvis for two, a
//! row of segments for more), a head with eyes. Drawn through the same skinned path as a
//! loaded model.

use std::sync::Arc;

use glam::{Mat4, Quat, Vec3};

use super::{
    Binding, BodyPlan, BoundLeg, BoundModel, Joint, LegChain, Material, Model, Posed, Primitive,
};

/// One limb in the standing pose, body space.
#[derive(Clone, Debug, PartialEq)]
pub struct LimbSpec {
    /// Its name.
    pub name: String,
    /// Hip (or shoulder), then each joint, then the foot (or hand).
    pub points: Vec<Vec3>,
    /// Its thickness at the hip (m).
    pub radius: f32,
    /// An arm (never on the ground).
    pub arm: bool,
    /// What is drawn at its end.
    pub hand: HandShape,
}

/// What a generated limb's end looks like.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HandShape {
    /// A small ball (a foot, a plain hand).
    #[default]
    Knob,
    /// A pincer: a palm and two fingers open in a V along the last segment.
    Claw,
    /// A ball a little thicker than the limb.
    Fist,
    /// A foot: a flattened oval lying behind the leg's end on its own joint (`NAME.pad`),
    /// laid on the ground's slope and peeling heel-first as the foot trails (the poser's,
    /// see `Posed::set_pads`); a small ball at the ankle.
    Paw,
}

/// What a generated model is made from (body space: +Z forward, +X left, +Y up).
#[derive(Clone, Debug, PartialEq)]
pub struct GenSpec {
    /// The type's qualified name (for messages).
    pub name: String,
    /// Body full extents.
    pub size: Vec3,
    /// Ride height.
    pub height: f32,
    /// Head centre and size.
    pub head: Option<(Vec3, Vec3)>,
    /// Legs, then arms, in the definition's order.
    pub limbs: Vec<LimbSpec>,
    /// Tails and antennae: chains of bones that swing on springs.
    pub chains: Vec<ChainSpec>,
}

/// A tail or an antenna: its points at rest (body space, root first), its thickness at the
/// root, whether it hangs on the head, how it swings.
#[derive(Clone, Debug, PartialEq)]
pub struct ChainSpec {
    /// Its name (its first bone's).
    pub name: String,
    /// Root, each joint, tip.
    pub points: Vec<Vec3>,
    /// Thickness at the root (m; a third of it at the tip).
    pub radius: f32,
    /// On the head (it turns with it).
    pub on_head: bool,
    /// How it swings.
    pub params: crate::math::SpringParams,
}

const BODY: [f32; 4] = [0.46, 0.16, 0.09, 1.0];
const BELLY: [f32; 4] = [0.30, 0.10, 0.07, 1.0];
const LEG: [f32; 4] = [0.16, 0.10, 0.08, 1.0];
const KNEE: [f32; 4] = [0.55, 0.28, 0.14, 1.0];
const HEAD: [f32; 4] = [0.20, 0.10, 0.08, 1.0];
const EYE: [f32; 4] = [0.02, 0.02, 0.02, 1.0];

/// Triangles being built, all with one material.
/// How finely a generated model's shapes are made: (rings, segments) of a body part's
/// ellipsoid, of a small one (an eye, a claw's palm, a paw's pad, a fist), of a ball at a
/// limb's joint (mostly inside the tubes it joins: only its rim shows; `None`: left out), and
/// the sides of a limb's tube.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Detail {
    fine: (u32, u32),
    coarse: (u32, u32),
    knuckle: Option<(u32, u32)>,
    tube: u32,
}

/// The model as made (the triangle budget of the bundled spider: 808, against the 500 of a
/// loaded one, `../shared/assets/spider`, whose legs are bare), then its coarser levels.
const DETAILS: [Detail; 4] = [
    Detail {
        fine: (7, 10),
        coarse: (3, 6),
        knuckle: Some((2, 5)),
        tube: 5,
    },
    Detail {
        fine: (5, 8),
        coarse: (2, 5),
        knuckle: Some((2, 4)),
        tube: 4,
    },
    Detail {
        fine: (4, 6),
        coarse: (2, 4),
        knuckle: None,
        tube: 3,
    },
    Detail {
        fine: (3, 5),
        coarse: (2, 3),
        knuckle: None,
        tube: 3,
    },
];

/// Which of [`Detail`]'s shapes an ellipsoid is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Part {
    Fine,
    Coarse,
    Knuckle,
}

/// How far a polygon of `n` sides inscribed in a circle of radius `r` strays from it.
fn chord_error(r: f32, n: u32) -> f32 {
    r * (1.0 - (std::f32::consts::PI / n.max(3) as f32).cos())
}

struct Builder {
    p: Primitive,
    detail: Detail,
    /// The largest distance between these shapes and the true ones they stand for.
    error: f32,
}

impl Default for Builder {
    fn default() -> Builder {
        Builder {
            p: Primitive::default(),
            detail: DETAILS[0],
            error: 0.0,
        }
    }
}

impl Builder {
    fn vertex(&mut self, pos: Vec3, normal: Vec3, color: [f32; 4], joint: usize) -> u32 {
        let i = self.p.positions.len() as u32;
        self.p.positions.push(pos.to_array());
        self.p.normals.push(normal.normalize_or(Vec3::Y).to_array());
        self.p.uvs.push([0.0, 0.0]);
        self.p.colors.push(color);
        self.p.joints.push([joint as u16, 0, 0, 0]);
        self.p.weights.push([1.0, 0.0, 0.0, 0.0]);
        i
    }

    /// An ellipsoid of half extents `r` at `c`, turned by `rot`, on `joint`, as finely as
    /// the builder's [`Detail`] makes a `part` (a crowd's triangles add up).
    #[allow(clippy::too_many_arguments)]
    fn ellipsoid(
        &mut self,
        c: Vec3,
        r: Vec3,
        rot: Quat,
        color: [f32; 4],
        joint: usize,
        part: Part,
    ) {
        let big = r.max_element();
        let detail = match part {
            Part::Fine => Some(self.detail.fine),
            Part::Coarse => Some(self.detail.coarse),
            Part::Knuckle => self.detail.knuckle,
        };
        let Some((rings, segs)) = detail else {
            // Left out: the tubes it joins stand where it was, less half its size.
            self.error = self.error.max(0.5 * big);
            return;
        };
        self.error = self
            .error
            .max(chord_error(big, segs))
            .max(chord_error(big, 2 * rings));
        let base = self.p.positions.len() as u32;
        for i in 0..=rings {
            let phi = std::f32::consts::PI * i as f32 / rings as f32;
            for j in 0..=segs {
                let th = std::f32::consts::TAU * j as f32 / segs as f32;
                let u = Vec3::new(phi.sin() * th.cos(), phi.cos(), phi.sin() * th.sin());
                let pos = c + rot * (u * r);
                let n = rot * (u / r.max(Vec3::splat(1e-4)));
                self.vertex(pos, n, color, joint);
            }
        }
        let w = segs + 1;
        // The first and last rows meet at a pole: one triangle a quad (the other would have
        // no area, yet cost a crowd's rasteriser its set-up).
        for i in 0..rings {
            for j in 0..segs {
                let (a, b) = (base + i * w + j, base + (i + 1) * w + j);
                if i > 0 {
                    self.p.indices.extend_from_slice(&[a, b, a + 1]);
                }
                if i + 1 < rings {
                    self.p.indices.extend_from_slice(&[a + 1, b, b + 1]);
                }
            }
        }
    }

    /// A tapered tube from `a` (radius `ra`) to `b` (radius `rb`), on `joint`.
    fn tube(&mut self, a: Vec3, b: Vec3, ra: f32, rb: f32, color: [f32; 4], joint: usize) {
        let axis = b - a;
        let Some(dir) = axis.try_normalize() else {
            return;
        };
        let side = dir.any_orthonormal_vector();
        let up = dir.cross(side);
        let segs = self.detail.tube;
        self.error = self.error.max(chord_error(ra.max(rb), segs));
        let base = self.p.positions.len() as u32;
        // The slope of the taper tilts the normals toward the narrow end.
        let slope = (ra - rb) / axis.length().max(1e-4);
        for (t, r) in [(0.0f32, ra), (1.0, rb)] {
            let c = a + axis * t;
            for j in 0..=segs {
                let th = std::f32::consts::TAU * j as f32 / segs as f32;
                let out = side * th.cos() + up * th.sin();
                self.vertex(c + out * r, out + dir * slope, color, joint);
            }
        }
        let w = segs + 1;
        for j in 0..segs {
            let (p, q) = (base + j, base + w + j);
            self.p
                .indices
                .extend_from_slice(&[p, p + 1, q, p + 1, q + 1, q]);
        }
    }
}

/// Where a body plan's body parts sit: (centre, half extents, colour), body space.
fn body_parts(spec: &GenSpec, legs: usize) -> Vec<(Vec3, Vec3, [f32; 4])> {
    let s = spec.size * 0.5;
    match legs {
        // Cephalothorax in front, a rounder abdomen behind.
        7..=9 => vec![
            (
                Vec3::new(0.0, 0.0, s.z * 0.35),
                Vec3::new(s.x * 0.78, s.y * 0.8, s.z * 0.5),
                BODY,
            ),
            (
                Vec3::new(0.0, s.y * 0.25, -s.z * 0.45),
                Vec3::new(s.x * 0.95, s.y * 1.15, s.z * 0.62),
                BELLY,
            ),
        ],
        // Thorax and abdomen, narrower.
        5 | 6 => vec![
            (
                Vec3::new(0.0, 0.0, s.z * 0.3),
                Vec3::new(s.x * 0.7, s.y * 0.8, s.z * 0.45),
                BODY,
            ),
            (
                Vec3::new(0.0, s.y * 0.1, -s.z * 0.5),
                Vec3::new(s.x * 0.8, s.y * 0.9, s.z * 0.6),
                BELLY,
            ),
        ],
        // A torso with its shoulders and haunches.
        3 | 4 => vec![
            (
                Vec3::ZERO,
                Vec3::new(s.x * 0.8, s.y * 0.85, s.z * 0.9),
                BODY,
            ),
            (
                Vec3::new(0.0, s.y * 0.1, s.z * 0.55),
                Vec3::new(s.x * 0.75, s.y * 0.9, s.z * 0.4),
                BODY,
            ),
            (
                Vec3::new(0.0, s.y * 0.05, -s.z * 0.55),
                Vec3::new(s.x * 0.8, s.y * 0.9, s.z * 0.42),
                BELLY,
            ),
        ],
        // A torso above a pelvis.
        1 | 2 => vec![
            (
                Vec3::new(0.0, -s.y * 0.55, 0.0),
                Vec3::new(s.x * 0.8, s.y * 0.35, s.z * 0.8),
                BELLY,
            ),
            (
                Vec3::new(0.0, s.y * 0.2, 0.0),
                Vec3::new(s.x, s.y * 0.75, s.z),
                BODY,
            ),
        ],
        // A row of segments, one per pair of legs.
        _ => {
            let n = (legs / 2).max(1);
            (0..n)
                .map(|i| {
                    let t = (i as f32 + 0.5) / n as f32;
                    let z = s.z * (1.0 - 2.0 * t);
                    let col = if i % 2 == 0 { BODY } else { BELLY };
                    (
                        Vec3::new(0.0, 0.0, z),
                        Vec3::new(s.x, s.y, s.z / n as f32 * 1.25),
                        col,
                    )
                })
                .collect()
        }
    }
}

/// A joint at `at` (bind pose: a translation), no vertices yet.
fn bone(name: String, parent: Option<usize>, at: Vec3) -> Joint {
    Joint {
        name,
        parent,
        bind: Mat4::from_translation(at),
        inverse_bind: Mat4::from_translation(-at),
        children: Vec::new(),
        reach: 0.0,
        far: at,
    }
}

/// The head's shape on joint `h`: an ellipsoid of `size` at `at`, and two eyes.
fn head_shape(b: &mut Builder, at: Vec3, size: Vec3, h: usize) {
    let half = size * 0.5;
    b.ellipsoid(at, half, Quat::IDENTITY, HEAD, h, Part::Fine);
    for side in [-1.0f32, 1.0] {
        let eye = at + Vec3::new(side * half.x * 0.45, half.y * 0.35, half.z * 0.8);
        b.ellipsoid(
            eye,
            Vec3::splat(half.x.min(half.y) * 0.22),
            Quat::IDENTITY,
            EYE,
            h,
            Part::Coarse,
        );
    }
}

/// A limb's bones (one per segment, hung from the body) and its shape: tapering tubes,
/// a ball at each joint, a claw at the foot and an end marker there (an unweighted leaf:
/// where the chain ends, for a model exported and loaded back). `None` for a limb of
/// fewer than two points.
fn limb_chain(
    b: &mut Builder,
    joints: &mut Vec<Joint>,
    limb: &LimbSpec,
) -> Option<(LegChain, Option<usize>)> {
    let n = limb.points.len();
    if n < 2 {
        return None;
    }
    let mut bones = Vec::new();
    let mut parent = 0;
    for k in 0..n - 1 {
        joints.push(bone(
            format!("{}.{}", limb.name, k + 1),
            Some(parent),
            limb.points[k],
        ));
        parent = joints.len() - 1;
        bones.push(parent);
    }
    let r0 = limb.radius;
    for (k, bj) in bones.iter().enumerate() {
        let t = |i: usize| 1.0 - 0.55 * i as f32 / (n - 1) as f32;
        let (a, c) = (limb.points[k], limb.points[k + 1]);
        b.tube(a, c, r0 * t(k), r0 * t(k + 1), LEG, *bj);
        // A ball at the joint hides the crease as the bone turns.
        b.ellipsoid(
            a,
            Vec3::splat(r0 * t(k) * 1.15),
            Quat::IDENTITY,
            if k == 0 { LEG } else { KNEE },
            *bj,
            Part::Knuckle,
        );
    }
    let last = bones[bones.len() - 1];
    let foot = limb.points[n - 1];
    let ball = match limb.hand {
        HandShape::Knob | HandShape::Paw => Some((0.5, LEG)),
        HandShape::Fist => Some((1.3, KNEE)),
        HandShape::Claw => None,
    };
    let pad = (limb.hand == HandShape::Paw).then(|| {
        // On the body, not the leg: the poser places it whole, and a file exported and
        // loaded back finds the leg as it was and the pad following its end.
        joints.push(bone(format!("{}.pad", limb.name), Some(0), foot));
        let pad = joints.len() - 1;
        let length: f32 = limb.points.windows(2).map(|w| w[0].distance(w[1])).sum();
        let (long, wide, thick) = ((0.2 * length).max(4.0 * r0), 1.3 * r0, 0.45 * r0);
        // Its sole on the ground at the foot's end, its toes a little past it.
        b.ellipsoid(
            foot + Vec3::new(0.0, thick, -0.3 * long),
            Vec3::new(wide, thick, 0.5 * long),
            Quat::IDENTITY,
            KNEE,
            pad,
            Part::Coarse,
        );
        pad
    });
    match ball {
        Some((size, color)) => b.ellipsoid(
            foot,
            Vec3::splat(r0 * size),
            Quat::IDENTITY,
            color,
            last,
            if size < 1.0 {
                Part::Knuckle
            } else {
                Part::Coarse
            },
        ),
        None => claw(b, limb.points[n - 2], foot, r0, last),
    }
    joints.push(bone(format!("{}.end", limb.name), Some(last), foot));
    let chain = LegChain {
        name: limb.name.clone(),
        bones,
        tip: foot,
        follower: None,
    };
    Some((chain, pad))
}

/// A tail's or an antenna's bones (one a segment, on `parent`) and its tapered mesh: a
/// tube a segment with a ball at each joint, thinning from `radius` to a third of it.
fn swinging_chain(
    b: &mut Builder,
    joints: &mut Vec<Joint>,
    c: &ChainSpec,
    parent: usize,
) -> Option<super::SpringBones> {
    let n = c.points.len();
    if n < 2 {
        return None;
    }
    let mut bones = Vec::new();
    let radius = |k: usize| c.radius * (1.0 - 0.67 * k as f32 / (n - 1) as f32);
    for k in 0..n - 1 {
        let on = bones.last().copied().unwrap_or(parent);
        joints.push(bone(format!("{}{}", c.name, k + 1), Some(on), c.points[k]));
        let j = joints.len() - 1;
        bones.push(j);
        let (r0, r1) = (radius(k), radius(k + 1));
        b.tube(c.points[k], c.points[k + 1], r0, r1, BODY, j);
        b.ellipsoid(
            c.points[k + 1],
            Vec3::splat(r1),
            Quat::IDENTITY,
            BODY,
            j,
            Part::Knuckle,
        );
    }
    Some(super::SpringBones {
        name: joints[bones[0]].name.clone(),
        joints: bones,
        rest: c.points.clone(),
        on_head: c.on_head,
        params: c.params,
    })
}

/// A pincer at `end` of a segment from `from`: a palm swelling past the end, and two
/// fingers, thick at the palm and pointed, opening in a V in the plane of the segment and
/// the body's up (a crab's claw), as long as 0.6 of the segment (at least 4 limb radii).
fn claw(b: &mut Builder, from: Vec3, end: Vec3, r: f32, joint: usize) {
    let Some(dir) = (end - from).try_normalize() else {
        return;
    };
    let len = ((end - from).length() * 0.6).max(4.0 * r);
    let side = dir
        .cross(Vec3::Y)
        .try_normalize()
        .unwrap_or(dir.any_orthonormal_vector());
    let open = dir.cross(side);
    let palm = end + dir * (0.3 * len);
    let turn = Quat::from_rotation_arc(Vec3::Z, dir);
    b.ellipsoid(
        palm,
        Vec3::new(2.4 * r, 1.8 * r, 0.55 * len),
        turn,
        KNEE,
        joint,
        Part::Coarse,
    );
    for s in [1.0f32, -1.0] {
        let root = palm + dir * (0.35 * len) + open * (s * 0.6 * r);
        let tip = palm + dir * (1.1 * len) + open * (s * 0.3 * len);
        b.tube(root, tip, 1.3 * r, 0.2 * r, KNEE, joint);
    }
}

/// The body plan `spec` describes (its legs as given, standing as they are).
fn spec_plan(spec: &GenSpec) -> BodyPlan {
    BodyPlan {
        size: spec.size,
        height: spec.height,
        head: spec.head,
        legs: spec
            .limbs
            .iter()
            .filter(|l| !l.arm)
            .map(|l| BoundLeg {
                name: l.name.clone(),
                hip: l.points[0],
                rest: l.points[l.points.len() - 1],
                segments: l.points.windows(2).map(|w| w[0].distance(w[1])).collect(),
                knee: None,
            })
            .collect(),
        arms: Vec::new(),
        limb_radius: None,
        limb_radii: Vec::new(),
        recorded: false,
        hover: None,
    }
}

/// A generated body at one [`Detail`]: its mesh, its skeleton and what hangs on it.
struct Shape {
    b: Builder,
    joints: Vec<Joint>,
    head: Option<usize>,
    legs: Vec<LegChain>,
    arms: Vec<LegChain>,
    pads: Vec<(usize, usize)>,
    springs: Vec<super::SpringBones>,
}

/// Builds `spec`'s body at `detail` (the skeleton is the same at every detail).
fn shape(spec: &GenSpec, detail: Detail) -> Shape {
    let mut joints = vec![bone("body".into(), None, Vec3::ZERO)];
    let head = spec.head.map(|(at, _)| {
        joints.push(bone("head".into(), Some(0), at));
        joints.len() - 1
    });
    let mut legs = Vec::new();
    let mut arms = Vec::new();
    let mut b = Builder {
        detail,
        ..Builder::default()
    };
    let leg_count = spec.limbs.iter().filter(|l| !l.arm).count();
    for (part, half, color) in body_parts(spec, leg_count) {
        b.ellipsoid(part, half, Quat::IDENTITY, color, 0, Part::Fine);
    }
    if let (Some(h), Some((at, size))) = (head, spec.head) {
        head_shape(&mut b, at, size, h);
    }
    let mut pads = Vec::new();
    for limb in &spec.limbs {
        match limb_chain(&mut b, &mut joints, limb) {
            Some((chain, _)) if limb.arm => arms.push(chain),
            Some((chain, pad)) => {
                if let Some(p) = pad {
                    pads.push((legs.len(), p));
                }
                legs.push(chain);
            }
            None => {}
        }
    }
    let mut springs = Vec::new();
    for c in &spec.chains {
        let parent = if c.on_head { head.unwrap_or(0) } else { 0 };
        if let Some(s) = swinging_chain(&mut b, &mut joints, c, parent) {
            springs.push(s);
        }
    }
    for j in 0..joints.len() {
        if let Some(p) = joints[j].parent {
            joints[p].children.push(j);
        }
    }
    Shape {
        b,
        joints,
        head,
        legs,
        arms,
        pads,
        springs,
    }
}

/// The model generated for `spec`, with its coarser levels of detail.
pub fn generate(spec: &GenSpec) -> BoundModel {
    let Shape {
        b,
        joints,
        head,
        legs,
        arms,
        pads,
        springs,
    } = shape(spec, DETAILS[0]);
    let lods = DETAILS[1..]
        .iter()
        .map(|d| {
            let s = shape(spec, *d);
            super::ModelLod {
                primitives: vec![s.b.p],
                error: s.b.error,
            }
        })
        .collect();
    let bounds = b.p.positions.iter().fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(lo, hi), v| (lo.min(Vec3::from(*v)), hi.max(Vec3::from(*v))),
    );
    let model = Arc::new(Model {
        source: format!("{} (generated)", spec.name),
        joints,
        primitives: vec![b.p],
        materials: vec![Material {
            name: "generated".into(),
            base_color: [1.0; 4],
            texture: None,
        }],
        clips: Vec::new(),
        animations: Vec::new(),
        bounds,
        plan_record: None,
        repairs: Vec::new(),
        from_nodes: false,
        lods,
    });
    let binding = Binding {
        body: 0,
        head,
        legs,
        arms,
        fix: Mat4::IDENTITY,
    };
    let mut posed = Posed::new(&model, &binding);
    posed.set_springs(&model, &springs);
    posed.set_pads(&pads);
    BoundModel {
        model,
        binding,
        plan: spec_plan(spec),
        posed,
        idle: None,
        generated: true,
        springs,
        spine: Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A body with one two-segment arm reaching straight ahead (+Z) to (0.2, -0.1, 0.5).
    fn with_hand(hand: HandShape) -> BoundModel {
        generate(&GenSpec {
            name: "t/arm".into(),
            size: Vec3::new(0.4, 0.2, 0.4),
            height: 0.3,
            head: None,
            limbs: vec![LimbSpec {
                name: "A".into(),
                points: vec![
                    Vec3::new(0.1, 0.0, 0.1),
                    Vec3::new(0.2, -0.1, 0.3),
                    Vec3::new(0.2, -0.1, 0.5),
                ],
                radius: 0.02,
                arm: true,
                hand,
            }],
            chains: Vec::new(),
        })
    }

    /// The vertices skinned to the arm's last bone, as offsets from its end.
    fn at_the_end(m: &BoundModel) -> Vec<Vec3> {
        let last = m
            .model
            .joints
            .iter()
            .position(|j| j.name == "A.2")
            .expect("the arm's last bone") as u16;
        let end = Vec3::new(0.2, -0.1, 0.5);
        m.model
            .primitives
            .iter()
            .flat_map(|p| p.positions.iter().zip(&p.joints))
            .filter(|(_, j)| j[0] == last)
            .map(|(p, _)| Vec3::from_array(*p) - end)
            .collect()
    }

    #[test]
    fn a_claw_is_drawn_past_the_arms_end_open_in_a_v_and_a_fist_is_a_ball() {
        let reach = |m: &BoundModel| at_the_end(m).iter().map(|v| v.z).fold(f32::MIN, f32::max);
        let knob = reach(&with_hand(HandShape::Knob));
        let fist = reach(&with_hand(HandShape::Fist));
        let claw_model = with_hand(HandShape::Claw);
        let claw = reach(&claw_model);
        assert!(knob <= 0.011, "a plain end is a small knob: {knob}");
        // (A coarse ball's vertices reach 0.75 of its radius along an axis.)
        assert!(
            (0.017..=0.027).contains(&fist),
            "a fist is a ball of 1.3 radii: {fist}"
        );
        // Fingers 0.6 of the 0.2 m segment long, past a palm: well past the end.
        assert!(claw >= 0.15, "the claw reaches {claw} past the end");
        // Near their tips the two fingers are apart, one above and one below the arm's axis.
        let tips: Vec<Vec3> = at_the_end(&claw_model)
            .into_iter()
            .filter(|v| v.z > 0.12)
            .collect();
        assert!(tips.iter().any(|v| v.y > 0.02) && tips.iter().any(|v| v.y < -0.02));
        assert!(
            tips.iter().all(|v| v.x.abs() < 0.03),
            "open in the arm's vertical plane"
        );
    }

    #[test]
    fn coarser_levels_keep_the_skeleton_lose_triangles_and_stay_near_the_mesh() {
        let m = with_hand(HandShape::Claw);
        let tris = |p: &[Primitive]| p.iter().map(|p| p.indices.len() / 3).sum::<usize>();
        let full = tris(&m.model.primitives);
        assert_eq!(m.model.lods.len(), DETAILS.len() - 1);
        let (mut last, mut last_err) = (full, 0.0);
        for l in &m.model.lods {
            let n = tris(&l.primitives);
            assert!(n < last, "{n} triangles, not fewer than {last}");
            assert!(l.error >= last_err && l.error > 0.0);
            // On the same joints: a level is drawn with the model's matrices.
            assert!(l.primitives.iter().all(|p| p
                .joints
                .iter()
                .all(|j| (j[0] as usize) < m.model.joints.len())));
            // Every vertex within the level's error (plus the full mesh's own, under it) of
            // where the full mesh's surface could be: inside its bounds grown by the error.
            let (lo, hi) = m.model.bounds;
            let grow = Vec3::splat(l.error + 1e-5);
            assert!(l.primitives.iter().flat_map(|p| &p.positions).all(|v| {
                let v = Vec3::from(*v);
                v.cmpge(lo - grow).all() && v.cmple(hi + grow).all()
            }));
            (last, last_err) = (n, l.error);
        }
        // The body is 0.4 across: the coarsest level (a body of 3 rings and 5 sides) strays
        // by an eighth of that, no more.
        assert!(last_err < 0.05, "coarsest error {last_err}");
        assert!(
            last * 3 < full,
            "{last} of {full} triangles at the coarsest level"
        );
    }

    #[test]
    fn a_pole_row_has_no_triangles_without_area() {
        let m = with_hand(HandShape::Fist);
        let p = &m.model.primitives[0];
        let v = |i: u32| Vec3::from(p.positions[i as usize]);
        let flat = p
            .indices
            .chunks_exact(3)
            .filter(|t| (v(t[1]) - v(t[0])).cross(v(t[2]) - v(t[0])).length() < 1e-12)
            .count();
        assert_eq!(flat, 0, "{flat} triangles without area");
    }
}
