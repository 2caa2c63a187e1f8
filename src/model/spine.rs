//! The spine: the joints from a model's body bone (the pelvis) up to its head bone. Where
//! every leg hangs from the pelvis (a biped), the body's lean is spread along it with
//! weights that fall from the head down (seed 002 §5.4: head ~30 %, neck ~25 %, upper spine
//! ~20 %, mid ~15 %, pelvis ~10 % — "never even, or the spine becomes a rubber hose"): the
//! pelvis takes its share, each joint above adds its own, and the head ends with the whole
//! lean. Where legs hang from the torso above the pelvis (a quadruped's shoulders) the torso
//! between them is one rigid piece, and a head straight on the body (a spider's) is no
//! spine: nothing is spread. It is drawing only: the sim's body, hips and feet are the same
//! with a model as without; the poser hangs the legs and arms from the joints as drawn.

use super::{Binding, Model};

/// What a define's `model.spine` says.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SpineSpec {
    /// `model.spine = false`: the lean stays whole on the body bone, as a plank.
    pub off: bool,
    /// The share of the lean each spine joint takes, pelvis first (normalised to sum to 1).
    pub weights: Option<Vec<f32>>,
}

/// A bound model's spine and each joint's share of the lean, pelvis first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Spine {
    /// Its joints, the body bone first, the head last.
    pub joints: Vec<usize>,
    /// Each joint's share of the lean (they sum to 1).
    pub weights: Vec<f32>,
}

/// The default shares for a spine of `n` joints: the seed's profile (10 % at the pelvis
/// rising evenly to 30 % at the head, for five joints exactly its figures) resampled to `n`
/// joints and normalised.
pub fn default_weights(n: usize) -> Vec<f32> {
    if n == 0 {
        return Vec::new();
    }
    if n == 1 {
        return vec![1.0];
    }
    let raw: Vec<f32> = (0..n)
        .map(|i| 10.0 + 20.0 * i as f32 / (n - 1) as f32)
        .collect();
    let sum: f32 = raw.iter().sum();
    raw.iter().map(|w| w / sum).collect()
}

/// The spine of `model` as `binding` binds it, with `spec`'s weights: empty when it has no
/// head bone below its body bone with a joint between them, when a leg hangs from a joint
/// above the pelvis, or when the spec turns it off. A weight list of the wrong length, or
/// one that is not made of numbers ≥ 0 with a sum > 0, is an error naming the spine's joints.
pub fn find_spine(model: &Model, binding: &Binding, spec: &SpineSpec) -> Result<Spine, String> {
    let Some(head) = binding.head else {
        return Ok(Spine::default());
    };
    let Some(mut joints) = way_up(model, head, binding.body) else {
        return Ok(Spine::default());
    };
    joints.reverse();
    // A head straight on the body (a spider's, a generated creature's) is no spine; a leg on
    // the torso above the pelvis makes the torso rigid between its legs.
    if joints.len() < 3 || spec.off || legs_hang_from(model, binding, &joints[1..]) {
        return Ok(Spine::default());
    }
    let names = || {
        joints
            .iter()
            .map(|j| model.joints[*j].name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let weights = match &spec.weights {
        None => default_weights(joints.len()),
        Some(w) if w.len() != joints.len() => {
            return Err(format!(
                "model.spine.weights: {} weights for a spine of {} joints ({}), pelvis first",
                w.len(),
                joints.len(),
                names()
            ))
        }
        Some(w) => {
            let sum: f32 = w.iter().sum();
            if w.iter().any(|x| !(x.is_finite() && *x >= 0.0)) || !(sum > 0.0) {
                return Err(format!(
                    "model.spine.weights: must be numbers >= 0 with a sum > 0, one for each of {}",
                    names()
                ));
            }
            w.iter().map(|x| x / sum).collect()
        }
    };
    Ok(Spine { joints, weights })
}

/// The joints from `from` up to `body`, both included, `from` first; `None` when `body` is
/// not above it.
pub(crate) fn way_up(model: &Model, from: usize, body: usize) -> Option<Vec<usize>> {
    let mut joints = vec![from];
    let mut at = from;
    while at != body {
        at = model.joints[at].parent?;
        joints.push(at);
    }
    Some(joints)
}

/// Whether a leg of `binding` hangs from one of `joints` (anywhere on its way up to the body
/// bone).
pub(crate) fn legs_hang_from(model: &Model, binding: &Binding, joints: &[usize]) -> bool {
    binding.legs.iter().any(|leg| {
        let mut j = leg.bones.first().and_then(|b| model.joints[*b].parent);
        while let Some(p) = j.filter(|p| *p != binding.body) {
            if joints.contains(&p) {
                return true;
            }
            j = model.joints[p].parent;
        }
        false
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_weights_fall_from_the_head_and_match_the_seed_for_five() {
        let five = default_weights(5);
        for (w, want) in five.iter().zip([0.10, 0.15, 0.20, 0.25, 0.30]) {
            assert!((w - want).abs() < 1e-6, "{five:?}");
        }
        for n in 2..8 {
            let w = default_weights(n);
            assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-5);
            assert!(
                w.windows(2).all(|p| p[1] > p[0]),
                "rising to the head: {w:?}"
            );
        }
        assert_eq!(default_weights(1), [1.0]);
    }
}
