//! The body plan's figures in body space, from the bind pose: each leg's hip, segments,
//! knee and rest spot, the standing pose for straight or flat legs, the body's and head's
//! sizes, and how thick the leg bones are.

use glam::{Mat4, Vec3};

use super::bind::{BoundLeg, LegChain};
use super::Model;

/// A leg whose foot, standing at the ride height under its rest spot, is further from its
/// hip than this share of the leg's length stands otherwise (a bind pose with straight or
/// flat legs: a definition's check refuses past 0.98)...
const STRAIGHT: f32 = 0.95;
/// ...its foot brought in to at most this share of the leg's length from under its hip
/// (legs reaching down, knees bent)...
const SPREAD: f32 = 0.6;
/// ...and the body lowered until every such foot is this share of its leg's length from
/// its hip (or a little further than it folds, [`FOLD_MARGIN`] of its length, for a leg
/// whose longest segment cannot fold that close).
const STANDING: f32 = 0.85;
/// See [`STANDING`].
const FOLD_MARGIN: f32 = 0.03;

/// The ride height a creature stands at with the legs the binder found, and their rest
/// spots on the ground there: as the bind pose has them while every foot is within
/// [`STRAIGHT`] of its leg's length; else, for a pose with straight or flat legs, the feet
/// too far out brought in to [`SPREAD`] and the body lowered until every leg reaches its
/// foot at [`STANDING`] — knees bent as a standing creature's are, and a definition its
/// own checks accept. Never raised.
pub(super) fn stand(legs: &mut [BoundLeg], height: f32) -> f32 {
    let reach = |l: &BoundLeg, h: f32| {
        let foot = Vec3::new(l.rest.x, -h, l.rest.z);
        l.hip.distance(foot) / l.segments.iter().sum::<f32>().max(1e-6)
    };
    // Legs lying flat (no height of their own): as high as the legs stand.
    let flat = height <= 0.01;
    if !flat && legs.iter().all(|l| reach(l, height) <= STRAIGHT) {
        return height;
    }
    let mut h = if flat { f32::INFINITY } else { height };
    for l in legs.iter_mut() {
        let length: f32 = l.segments.iter().sum();
        let out = Vec3::new(l.rest.x - l.hip.x, 0.0, l.rest.z - l.hip.z);
        let r = out.length().min(SPREAD * length);
        l.rest = l.hip + out.normalize_or_zero() * r;
        // No nearer the hip than the leg can fold (its longest segment less the rest).
        let longest = l.segments.iter().copied().fold(0.0f32, f32::max);
        let fold = (2.0 * longest - length).max(0.0) / length.max(1e-6);
        let reach = STANDING.max((fold + FOLD_MARGIN).min(STRAIGHT)) * length;
        let fits = (reach * reach - r * r).max(0.0).sqrt() - l.hip.y;
        h = h.min(fits);
    }
    let h = if flat {
        h.max(0.02)
    } else {
        h.max(0.05 * height)
    };
    for l in legs.iter_mut() {
        l.rest.y = -h;
    }
    h
}

/// A chain's segments: each bone from its head to the next bone's head (the last to the
/// tip), in body space (`fix`: scene space to body space).
pub(super) fn segments(model: &Model, c: &LegChain, fix: Mat4) -> Vec<f32> {
    let at = |p: Vec3| fix.transform_point3(p);
    let mut pts: Vec<Vec3> = c
        .bones
        .iter()
        .map(|b| at(model.joints[*b].head()))
        .collect();
    pts.push(at(c.tip));
    pts.windows(2)
        .map(|w| w[0].distance(w[1]).max(1e-3))
        .collect()
}

/// The arms as the definition wants them: name, shoulder (body space), segment lengths.
pub(super) fn arms(model: &Model, arms: &[LegChain], fix: Mat4) -> Vec<(String, Vec3, Vec<f32>)> {
    arms.iter()
        .map(|a| {
            (
                a.name.clone(),
                fix.transform_point3(model.joints[a.bones[0]].head()),
                segments(model, a, fix),
            )
        })
        .collect()
}

