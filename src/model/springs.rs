//! Spring chains: the bones a binding leaves free that form chains — a tail, an abdomen,
//! antennae, ears, jaws, a neck past the head — found in any skeleton and swung on damped
//! springs (`math::spring_chain`) instead of riding along as a stick. A chain starts at a free
//! joint whose parent the creature drives (the body, what carries it, the spine to the head,
//! the head) and runs down its children that carry vertices; it ends at the last joint's
//! farthest vertex. Control joints (IK targets, pole joints hung off the armature's root,
//! anything with no vertex at or below it) are never chains, nor what hangs from a limb's
//! bones (toes, fingers: the limb's own), nor eyes (`model::eyes`). `model.springs` tunes chains by their first bone's name, or stops them.

use glam::{Affine3A, Quat, Vec3};

use super::{Binding, Model};
use crate::math::spring_chain::SpringParams;

/// Most points (joints and tip) one chain simulates.
const MAX_POINTS: usize = crate::math::spring_chain::MAX;

/// What a define's `model.springs` says.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SpringSpec {
    /// Settings for every chain (`model.springs.all`), before a chain's own.
    pub all: Option<SpringParams>,
    /// A chain's settings, by its first bone's name (or any bone in it).
    pub tune: Vec<(String, SpringParams)>,
    /// Chains not to swing (they ride along as before), by a bone in them.
    pub off: Vec<String>,
}

/// One spring chain of a bound model.
#[derive(Clone, Debug, PartialEq)]
pub struct SpringBones {
    /// Its first bone's name.
    pub name: String,
    /// Its joints, root first.
    pub joints: Vec<usize>,
    /// Its points in the bind pose, scene space: each joint's head, then its tip.
    pub rest: Vec<Vec3>,
    /// Whether it hangs under the head bone (it turns with the head).
    pub on_head: bool,
    /// How it moves.
    pub params: SpringParams,
}

