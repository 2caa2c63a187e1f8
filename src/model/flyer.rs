//! Flyers: legs that dangle (a wasp, a bee) make a hovering type whose legs hang as arms.

use glam::{Mat4, Vec3};

use super::bind::{Binding, BodyPlan, LegChain};
use super::plan;
use super::sides::{name_arms, name_legs};
use super::Model;

/// Whether `legs` dangle from a flyer (a wasp, a bee): none reaches the ground (`flat`:
/// they were found as mirrored chains) and each hangs, its tip below its hip by more than
/// half its reach; or the body has wings (joints named so) and four or more legs that each
/// hang almost straight down (a standing walker splays its legs; a bird has two).
pub(super) fn dangles(
    model: &Model,
    legs: &[LegChain],
    flat: bool,
    body: usize,
    at: &dyn Fn(Vec3) -> Vec3,
) -> bool {
    let hangs = |share: f32| {
        legs.iter().all(|l| {
            let (hip, tip) = (at(model.joints[l.bones[0]].head()), at(l.tip));
            hip.y - tip.y > share * hip.distance(tip)
        })
    };
    let winged = || {
        model.joints.iter().enumerate().any(|(j, jt)| {
            jt.name.to_lowercase().contains("wing") && (j == body || model.below(j, body))
        })
    };
    !legs.is_empty() && ((flat && hangs(0.5)) || (legs.len() >= 4 && winged() && hangs(0.85)))
}

/// A flyer's binding and plan: its legs hang as arms do (named as legs: `L1`, `R1` …,
/// front to back), after the arms found; it hovers with its lowest point (a dangling
/// tip, an abdomen) a quarter of its depth below the hips clear of the ground.
pub(super) fn flying(
    model: &Model,
    mut legs: Vec<LegChain>,
    mut arms: Vec<LegChain>,
    body: usize,
    head: Option<usize>,
    fix: Mat4,
) -> (Binding, BodyPlan) {
    let at = |p: Vec3| fix.transform_point3(p);
    name_legs(model, &mut legs, &at);
    name_arms(model, &mut arms, &at);
    arms.extend(legs);
    let (lo, hi) = model.bounds;
    let lowest = (0..8)
        .map(|k| {
            let c = Vec3::new(
                if k & 1 == 0 { lo.x } else { hi.x },
                if k & 2 == 0 { lo.y } else { hi.y },
                if k & 4 == 0 { lo.z } else { hi.z },
            );
            at(c).y
        })
        .chain(arms.iter().map(|a| at(a.tip).y))
        .fold(0.0f32, f32::min);
    let scale = fix.x_axis.truncate().length();
    let hover = (-1.25 * lowest).max(0.05 * scale);
    let (size, head_plan) = plan::sizes(model, &[], &arms, head, fix);
    let arm_plans = plan::arms(model, &arms, fix);
    (
        Binding {
            body,
            head,
            legs: Vec::new(),
            arms,
            fix,
        },
        BodyPlan {
            size,
            height: hover,
            head: head_plan,
            legs: Vec::new(),
            arms: arm_plans,
            limb_radius: None,
            limb_radii: Vec::new(),
            recorded: false,
            hover: Some(hover),
        },
    )
}
