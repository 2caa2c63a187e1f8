//! A skeleton's body plan: which bone is the body and the head, which chains are legs and
//! arms (given by name in `model.bind`, or found: chains that hang from a branch of the
//! skeleton and end in a free tip, the legs' tips on the ground), and the creature-space
//! figures the locomotion definition needs (hips, segment lengths, rest spots, ride height,
//! body and head size), all from the bind pose.

use glam::{Mat4, Quat, Vec3};

use super::bind_error::{BindError, ChainError, LegsError, NoLegs, NoSuchBone};
use super::sides::{name_arms, name_legs, side_of, words};
use super::Model;
use super::{flyer, plan};

/// What a define's `model.bind` names (everything optional: what is absent is found).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BindSpec {
    /// The body bone.
    pub body: Option<String>,
    /// The head bone.
    pub head: Option<String>,
    /// Legs: name, bones root to tip.
    pub legs: Vec<(String, Vec<String>)>,
    /// Arms: name, bones shoulder to hand.
    pub arms: Vec<(String, Vec<String>)>,
    /// Scale applied to the file's scene (1: metres as written).
    pub scale: f32,
    /// The height to fit the model to (m, its bind pose's lowest to highest point, turned
    /// as `rotation` turns it), instead of `scale`.
    pub height: Option<f32>,
    /// Rotation applied to the file's scene (pitch, yaw, roll degrees), for a model that
    /// faces the wrong way or stands on its side. `None`: faced forward (+Z) by the head.
    pub rotation: Option<Vec3>,
    /// `Some(true)`: the type hovers (its define gives `body.hover`): the legs found hang
    /// from the body as arms do, and none walks. `Some(false)`: it walks (its define gives
    /// legs). `None`: a flyer when its legs dangle.
    pub fly: Option<bool>,
    /// `model.springs`: its spring chains tuned or stopped.
    #[serde(default)]
    pub springs: super::SpringSpec,
    /// `model.spine`: the lean's spread along the spine, or none.
    #[serde(default)]
    pub spine: super::SpineSpec,
}

/// A leg or an arm bound to its bones.
#[derive(Clone, Debug, PartialEq)]
pub struct LegChain {
    /// Its name in the creature (`L1`, `R2`; `bind.legs`' keys).
    pub name: String,
    /// Its bones, root to tip (joint indices).
    pub bones: Vec<usize>,
    /// The chain's end in the bind pose, scene space.
    pub tip: Vec3,
    /// A joint that carries the tip's vertices but hangs elsewhere (an IK foot joint off the
    /// armature's root): posed at the chain's end.
    pub follower: Option<usize>,
}

/// A model's skeleton bound to a creature.
#[derive(Clone, Debug, PartialEq)]
pub struct Binding {
    /// The body bone.
    pub body: usize,
    /// The head bone.
    pub head: Option<usize>,
    /// Legs, in the creature's leg order.
    pub legs: Vec<LegChain>,
    /// Arms.
    pub arms: Vec<LegChain>,
    /// Scene space to the creature's body space (scale, rotation, the body's centre at the
    /// origin).
    pub fix: Mat4,
}

/// One leg as the locomotion definition wants it, body space.
#[derive(Clone, Debug, PartialEq)]
pub struct BoundLeg {
    /// Name.
    pub name: String,
    /// Hip.
    pub hip: Vec3,
    /// Rest spot on the ground plane.
    pub rest: Vec3,
    /// Segment lengths, hip to tip.
    pub segments: Vec<f32>,
    /// Knee (pole) direction (`None`: the definition's default from the rest spot).
    pub knee: Option<Vec3>,
}

/// The body plan found in (or bound to) a skeleton, body space.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyPlan {
    /// Body full extents (from the vertices of no limb).
    pub size: Vec3,
    /// Ride height: the body's centre over the ground its feet stand on.
    pub height: f32,
    /// Head centre and size, when there is a head bone.
    pub head: Option<(Vec3, Vec3)>,
    /// Legs.
    pub legs: Vec<BoundLeg>,
    /// Arms: name, shoulder, segment lengths.
    pub arms: Vec<(String, Vec3, Vec<f32>)>,
    /// How thick the legs are (m): the median distance of the leg bones' vertices from
    /// their bones' axes (the ragdoll's limb capsules).
    pub limb_radius: Option<f32>,
    /// Each leg bone's own thickness (leg by leg, bone by bone; empty when a leg's bones do
    /// not map one to one onto its segments).
    pub limb_radii: Vec<Vec<f32>>,
    /// Taken from the plan the file records (see [`super::record`]), not found in the bones.
    pub recorded: bool,
    /// A flyer's hover height (the body's centre over the ground, m): its legs dangle (they
    /// hang as arms, in [`BodyPlan::arms`], named as legs are) and `legs` is empty.
    pub hover: Option<f32>,
}