/// The chains of `model` bound as `binding`, tuned by `spec`; an error names a bone in
/// `spec` that no chain holds.
pub fn find_springs(
    model: &Model,
    binding: &Binding,
    spec: &SpringSpec,
) -> Result<Vec<SpringBones>, String> {
    let n = model.joints.len();
    let (driven, limb) = driven_joints(model, binding);
    let below = carrying(model);
    let eyes = super::eyes::find_eyes(model, binding);
    let is_eye = |j: usize| {
        eyes.iter().any(|(e, _)| *e == j) || super::eyes::is_face_name(&model.joints[j].name)
    };
    let mut chains = Vec::new();
    for j in 0..n {
        let Some(p) = model.joints[j].parent else {
            continue;
        };
        // (An eye turns to what the creature looks at, and its lids go with it: see
        // `model::eyes`.)
        if driven[j] || !below[j] || !driven[p] || limb[p] || is_eye(j) {
            continue;
        }
        let chain = follow(model, j, &below);
        let on_head = binding.head.is_some_and(|h| {
            let mut at = Some(p);
            while let Some(k) = at {
                if k == h {
                    return true;
                }
                at = model.joints[k].parent;
            }
            false
        });
        let last = &model.joints[chain[chain.len() - 1]];
        let tip = if last.reach > 1e-6 {
            last.far
        } else {
            // Nothing weighted to reach along: half its parent's length on.
            let from = model.joints[last.parent.unwrap_or(p)].head();
            last.head() + (last.head() - from) * 0.5
        };
        let mut rest: Vec<Vec3> = chain.iter().map(|k| model.joints[*k].head()).collect();
        rest.push(tip);
        if rest.windows(2).any(|w| w[0].distance(w[1]) < 1e-6) {
            continue;
        }
        chains.push(SpringBones {
            name: model.joints[j].name.clone(),
            joints: chain,
            rest,
            on_head,
            params: spec.all.unwrap_or_default(),
        });
    }
    let holds =
        |c: &SpringBones, name: &str| c.joints.iter().any(|k| model.joints[*k].name == name);
    for name in spec.off.iter().chain(spec.tune.iter().map(|(n, _)| n)) {
        if !chains.iter().any(|c| holds(c, name)) {
            return Err(format!(
                "model.springs: no spring chain holds a bone \"{name}\" (its chains: {})",
                if chains.is_empty() {
                    "none".to_string()
                } else {
                    chains
                        .iter()
                        .map(|c| c.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ));
        }
    }
    for (name, params) in &spec.tune {
        for c in chains.iter_mut().filter(|c| holds(c, name)) {
            c.params = *params;
        }
    }
    chains.retain(|c| !spec.off.iter().any(|name| holds(c, name)));
    Ok(chains)
}

/// What the creature drives — the limbs, their followers, the head, and every joint that
/// carries one of them (the body's spine up to the head included) — and which of those are
/// limb bones (what hangs from them is the limb's own: toes, fingers, a weapon slot).
fn driven_joints(model: &Model, binding: &Binding) -> (Vec<bool>, Vec<bool>) {
    let n = model.joints.len();
    let mut driven = vec![false; n];
    let mark = |mut j: Option<usize>, driven: &mut Vec<bool>| {
        while let Some(k) = j {
            driven[k] = true;
            j = model.joints[k].parent;
        }
    };
    mark(Some(binding.body), &mut driven);
    mark(binding.head, &mut driven);
    let mut limb = vec![false; n];
    for c in binding.legs.iter().chain(&binding.arms) {
        for b in c.bones.iter().chain(&c.follower) {
            mark(Some(*b), &mut driven);
            limb[*b] = true;
        }
    }
    (driven, limb)
}

/// Joints that carry vertices or have such a joint below them.
fn carrying(model: &Model) -> Vec<bool> {
    let n = model.joints.len();
    let mut below = vec![false; n];
    for (_, j) in model.dominant_joints() {
        if j < n {
            below[j] = true;
        }
    }
    for j in (0..n).rev() {
        if below[j] {
            let mut p = model.joints[j].parent;
            while let Some(k) = p {
                if below[k] {
                    break;
                }
                below[k] = true;
                p = model.joints[k].parent;
            }
        }
    }
    below
}

/// The chain from `j` down: at each joint, on to the child with the most vertex-carrying
/// joints below it (the others ride along on it).
fn follow(model: &Model, j: usize, below: &[bool]) -> Vec<usize> {
    let weight = |k: usize| -> usize {
        let mut count = 0;
        let mut stack = vec![k];
        while let Some(x) = stack.pop() {
            count += usize::from(below[x]);
            stack.extend(model.joints[x].children.iter().copied());
        }
        count
    };
    let mut chain = vec![j];
    let mut at = j;
    while chain.len() + 1 < MAX_POINTS {
        let next = model.joints[at]
            .children
            .iter()
            .copied()
            .filter(|c| below[*c])
            .max_by_key(|c| (weight(*c), std::cmp::Reverse(*c)));
        match next {
            Some(c) => {
                chain.push(c);
                at = c;
            }
            None => break,
        }
    }
    chain
}

/// Where a chain's points would be on a rigid body: `body` the body's frame in the world
/// times the binding's fix (scene space to the world), `head` the head's turn relative to
/// the body about its bone's head (scene space), for chains on the head. Added to `out`.
pub fn rest_points(
    chain: &SpringBones,
    body: &Affine3A,
    head: Option<(Vec3, Quat)>,
    out: &mut Vec<Vec3>,
) {
    let turn = head.filter(|_| chain.on_head).map(|(pivot, q)| {
        let pivot = body.transform_point3(pivot);
        (pivot, q)
    });
    for p in &chain.rest {
        let w = body.transform_point3(*p);
        out.push(match turn {
            Some((pivot, q)) => pivot + q * (w - pivot),
            None => w,
        });
    }
}
