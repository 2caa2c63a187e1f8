//! Issue 47, feet: a model's foot and toe bones lie on the slope under a planted foot, and
//! a leg that trails peels its heel first (`model::feet`), on the shared knight's skeleton.

#![allow(clippy::expect_used, clippy::unwrap_used)] // tests: a failure is a failed test

mod common;
use common::*;

use glam::{Affine3A, Quat, Vec3};
use skitter::model::{BindSpec, BoundModel, FootInput, PoseInput};

fn knight() -> BoundModel {
    let m = load_in(&assets().join("knight"), "knight.glb", None).expect("knight");
    BoundModel::new(
        std::sync::Arc::new(m),
        &BindSpec {
            scale: 1.0,
            ..BindSpec::default()
        },
        None,
    )
    .expect("bind")
}

/// The knight posed upright, its body 12 cm lower than its bind pose (knees bent, as it
/// stands), with its left foot's end moved by `reach` (body space) from where the bind pose
/// has it and the ground's normal `slope` under it: the drawn joint heads of its left leg
/// (hip, knee, ankle, ball) and the foot's drawn end.
fn left_leg(b: &BoundModel, reach: Vec3, slope: Vec3) -> (Vec<Vec3>, Vec3) {
    let stood = Affine3A::from_translation(Vec3::new(0.0, 1.0, 0.0));
    let body = Affine3A::from_translation(Vec3::new(0.0, 0.88, 0.0));
    let fix = Affine3A::from_mat4(b.binding.fix);
    let mut points = Vec::new();
    let mut lens = Vec::new();
    for (c, chain) in b.binding.legs.iter().chain(&b.binding.arms).enumerate() {
        let start = points.len();
        for j in &chain.bones {
            points.push(body.transform_point3(fix.transform_point3(b.model.joints[*j].head())));
        }
        let tip = stood.transform_point3(fix.transform_point3(chain.tip));
        points.push(if c == 0 { tip + reach } else { tip });
        lens.push(points.len() - start);
    }
    let feet: Vec<FootInput> = b
        .binding
        .legs
        .iter()
        .map(|_| FootInput {
            slope,
            grounded: true,
        })
        .collect();
    let (mut world, mut skin) = (Vec::new(), Vec::new());
    b.posed.pose(
        &PoseInput {
            body,
            body_rotation: Quat::IDENTITY,
            points: &points,
            chain_lens: &lens,
            feet: &feet,
            ..Default::default()
        },
        &mut world,
        &mut skin,
    );
    let leg = &b.binding.legs[0];
    let heads = leg
        .bones
        .iter()
        .map(|j| Vec3::from(world[*j].translation))
        .collect();
    (heads, b.posed.tip(0, &world).expect("tip"))
}

#[test]
fn the_knights_foot_lies_on_the_slope_and_peels_its_heel_when_it_trails() {
    let b = knight();
    let leg = &b.binding.legs[0];
    let names: Vec<&str> = leg
        .bones
        .iter()
        .map(|j| b.model.joints[*j].name.as_str())
        .collect();
    assert_eq!(names, ["upperleg.l", "lowerleg.l", "foot.l", "toes.l"]);
    // Flat, standing where the bind pose stands: the foot and toes as the bind pose has them.
    let fix = Affine3A::from_mat4(b.binding.fix);
    let bind = |j: usize| fix.transform_point3(b.model.joints[leg.bones[j]].head());
    let bind_tip = fix.transform_point3(leg.tip);
    let (flat, tip) = left_leg(&b, Vec3::ZERO, Vec3::Y);
    let angle = |a: Vec3, b: Vec3| a.angle_between(b).to_degrees();
    assert!(
        angle(tip - flat[3], bind_tip - bind(3)) < 0.5,
        "toes as bound"
    );
    assert!(
        angle(flat[3] - flat[2], bind(3) - bind(2)) < 0.5,
        "foot as bound"
    );
    // A slope rising 20° ahead: the foot and toes turned onto it, the foot's end kept.
    let turn = Quat::from_rotation_x(-20f32.to_radians());
    let (on, tip_on) = left_leg(&b, Vec3::ZERO, turn * Vec3::Y);
    assert!(
        angle(tip_on - on[3], turn * (bind_tip - bind(3))) < 0.5,
        "toes along the slope: {:.2}°, heel {:.3} vs {:.3}",
        angle(tip_on - on[3], turn * (bind_tip - bind(3))),
        on[2].y,
        flat[2].y
    );
    assert!(
        angle(on[3] - on[2], turn * (bind(3) - bind(2))) < 0.5,
        "foot along the slope: {:.2}° (ankle {} ball {} hip {} tip {})",
        angle(on[3] - on[2], turn * (bind(3) - bind(2))),
        on[2],
        on[3],
        on[0],
        tip_on
    );
    assert!(
        tip_on.distance(tip) < 1e-4,
        "the foot's end stays where it stands"
    );
    // Trailing behind the hip (the foot about to lift): the heel peels, the ball stays down.
    let (back, tip_back) = left_leg(&b, Vec3::new(0.0, 0.0, -0.3), Vec3::Y);
    let heel_up = back[2].y - flat[2].y;
    assert!(heel_up > 0.01, "the heel peels: {heel_up:.3} m");
    assert!(
        (back[3].y - flat[3].y).abs() < 0.005,
        "the ball stays down while the heel peels"
    );
    assert!(tip_back.distance(tip + Vec3::new(0.0, 0.0, -0.3)) < 1e-3);
}