impl Model {
    /// The joint named `name`, or an error that says so and names the nearest bone.
    pub(crate) fn bone(&self, name: &str, field: &str) -> Result<usize, NoSuchBone> {
        self.joint(name).ok_or_else(|| {
            let near = self
                .joints
                .iter()
                .map(|j| {
                    (
                        strsim::levenshtein(&name.to_lowercase(), &j.name.to_lowercase()),
                        &j.name,
                    )
                })
                .min()
                .filter(|(d, _)| *d <= 3.max(name.len() / 3))
                .map(|(_, n)| n.clone());
            NoSuchBone {
                field: field.to_string(),
                name: name.to_string(),
                near,
            }
        })
    }

    /// Whether `j` hangs (at any depth) from `from`.
    pub(super) fn below(&self, mut j: usize, from: usize) -> bool {
        while let Some(p) = self.joints[j].parent {
            if p == from {
                return true;
            }
            j = p;
        }
        false
    }

    /// The end of a chain whose last bone is `last`: the farthest point of its vertices,
    /// else its head pushed on by its parent's length.
    fn chain_end(&self, last: usize) -> Vec3 {
        let j = &self.joints[last];
        // A chain that forks into claws ends where they do, between them.
        if self.forks_into_claws(last) {
            let ends: Vec<Vec3> = j.children.iter().map(|c| self.chain_end(*c)).collect();
            return ends.iter().copied().sum::<Vec3>() / ends.len() as f32;
        }
        // An end marker (an unweighted leaf below it, Blender's `_end` bones, skitter's
        // `.end`) says where the chain ends.
        if let [m] = j.children[..] {
            if self.is_end_marker(m) {
                return self.joints[m].head();
            }
        }
        if j.reach > 1e-4 {
            return j.far;
        }
        match j.parent {
            Some(p) => {
                let a = self.joints[p].head();
                j.head() + (j.head() - a) * 0.5
            }
            None => j.head(),
        }
    }

    /// Whether joint `m` only marks where its parent ends: a leaf with no vertices of its
    /// own, the only child of a bone that has some.
    fn is_end_marker(&self, m: usize) -> bool {
        let j = &self.joints[m];
        j.children.is_empty()
            && j.reach == 0.0
            && j.parent
                .is_some_and(|p| self.joints[p].children.len() == 1 && self.joints[p].reach > 0.0)
    }

    /// Legs that lie flat or dangle (no tip near the ground): chains of two or more bones
    /// off a branch, ending in weighted tips well out to the side (a quarter of the model's
    /// width or of the chain's length, whichever is less), that come in mirrored pairs
    /// (the other's tip at the opposite side within a tenth of the chain's length, the
    /// chains' lengths alike) — not below a head, neck, jaw, antenna, ear, tail or wing
    /// (mirrored too, but no legs).
    fn mirrored_limbs(&self, chains: &[(Vec<usize>, Option<usize>)]) -> Vec<LegChain> {
        let min_bones = if self.from_nodes { 1 } else { 2 };
        let (lo, hi) = self.bounds;
        let mid = 0.5 * (lo.x + hi.x);
        let wide = (hi.x - lo.x).max(1e-3);
        let named = |j: usize| self.not_a_limb(j);
        let length = |bones: &[usize], tip: Vec3| {
            let mut pts: Vec<Vec3> = bones.iter().map(|b| self.joints[*b].head()).collect();
            pts.push(tip);
            pts.windows(2).map(|w| w[0].distance(w[1])).sum::<f32>()
        };
        let cands: Vec<(Vec<usize>, Vec3, f32)> = chains
            .iter()
            .filter(|(b, br)| b.len() >= min_bones && br.is_some())
            .filter(|(b, _)| self.joints[b[b.len() - 1]].reach > 0.0 && !named(b[b.len() - 1]))
            .map(|(b, _)| {
                let tip = self.chain_end(b[b.len() - 1]);
                (b.clone(), tip, length(b, tip))
            })
            .filter(|(_, tip, len)| (tip.x - mid).abs() > 0.25 * wide.min(*len))
            .collect();
        let mirrored = |i: usize| {
            let (_, a, la) = &cands[i];
            cands.iter().enumerate().any(|(k, (_, b, lb))| {
                let tol = 0.1 * la.max(*lb);
                k != i
                    && ((a.x - mid) + (b.x - mid)).abs() < tol
                    && (a.y - b.y).abs() < tol
                    && (a.z - b.z).abs() < tol
                    && (la - lb).abs() < tol
            })
        };
        (0..cands.len())
            .filter(|i| mirrored(*i))
            .map(|i| LegChain {
                name: String::new(),
                bones: cands[i].0.clone(),
                tip: cands[i].1,
                follower: None,
            })
            .collect()
    }