/// A leg as the definition wants it: its hip, segments (a one-bone leg's split in two),
/// knee (the middle joint's side of the hip–tip line) and rest spot (its tip on the ground
/// `height` below the body).
pub(super) fn bound_leg(model: &Model, l: &LegChain, fix: Mat4, height: f32) -> BoundLeg {
    let at = |p: Vec3| fix.transform_point3(p);
    let hip = at(model.joints[l.bones[0]].head());
    let tip = at(l.tip);
    let mut segs = segments(model, l, fix);
    if segs.len() < 2 {
        let s = segs[0] * 0.5;
        segs = vec![s, s];
    }
    let mid = if l.bones.len() >= 2 {
        at(model.joints[l.bones[l.bones.len() / 2]].head())
    } else {
        hip
    };
    let axis = (tip - hip).normalize_or(Vec3::NEG_Y);
    let off = (mid - hip) - axis * (mid - hip).dot(axis);
    let knee = if off.length() > 1e-3 {
        off.normalize()
    } else {
        Vec3::Y
    };
    BoundLeg {
        name: l.name.clone(),
        hip,
        rest: Vec3::new(tip.x, -height, tip.z),
        segments: segs,
        knee: Some(knee),
    }
}

/// The body's size (the vertices of no limb) and the head's centre and size (the head
/// bone's and what hangs from it), body space.
pub(super) fn sizes(
    model: &Model,
    legs: &[LegChain],
    arms: &[LegChain],
    head: Option<usize>,
    fix: Mat4,
) -> (Vec3, Option<(Vec3, Vec3)>) {
    let at = |p: Vec3| fix.transform_point3(p);
    // Body and head sizes from the vertices of no limb.
    let limb: Vec<bool> = (0..model.joints.len())
        .map(|j| {
            legs.iter().chain(arms).any(|l| {
                l.bones.contains(&j)
                    || l.follower == Some(j)
                    || l.bones.iter().any(|b| model.below(j, *b))
            })
        })
        .collect();
    let mut body_box = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    let mut head_box = body_box;
    for (v, j) in model.dominant_joints() {
        let p = at(v);
        if head.is_some_and(|h| j == h || model.below(j, h)) {
            head_box = (head_box.0.min(p), head_box.1.max(p));
        } else if !limb[j] {
            body_box = (body_box.0.min(p), body_box.1.max(p));
        }
    }
    let size = if body_box.0.x.is_finite() {
        (body_box.1 - body_box.0).max(Vec3::splat(0.02))
    } else {
        Vec3::splat(0.2)
    };
    let head_plan = head.filter(|_| head_box.0.x.is_finite()).map(|_| {
        (
            (head_box.0 + head_box.1) * 0.5,
            (head_box.1 - head_box.0).max(Vec3::splat(0.01)),
        )
    });
    (size, head_plan)
}

