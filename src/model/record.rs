//! The body plan a file records: `skitter export` writes the creature type's own figures
//! (its legs' hips, rest spots, segment lengths and knees, its arms, its body and head) into
//! the scene's `extras` (key [`EXTRAS_KEY`], a JSON string, which Blender keeps as a custom
//! property), with the bones each limb runs along and the scene-to-body transform they
//! assume. Binding prefers the record to what the bones say **while the bones still say the
//! same** (every chain found, by bone names; hips and segment lengths within
//! [`AGREE`]; the same transform): a type exported and loaded back is the same creature to
//! the bit, while one re-modelled in Blender (a leg lengthened, a bone renamed) is bound
//! anew from its bones.

use glam::{Mat4, Vec3};
use serde::{Deserialize, Serialize};

use super::bind::{BodyPlan, BoundLeg, LegChain};
use super::Model;

/// The scene `extras` key the record is written under.
pub(crate) const EXTRAS_KEY: &str = "skitter_plan";

/// How far the bones may disagree with the record (m) for it still to hold.
pub(crate) const AGREE: f32 = 1e-3;

/// A leg or an arm as recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LimbRecord {
    /// Its name in the creature.
    pub name: String,
    /// Its bones' names, root to tip.
    pub bones: Vec<String>,
    /// Hip (an arm's shoulder), body space.
    pub hip: Vec3,
    /// Rest spot (legs), body space.
    pub rest: Vec3,
    /// Segment lengths.
    pub segments: Vec<f32>,
    /// Knee direction; `None`: the definition's default from the rest spot.
    pub knee: Option<Vec3>,
}

/// A body plan as recorded in a file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanRecord {
    /// Format version (1).
    pub version: u32,
    /// Scene space to body space, as the recorded figures assume it.
    pub fix: Mat4,
    /// Body full extents.
    pub size: Vec3,
    /// Ride height.
    pub height: f32,
    /// Head centre and size.
    pub head: Option<(Vec3, Vec3)>,
    /// Legs, in the creature's order.
    pub legs: Vec<LimbRecord>,
    /// Arms.
    pub arms: Vec<LimbRecord>,
    /// Limb thickness (the ragdoll's capsules), when the type states it.
    pub limb_radius: Option<f32>,
    /// Each leg bone's thickness, when the type states it.
    pub limb_radii: Vec<Vec<f32>>,
}

impl PlanRecord {
    /// The record as the JSON string written into the file.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A record read back from a file's extras (`None`: absent, or not one this version
    /// reads; the plan is then found from the bones).
    pub fn from_extras(extras: &str) -> Option<PlanRecord> {
        let v: serde_json::Value = serde_json::from_str(extras).ok()?;
        let s = v.get(EXTRAS_KEY)?.as_str()?;
        serde_json::from_str::<PlanRecord>(s)
            .ok()
            .filter(|r| r.version == 1)
    }

    /// The binding and plan the record gives, when `model`'s bones still agree with it:
    /// `legs` and `arms` (found), `fix` and `plan` (computed from the bones) are checked
    /// against it and, if they agree, taken in the record's order, names and figures.
    pub(crate) fn apply(
        &self,
        model: &Model,
        legs: &[LegChain],
        arms: &[LegChain],
        fix: Mat4,
        plan: &BodyPlan,
    ) -> Option<(Vec<LegChain>, Vec<LegChain>, BodyPlan)> {
        let same_fix = self
            .fix
            .to_cols_array()
            .iter()
            .zip(fix.to_cols_array())
            .all(|(a, b)| (a - b).abs() <= 1e-4);
        if !same_fix || self.legs.len() != legs.len() || self.arms.len() != arms.len() {
            return None;
        }
        // Each recorded limb: the found chain with its bones, agreeing in hip and segments.
        let matched = |recs: &[LimbRecord],
                       found: &[LegChain],
                       figures: &[(Vec3, &[f32])]|
         -> Option<Vec<LegChain>> {
            let mut used = vec![false; found.len()];
            recs.iter()
                .map(|r| {
                    let i = found.iter().position(|c| {
                        c.bones.len() == r.bones.len()
                            && c.bones
                                .iter()
                                .zip(&r.bones)
                                .all(|(b, n)| model.joints[*b].name == *n)
                    })?;
                    let (hip, segs) = figures[i];
                    let agree = !used[i]
                        && hip.distance(r.hip) <= AGREE
                        && segs.len() == r.segments.len()
                        && segs
                            .iter()
                            .zip(&r.segments)
                            .all(|(a, b)| (a - b).abs() <= AGREE);
                    used[i] = true;
                    agree.then(|| LegChain {
                        name: r.name.clone(),
                        ..found[i].clone()
                    })
                })
                .collect()
        };
        let leg_figures: Vec<(Vec3, &[f32])> = plan
            .legs
            .iter()
            .map(|l| (l.hip, l.segments.as_slice()))
            .collect();
        let arm_figures: Vec<(Vec3, &[f32])> =
            plan.arms.iter().map(|a| (a.1, a.2.as_slice())).collect();
        let legs = matched(&self.legs, legs, &leg_figures)?;
        let arms = matched(&self.arms, arms, &arm_figures)?;
        let plan = BodyPlan {
            size: self.size,
            height: self.height,
            head: self.head,
            legs: self
                .legs
                .iter()
                .map(|r| BoundLeg {
                    name: r.name.clone(),
                    hip: r.hip,
                    rest: r.rest,
                    segments: r.segments.clone(),
                    knee: r.knee,
                })
                .collect(),
            arms: self
                .arms
                .iter()
                .map(|r| (r.name.clone(), r.hip, r.segments.clone()))
                .collect(),
            limb_radius: self.limb_radius,
            limb_radii: self.limb_radii.clone(),
            recorded: true,
            hover: None,
        };
        Some((legs, arms, plan))
    }
}