    /// Whether joint `j` is, or hangs (at any depth) below, a bone named as no leg or arm
    /// is: a word of its name (see [`words`]) begins head, neck, jaw, antenna, ear, tail,
    /// wing, mandible, eye, abdomen or sting (mirrored chains off the ground, a tail or an
    /// abdomen on it, that are no limbs; `RearLeft` is no ear).
    pub(super) fn not_a_limb(&self, j: usize) -> bool {
        const NOT_LIMBS: [&str; 11] = [
            "head", "neck", "jaw", "antenna", "ear", "tail", "wing", "mandible", "eye", "abdomen",
            "sting",
        ];
        let mut at = Some(j);
        while let Some(k) = at {
            let named = words(&self.joints[k].name)
                .iter()
                .any(|w| NOT_LIMBS.iter().any(|n| w.starts_with(n)));
            if named {
                return true;
            }
            at = self.joints[k].parent;
        }
        false
    }

    /// Whether joint `j` ends its chain where it forks into claws: two or more children,
    /// every one a leaf (a claw, a toe) shorter than the bone that leads to `j`, and `j`
    /// the only child of its parent (the end of a chain, not a body with short limbs).
    fn forks_into_claws(&self, j: usize) -> bool {
        let jj = &self.joints[j];
        let Some(p) = jj.parent else { return false };
        let bone = self.joints[p].head().distance(jj.head());
        let short = |k: usize| {
            let c = &self.joints[k];
            c.children.is_empty() && (c.head().distance(jj.head()) + c.reach) < 0.8 * bone
        };
        jj.children.len() >= 2
            && self.joints[p].children.len() == 1
            && jj.children.iter().all(|k| short(*k))
    }

    /// Chains that end in a free tip (a joint with no children, or a bone ended by an end
    /// marker), from the joint below the nearest branch up to the tip, with that branch:
    /// `(bones, branch)`.
    pub(super) fn free_chains(&self) -> Vec<(Vec<usize>, Option<usize>)> {
        let mut out = Vec::new();
        for (i, j) in self.joints.iter().enumerate() {
            // A claw of a fork is no chain: the fork ends its chain (below).
            let claw = j.parent.is_some_and(|p| self.forks_into_claws(p));
            if (!j.children.is_empty() && !self.forks_into_claws(i)) || claw {
                continue;
            }
            let i = match j.parent {
                Some(p) if self.is_end_marker(i) => p,
                _ => i,
            };
            let mut bones = vec![i];
            let mut at = i;
            let branch = loop {
                match self.joints[at].parent {
                    Some(p) if self.joints[p].children.len() == 1 => {
                        bones.push(p);
                        at = p;
                    }
                    other => break other,
                }
            };
            bones.reverse();
            out.push((bones, branch));
        }
        out
    }
}

/// How tall a model whose bind-pose bounds are `(lo, hi)` stands turned by `rot`: its
/// bounding box's corners' spread in height.
fn upright_height((lo, hi): (Vec3, Vec3), rot: Quat) -> f32 {
    let ys = (0..8).map(|i| {
        let c = Vec3::new(
            if i & 1 == 0 { lo.x } else { hi.x },
            if i & 2 == 0 { lo.y } else { hi.y },
            if i & 4 == 0 { lo.z } else { hi.z },
        );
        (rot * c).y
    });
    let (mut a, mut b) = (f32::INFINITY, f32::NEG_INFINITY);
    for y in ys {
        a = a.min(y);
        b = b.max(y);
    }
    b - a
}