/// How thick the legs are: the median distance of the leg bones' vertices from their axes
/// (head to the next joint or the tip), over all (`scale`: the binding's), and each leg
/// bone's own (a bone without vertices of its own takes the overall), when every leg has
/// one bone per segment.
pub(super) fn thickness(
    model: &Model,
    legs: &[LegChain],
    bound_legs: &[BoundLeg],
    scale: f32,
) -> (Option<f32>, Vec<Vec<f32>>) {
    // Limb thickness: each leg bone's vertices' distance from its axis (head to the next
    // joint or the tip), the median over all.
    let mut axis_of: Vec<Option<(Vec3, Vec3)>> = vec![None; model.joints.len()];
    for l in legs {
        for (k, b) in l.bones.iter().enumerate() {
            let a = model.joints[*b].head();
            let next = l
                .bones
                .get(k + 1)
                .map_or(l.tip, |nb| model.joints[*nb].head());
            axis_of[*b] = Some((a, next));
        }
    }
    let mut per_bone: Vec<Vec<f32>> = vec![Vec::new(); model.joints.len()];
    for (v, j) in model.dominant_joints() {
        let Some((a, b)) = axis_of.get(j).copied().flatten() else {
            continue;
        };
        let ab = b - a;
        let t = ((v - a).dot(ab) / ab.length_squared().max(1e-12)).clamp(0.0, 1.0);
        per_bone[j].push(v.distance(a + ab * t) * scale);
    }
    let median = |xs: &mut Vec<f32>| -> Option<f32> {
        xs.sort_by(f32::total_cmp);
        xs.get(xs.len() / 2).copied()
    };
    let mut dists: Vec<f32> = per_bone.iter().flatten().copied().collect();
    dists.sort_by(f32::total_cmp);
    let shortest = bound_legs
        .iter()
        .flat_map(|l| l.segments.iter().copied())
        .fold(f32::INFINITY, f32::min);
    let limb_radius = dists
        .get(dists.len() / 2)
        .map(|r| r.clamp(0.005, (0.3 * shortest).max(0.005)));
    // Each leg bone's own thickness (its vertices' median distance; a bone without vertices
    // of its own takes the limbs' overall), when every leg has one bone per segment.
    let limb_radii: Vec<Vec<f32>> = match limb_radius {
        Some(all)
            if legs
                .iter()
                .zip(bound_legs)
                .all(|(l, b)| l.bones.len() == b.segments.len()) =>
        {
            legs.iter()
                .zip(bound_legs)
                .map(|(l, b)| {
                    l.bones
                        .iter()
                        .zip(&b.segments)
                        .map(|(j, len)| {
                            median(&mut per_bone[*j])
                                .unwrap_or(all)
                                .clamp(0.005, (0.3 * len).max(0.005))
                        })
                        .collect()
                })
                .collect()
        }
        _ => Vec::new(),
    };
    (limb_radius, limb_radii)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leg(hip: Vec3, rest: Vec3, segments: Vec<f32>) -> BoundLeg {
        BoundLeg {
            name: "L1".into(),
            hip,
            rest,
            segments,
            knee: None,
        }
    }

    /// How far a leg's foot is from its hip, over its length.
    fn reach(l: &BoundLeg) -> f32 {
        l.hip.distance(l.rest) / l.segments.iter().sum::<f32>()
    }

    #[test]
    fn a_bind_pose_with_bent_legs_stands_as_it_is() {
        let mut legs = vec![leg(
            Vec3::new(0.2, 0.0, 0.0),
            Vec3::new(0.4, -0.3, 0.0),
            vec![0.3, 0.3],
        )];
        let before = legs.clone();
        assert_eq!(stand(&mut legs, 0.3), 0.3);
        assert_eq!(legs, before);
    }

    #[test]
    fn straight_legs_stand_lower_with_bent_knees_and_feet_brought_in() {
        // Plumb (the foot its whole length below the hip) and spread out sideways.
        let mut legs = vec![
            leg(
                Vec3::new(0.2, 0.0, 0.0),
                Vec3::new(0.2, -0.6, 0.0),
                vec![0.3, 0.3],
            ),
            leg(
                Vec3::new(-0.2, 0.0, 0.0),
                Vec3::new(-0.79, -0.1, 0.0),
                vec![0.3, 0.3],
            ),
        ];
        let h = stand(&mut legs, 0.6);
        assert!(h < 0.6 && h > 0.2, "{h}");
        for l in &legs {
            assert_eq!(l.rest.y, -h);
            assert!(reach(l) <= STANDING + 1e-4, "{l:?}: reach {}", reach(l));
            // Out no further than SPREAD of its length from under its hip.
            assert!(Vec3::new(l.rest.x - l.hip.x, 0.0, l.rest.z).length() <= SPREAD * 0.6 + 1e-4);
        }
    }

    #[test]
    fn a_long_upper_bone_over_a_short_foot_stands_no_nearer_than_it_folds() {
        // 0.5 + 0.1: folded fully, the foot is still 0.4 from the hip (2/3 of its length).
        let mut legs = vec![leg(
            Vec3::new(0.1, 0.0, 0.0),
            Vec3::new(0.1, -0.6, 0.0),
            vec![0.5, 0.1],
        )];
        let h = stand(&mut legs, 0.6);
        let r = reach(&legs[0]);
        assert!(
            (0.4 / 0.6..=STRAIGHT).contains(&r),
            "reach {r} at height {h}"
        );
    }
}