/// Limbs named in `model.bind.legs` or `.arms` (`what`), bound to their bones: each a
/// chain of bones hanging one from the next.
fn given_chains(
    model: &Model,
    list: &[(String, Vec<String>)],
    what: &'static str,
) -> Result<Vec<LegChain>, ChainError> {
    list.iter()
        .map(|(name, bones)| {
            if bones.is_empty() {
                return Err(ChainError::Empty {
                    what,
                    name: name.clone(),
                });
            }
            let bones = bones
                .iter()
                .map(|b| model.bone(b, &format!("model.bind.{what}.{name}")))
                .collect::<Result<Vec<_>, _>>()?;
            for w in bones.windows(2) {
                if model.joints[w[1]].parent != Some(w[0]) {
                    return Err(ChainError::Broken {
                        what,
                        name: name.clone(),
                        parent: model.joints[w[0]].name.clone(),
                        child: model.joints[w[1]].name.clone(),
                    });
                }
            }
            let last = bones[bones.len() - 1];
            Ok(LegChain {
                name: name.clone(),
                tip: model.chain_end(last),
                bones,
                follower: None,
            })
        })
        .collect()
}

/// The legs: named in `model.bind.legs`, else found among `chains` — those that end on the
/// ground (within 12 % of the model's height of its lowest point), those whose tip's
/// vertices hang on a loose joint that reaches the ground (it follows the chain's end), and
/// when none end on the ground the chains that mirror each other (legs lying flat: the
/// second value is then true).
fn find_legs(
    model: &Model,
    spec: &BindSpec,
    chains: &[(Vec<usize>, Option<usize>)],
) -> Result<(Vec<LegChain>, bool), LegsError> {
    let mut legs = given_chains(model, &spec.legs, "legs")?;
    let (lo, hi) = model.bounds;
    let tall = (hi.y - lo.y).max(1e-3);
    let near_ground = |p: Vec3| p.y - lo.y <= 0.12 * tall;
    // A model without a skin has rigid limbs: a leg may be one node (a block from hip to
    // foot).
    let min_bones = if model.from_nodes { 1 } else { 2 };
    if spec.legs.is_empty() {
        for (bones, _) in chains
            .iter()
            .filter(|(b, br)| b.len() >= min_bones && br.is_some())
        {
            let last = bones[bones.len() - 1];
            let tip = model.chain_end(last);
            if near_ground(tip) && model.joints[last].reach > 0.0 && !model.not_a_limb(last) {
                legs.push(LegChain {
                    name: String::new(),
                    bones: bones.clone(),
                    tip,
                    follower: None,
                });
            }
        }
    }
    // Tips whose vertices hang on a joint elsewhere (off the root, not below any chain):
    // that joint follows the chain's end and its vertices are the tip.
    let in_chain = |j: usize, ls: &[LegChain]| ls.iter().any(|l| l.bones.contains(&j));
    if spec.legs.is_empty() {
        attach_pads(model, &mut legs, &near_ground);
    }
    if spec.legs.is_empty() {
        // Any free chain, a parentless joint too (IK feet exported at the armature's root).
        let loose = chains;
        // Chains whose tip is high but that end near a loose, weighted joint whose own
        // vertices reach the ground: the leg of a rig with separate foot joints.
        for (bones, _) in chains.iter().filter(|(b, br)| b.len() >= 2 && br.is_some()) {
            let last = bones[bones.len() - 1];
            if in_chain(last, &legs) {
                continue;
            }
            let end = model.joints[last].head();
            let length = bones_length(model, bones).max(1e-3);
            let foot = loose
                .iter()
                .flat_map(|(b, _)| b.iter().copied())
                .filter(|f| {
                    let jf = &model.joints[*f];
                    jf.reach > 0.0
                        && near_ground(jf.far)
                        && !bones.contains(f)
                        && !model.below(*f, bones[0])
                        && !in_chain(*f, &legs)
                })
                .min_by(|a, b| {
                    let d = |j: &usize| model.joints[*j].head().distance(end);
                    d(a).total_cmp(&d(b))
                })
                .filter(|f| model.joints[*f].head().distance(end) < 0.6 * length);
            if let Some(f) = foot {
                legs.push(LegChain {
                    name: String::new(),
                    bones: bones.clone(),
                    tip: model.joints[f].far,
                    follower: Some(f),
                });
            }
        }
    }
    // None on the ground: legs lying flat (a robot beetle's), found as mirrored chains.
    let flat = spec.legs.is_empty() && legs.is_empty();
    if flat {
        legs = model.mirrored_limbs(chains);
    }
    if legs.is_empty() {
        return Err(NoLegs {
            bones: model.joints.iter().map(|j| j.name.clone()).collect(),
        }
        .into());
    }
    Ok((legs, flat))
}

/// The length of a chain of bones, joint head to joint head.
fn bones_length(model: &Model, bones: &[usize]) -> f32 {
    bones
        .windows(2)
        .map(|w| {
            model.joints[w[0]]
                .head()
                .distance(model.joints[w[1]].head())
        })
        .sum()
}

/// A leg found on the ground whose end has a foot on a joint of its own beside it — a
/// weighted leaf on the ground, hung off the body rather than the leg, within a tenth of
/// the leg's length of its end (a pad `skitter export` writes for a generated creature's
/// foot) — takes that joint as its follower: it rides on the leg's end.
fn attach_pads(model: &Model, legs: &mut [LegChain], near_ground: &dyn Fn(Vec3) -> bool) {
    let in_leg = |j: usize, legs: &[LegChain]| {
        legs.iter()
            .any(|l| l.bones.contains(&j) || l.follower == Some(j))
    };
    for k in 0..legs.len() {
        if legs[k].follower.is_some() {
            continue;
        }
        let bones = &legs[k].bones;
        let length = bones_length(model, bones)
            + model.joints[bones[bones.len() - 1]]
                .head()
                .distance(legs[k].tip);
        let tip = legs[k].tip;
        let pad = (0..model.joints.len())
            .filter(|j| {
                let jj = &model.joints[*j];
                jj.children.is_empty()
                    && jj.reach > 0.0
                    && near_ground(jj.far)
                    && !in_leg(*j, legs)
                    && !jj.parent.is_some_and(|p| in_leg(p, legs))
                    && !model.below(*j, bones[0])
                    && jj.head().distance(tip) < 0.1 * length
            })
            .min_by(|a, b| {
                let d = |j: &usize| model.joints[*j].head().distance(tip);
                d(a).total_cmp(&d(b))
            });
        legs[k].follower = pad;
    }
}

/// The body bone: named in `model.bind.body`, else the deepest joint every leg hangs
/// from.
fn find_body(model: &Model, spec: &BindSpec, legs: &[LegChain]) -> Result<usize, NoSuchBone> {
    Ok(match &spec.body {
        Some(b) => model.bone(b, "model.bind.body")?,
        None => {
            let firsts: Vec<usize> = legs.iter().map(|l| l.bones[0]).collect();
            let mut cand = model.joints[firsts[0]].parent;
            loop {
                match cand {
                    Some(c) if firsts.iter().all(|f| model.below(*f, c)) => break c,
                    Some(c) => cand = model.joints[c].parent,
                    None => break firsts[0],
                }
            }
        }
    })
}

/// The arms found among `chains`: mirrored chains of three or more bones under the body
/// (side words in their names), tips off the ground, no leg's and not below a head, ear,
/// tail….
fn found_arms(
    model: &Model,
    chains: &[(Vec<usize>, Option<usize>)],
    body: usize,
    legs: &[LegChain],
) -> Vec<LegChain> {
    let (lo, hi) = model.bounds;
    let near_ground = |p: Vec3| p.y - lo.y <= 0.12 * (hi.y - lo.y).max(1e-3);
    let in_chain = |j: usize| legs.iter().any(|l| l.bones.contains(&j));
    let mut arms = Vec::new();
    for (bones, br) in chains {
        let last = bones[bones.len() - 1];
        let tip = model.chain_end(last);
        if bones.len() >= 3
            && br.is_some()
            && model.below(bones[0], body)
            && !model.not_a_limb(last)
            && !near_ground(tip)
            && side_of(&model.joints[bones[0]].name).0.is_some()
            && !in_chain(last)
            && !legs
                .iter()
                .any(|l| l.follower.is_some_and(|f| bones.contains(&f)))
        {
            arms.push(LegChain {
                name: String::new(),
                bones: bones.clone(),
                tip,
                follower: None,
            });
        }
    }
    arms
}

/// Scene space to the creature's body space: the scale (or the fitted height), the
/// facing (given, else turned round when the head lies behind the hips), then the hips'
/// centre at the origin.
fn body_space(model: &Model, spec: &BindSpec, legs: &[LegChain], head: Option<usize>) -> Mat4 {
    let (lo, hi) = model.bounds;
    let tall = (hi.y - lo.y).max(1e-3);
    let hips: Vec<Vec3> = legs
        .iter()
        .map(|l| model.joints[l.bones[0]].head())
        .collect();
    let centre = hips.iter().copied().sum::<Vec3>() / hips.len() as f32;
    let rot = match spec.rotation {
        Some(r) => {
            Quat::from_rotation_y(r.y.to_radians())
                * Quat::from_rotation_x(r.x.to_radians())
                * Quat::from_rotation_z(r.z.to_radians())
        }
        // A head behind the hips: the model faces -Z; turn it round.
        None => match head {
            Some(h) if model.joints[h].far.z < centre.z - 0.05 * tall => {
                Quat::from_rotation_y(std::f32::consts::PI)
            }
            _ => Quat::IDENTITY,
        },
    };
    let scale = match spec.height {
        Some(h) => h / upright_height(model.bounds, rot).max(1e-6),
        None if spec.scale > 0.0 => spec.scale,
        None => 1.0,
    };
    let fix = Mat4::from_scale_rotation_translation(Vec3::splat(scale), rot, Vec3::ZERO);
    Mat4::from_translation(-fix.transform_point3(centre)) * fix
}

/// Binds `model` to a creature as `spec` says, finding what it does not say.
pub fn bind(model: &Model, spec: &BindSpec) -> Result<(Binding, BodyPlan), BindError> {
    let chains = model.free_chains();
    let (mut legs, flat) = find_legs(model, spec, &chains)?;
    let mut arms = given_chains(model, &spec.arms, "arms")?;
    let body = find_body(model, spec, &legs)?;
    if spec.arms.is_empty() {
        arms = found_arms(model, &chains, body, &legs);
    }
    let head = match &spec.head {
        Some(h) => Some(model.bone(h, "model.bind.head")?),
        None => model
            .joints
            .iter()
            .position(|j| j.name.to_lowercase().contains("head") && j.reach > 0.0),
    };
    let fix = body_space(model, spec, &legs, head);
    let scale = fix.x_axis.truncate().length();
    let at = |p: Vec3| fix.transform_point3(p);
    let fly = spec
        .fly
        .unwrap_or_else(|| spec.legs.is_empty() && flyer::dangles(model, &legs, flat, body, &at));
    if fly {
        return Ok(flyer::flying(model, legs, arms, body, head, fix));
    }
    let ground = legs
        .iter()
        .map(|l| at(l.tip).y)
        .fold(f32::INFINITY, f32::min);
    // Flat legs give no height of their own: `stand` finds one.
    let height = if flat { 0.0 } else { -ground };
    if height <= 0.01 && !flat {
        return Err(BindError::UpsideDown);
    }
    if spec.legs.is_empty() {
        name_legs(model, &mut legs, &at);
    }
    if spec.arms.is_empty() {
        name_arms(model, &mut arms, &at);
    }
    let mut bound_legs: Vec<BoundLeg> = legs
        .iter()
        .map(|l| plan::bound_leg(model, l, fix, height))
        .collect();
    let height = plan::stand(&mut bound_legs, height);
    let (size, head_plan) = plan::sizes(model, &legs, &arms, head, fix);
    let (limb_radius, limb_radii) = plan::thickness(model, &legs, &bound_legs, scale);
    let arm_plans = plan::arms(model, &arms, fix);
    let mut plan = BodyPlan {
        size,
        height,
        head: head_plan,
        legs: bound_legs,
        arms: arm_plans,
        limb_radius,
        limb_radii,
        recorded: false,
        hover: None,
    };
    // A plan the file records (a type exported by skitter) holds while the bones agree.
    if let Some(rec) = model
        .plan_record
        .as_ref()
        .filter(|_| spec.legs.is_empty() && spec.arms.is_empty())
    {
        if let Some((l, a, p)) = rec.apply(model, &legs, &arms, fix, &plan) {
            (legs, arms, plan) = (l, a, p);
        }
    }
    Ok((
        Binding {
            body,
            head,
            legs,
            arms,
            fix,
        },
        plan,
    ))
}

#[cfg(test)]
#[path = "bind_tests.rs"]
mod tests;
